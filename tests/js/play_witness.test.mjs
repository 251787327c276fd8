// play_witness.js (the play page's checks of every server answer) against answers built here with
// the spec modules: an honest game passes, and each kind of lie is named.  The browser test
// (tests/test_fair_client_browser.py) plays the same checks against a lying HTTP server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsModule } from "./helpers.mjs";

const { Witness, WitnessUnfair, WitnessUnusable } = await jsModule("play_witness.js");
const { applyMove, boardToRows, canMove, isWon, maxTile } = await jsModule("rules.js");
const { SpawnRng, openingBoard } = await jsModule("rng.js");
const api = await jsModule("api_client.js");
const { reasonText } = await jsModule("reasons.js");

const COMMITMENT = "ab".repeat(32);

function stateAnswer(board, score, moves) {
  return { board: boardToRows(board), score, moves, max_tile: maxTile(board), won: isWon(board), over: !canMove(board) };
}

// An honest server's game of `seed`: the opening answer and a function answering moves.
function honest(seed) {
  const rng = new SpawnRng(seed);
  let board = openingBoard(rng).board;
  let score = 0;
  let moves = 0;
  const opening = { id: 1, ...stateAnswer(board, 0, 0) };
  const move = (letter) => {
    const slide = applyMove(board, letter);
    if (!slide.moved) return null;
    moves += 1;
    score += slide.gained;
    const spawn = rng.spawn(moves + 1, slide.board);
    board = slide.board;
    board[spawn.cell] = spawn.value === 4 ? 2 : 1;
    return { id: 1, n: moves, move: letter, ...stateAnswer(board, score, moves), gained: slide.gained, spawn, finished: !canMove(board) };
  };
  return { opening, move };
}

function started(seed = "witness") {
  const witness = new Witness("http://test", "ann", "seed");
  witness.created({ id: 1, token: "t", commitment: COMMITMENT });
  const game = honest(seed);
  witness.opened(game.opening);
  return { witness, game };
}

function playValid(witness, game, count) {
  let played = 0;
  while (played < count) {
    for (const letter of "LDRU") {
      const answer = game.move(letter);
      if (answer !== null) {
        witness.moved(witness.last.moves + 1, letter, answer);
        played += 1;
        break;
      }
    }
  }
}

test("an honest game passes every check", () => {
  const { witness, game } = started();
  playValid(witness, game, 30);
  assert.equal(witness.last.moves, 30);
  assert.equal(witness.verdict, null);
  assert.equal(witness.letters.length, 30);
});

test("the commitment must be 64 lowercase hex before anything else", () => {
  for (const commitment of [COMMITMENT.toUpperCase(), COMMITMENT.slice(0, 32), "\u001b]52;c;aGk=\u0007" + COMMITMENT.slice(13)]) {
    const witness = new Witness("http://test", "ann", "seed");
    assert.throws(
      () => witness.created({ id: 1, token: "t", commitment }),
      (error) => error instanceof WitnessUnusable && error.message.startsWith("the server's answer to the new game is unusable: field 'commitment' is "),
    );
  }
});

test("lies about a move are named with the rule and the move", () => {
  const cases = [
    [(a) => ({ ...a, over: true, finished: true }), "it says the game is over, but the board can still move"],
    [(a) => ({ ...a, won: true }), "it says the game is won, but no tile is 2048 or more"],
    [(a) => ({ ...a, score: a.score + 4 }), "its score is "],
    [(a) => ({ ...a, n: a.n + 1, moves: a.moves + 1 }), "it numbers the move 4, not 3 as sent"],
    [(a) => ({ ...a, board: a.board.map((row, r) => row.map((v, c) => (r * 4 + c === a.spawn.cell ? 8 : v))), spawn: { cell: a.spawn.cell, value: 8 }, max_tile: Math.max(a.max_tile, 8) }), "is 8; a new tile is 2 or 4"],
  ];
  for (const [lie, words] of cases) {
    const { witness, game } = started();
    playValid(witness, game, 2);
    let answer = null;
    let letter = null;
    for (const l of "LDRU") {
      answer = game.move(l);
      if (answer !== null) {
        letter = l;
        break;
      }
    }
    assert.throws(
      () => witness.moved(3, letter, lie(answer)),
      (error) => {
        assert.ok(error instanceof WitnessUnfair, error.message);
        assert.ok(error.message.startsWith(`the server's answer to move 3 (${letter}) breaks the rules: `), error.message);
        assert.ok(error.message.includes(words), error.message);
        assert.equal(error.move, 3);
        assert.equal(error.evidence.verdict, error.message);
        // The verdict as a code (SPEC 8.8), the same words as the message, in JSON as Python keeps it.
        const code = error.evidence.verdict_code;
        assert.equal(code.code, "witness.broken");
        assert.deepEqual(code.params.where, { code: "witness.where.move", params: { n: 3, letter } });
        assert.equal(reasonText(error.code), error.message);
        return true;
      },
    );
    assert.equal(witness.verdict.message.includes(words), true);
  }
});

test("a board that is not 4x4 is unusable, not a crash", () => {
  const witness = new Witness("http://test", "ann", "seed");
  witness.created({ id: 1, token: "t", commitment: COMMITMENT });
  const opening = honest("witness").opening;
  assert.throws(() => witness.opened({ ...opening, board: opening.board.slice(0, 3) }), WitnessUnusable);
  assert.throws(() => witness.opened({ ...opening, board: [[0, 0, 0, 3], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]] }), WitnessUnusable);
  assert.throws(() => witness.opened([1, 2]), /is unusable: it is \[1,2\], not a JSON object/);
});

test("the token is kept in the evidence only as its SHA-256", () => {
  const witness = new Witness("http://test", "ann", "seed");
  witness.received("POST /api/games", { player: "ann" }, 201, { id: 1, token: "secret-token", commitment: COMMITMENT });
  const kept = witness.evidence("v").answers[0].answer.token;
  assert.match(kept, /^sha256:[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify(witness.evidence("v")).includes("secret-token"));
});

test("answers are read strictly: deep nesting and duplicate keys are unusable", async () => {
  for (const text of ["[".repeat(60000), '{"id": 1, "id": 2}', "[NaN]"]) {
    globalThis.fetch = async () => new Response(text, { status: 200, headers: { "Content-Type": "application/json" } });
    await assert.rejects(api.apiGame(1), (error) => error instanceof api.ApiUnusable && error.message.startsWith("the server's answer to GET /api/games/1 is unusable: "));
  }
});
