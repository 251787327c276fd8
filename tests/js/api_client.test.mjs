// api_client.js (the server pages' client of the fair-play API) against a scripted fetch:
// what is sent again unchanged (a dropped connection, 502/503/504), what is not (a refusal),
// and how a start whose answer was lost is recognised.  The browser tests
// (tests/test_web_server.py) run the same code against a live server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsModule } from "./helpers.mjs";

const api = await jsModule("api_client.js");

function reply(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

// Install a fetch that plays `script` (functions of the call) and records every request.
function scripted(script) {
  const calls = [];
  globalThis.fetch = async (path, init) => {
    calls.push({ path, method: init.method, body: init.body ?? null, auth: init.headers.Authorization ?? null });
    const step = script[calls.length - 1];
    if (step === undefined) throw new Error("unexpected request " + path);
    return step();
  };
  return calls;
}

test("a dropped connection and a 503 are sent again with the same n", async () => {
  const calls = scripted([
    () => {
      throw new TypeError("connection reset");
    },
    () => reply(503, { error: "busy" }),
    () => reply(200, { n: 3, move: "L", score: 4 }),
  ]);
  const answer = await api.apiMove(7, "tok", 3, "L");
  assert.deepEqual(answer, { n: 3, move: "L", score: 4 });
  assert.equal(calls.length, 3);
  for (const call of calls) {
    assert.deepEqual(call, { path: "/api/games/7/moves", method: "POST", body: '{"move":"L","n":3}', auth: "Bearer tok" });
  }
});

test("a 429 is sent again after its Retry-After, with the same n", async () => {
  const calls = scripted([
    () =>
      new Response(JSON.stringify({ error: "too many moves in this game; try again in 1 s" }), {
        status: 429,
        headers: { "Content-Type": "application/json", "Retry-After": "1" },
      }),
    () => reply(200, { n: 4, move: "D", score: 8 }),
  ]);
  const started = Date.now();
  const answer = await api.apiMove(9, "tok", 4, "D");
  assert.deepEqual(answer, { n: 4, move: "D", score: 8 });
  assert.ok(Date.now() - started >= 950, "waited for Retry-After");
  assert.equal(calls.length, 2);
  assert.equal(calls[0].body, calls[1].body);
});

test("a refusal is not retried and keeps the server's reason", async () => {
  const calls = scripted([() => reply(422, { error: "move 2 (L) does not change the board" })]);
  await assert.rejects(api.apiMove(1, "t", 2, "L"), (error) => {
    assert.ok(error instanceof api.ApiRefusal);
    assert.equal(error.status, 422);
    assert.equal(error.reason, "move 2 (L) does not change the board");
    return true;
  });
  assert.equal(calls.length, 1);
});

test("a refusal keeps the server's code, and only a well-formed one", async () => {
  const code = { code: "field", params: { field: "player", problem: { code: "name.empty", params: {} } } };
  scripted([
    () => reply(422, { error: "field 'player': the name is empty", error_code: code }),
    () => reply(422, { error: "odd", error_code: { code: "Not A Code", params: {} } }),
    () => reply(422, { error: "odd", error_code: { code: "server.too_many", params: { seconds: 1.5 } } }),
    () => reply(422, { error: "words alone" }),
  ]);
  const codes = [];
  for (let i = 0; i < 4; i++) {
    await assert.rejects(api.apiNewGame("x"), (error) => {
      assert.ok(error instanceof api.ApiRefusal);
      codes.push(error.code);
      return true;
    });
  }
  assert.deepEqual(codes, [code, null, null, null]);
});

test("a start answered 409 after a retry is ours when the game holds our client seed", async () => {
  const calls = scripted([
    () => {
      throw new TypeError("lost");
    },
    () => reply(409, { error: "the game is already started" }),
    () => reply(200, { id: 5, started: true, finished: false, client_seed: "mine", board: [], score: 0, moves: 0 }),
  ]);
  const opening = await api.apiStart(5, "tok", "mine");
  assert.equal(opening.client_seed, "mine");
  assert.deepEqual(
    calls.map((c) => [c.method, c.path]),
    [
      ["POST", "/api/games/5/start"],
      ["POST", "/api/games/5/start"],
      ["GET", "/api/games/5"],
    ],
  );
  assert.equal(calls[2].auth, null); // the public view needs no token
  scripted([
    () => reply(409, { error: "the game is already started" }),
    () => reply(200, { id: 5, started: true, finished: false, client_seed: "someone else's" }),
  ]);
  await assert.rejects(api.apiStart(5, "tok", "mine"), (error) => error.status === 409);
});

test("a server that keeps failing gives up with a reason", async () => {
  const script = Array.from({ length: api.API_RETRIES + 1 }, () => () => reply(502, { error: "bad gateway" }));
  const calls = scripted(script);
  const delays = [];
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = (fn, ms) => {
    delays.push(ms);
    return realSetTimeout(fn, 0);
  };
  try {
    await assert.rejects(api.apiLeaderboard(5), (error) => {
      assert.equal(error.status, null);
      assert.match(error.reason, /502: bad gateway/);
      return true;
    });
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  assert.deepEqual(delays, [100, 200, 400, 800, 1600, 2000]); // backing off, at most 2 s
  assert.equal(calls.length, api.API_RETRIES + 1);
  assert.equal(calls[0].path, "/api/leaderboard?limit=5");
});

test("client seeds are 32 random lowercase hex characters", () => {
  const seeds = new Set(Array.from({ length: 50 }, () => api.apiRandomClientSeed()));
  assert.equal(seeds.size, 50);
  for (const seed of seeds) assert.match(seed, /^[0-9a-f]{32}$/);
});
