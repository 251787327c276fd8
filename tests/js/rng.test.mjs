// rng.js (and sha256.js) against every spawn of schema/vectors/spawns.json and SPEC 5.4.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exponents, jsModule, VECTORS } from "./helpers.mjs";

const { SpawnRng, openingBoard, seedProblem, spawnDigestWebCrypto } = await jsModule("rng.js");
const { sha256, hmacSha256, toHex } = await jsModule("sha256.js");
const { readJson, JsonBigInt } = await jsModule("json.js");

// JSON.parse would round the spawn numbers above 2^53; the project's own reader keeps them.
const spawnsDoc = readJson(readFileSync(join(VECTORS, "spawns.json"), "utf8"));
const spawns = spawnsDoc.get("spawns");

function plain(value) {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

test("spawns.json: version 1 and plenty of vectors", () => {
  assert.equal(spawnsDoc.get("version"), 1);
  assert.ok(spawns.length >= 50);
});

spawns.forEach((entry, index) => {
  const seed = entry.get("seed");
  const rawK = entry.get("k");
  const k = rawK instanceof JsonBigInt ? BigInt(rawK.text) : rawK;
  test(`spawn vector ${index}: seed ${JSON.stringify(seed).slice(0, 30)} k=${k}`, () => {
    const rng = new SpawnRng(seed);
    assert.equal(toHex(rng.digest(k)), entry.get("hmac"));
    const board = exponents(plain(entry.get("board")));
    assert.deepEqual(rng.spawn(k, board), { cell: entry.get("cell"), value: entry.get("value") });
  });
});

test("SPEC 5.4: worked example and the table of digests", () => {
  const rng = new SpawnRng("example");
  assert.equal(toHex(rng.digest(1)), "d31e26e659a802461d50d596b17211fd4dc727516f70e027ddb6eee392bf2bb4");
  assert.equal(toHex(rng.digest(5)), "8f529e2c257a91bc3fd614a3985c2cf89da046375943c1ba8be387a888a3211a");
  assert.equal(toHex(rng.digest(6)), "06f95b3d37ed21f0cb3a5ace78b4c452a2f9b1e6055e0638f29fe52c035e2323");
  const { board, first, second } = openingBoard(rng);
  assert.deepEqual([first, second], [{ cell: 0, value: 2 }, { cell: 14, value: 2 }]);
  assert.deepEqual([...board], exponents([[2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 2, 0]]));
  const unicode = new SpawnRng("Grüße, 世界 🎲");
  assert.equal(toHex(unicode.digest(0)), "267d5cf3cc916eb329c305d28aab156e41e7bf818d932d4e3b4d9d9db8671a62");
  const { first: u0, second: u1 } = openingBoard(unicode);
  assert.deepEqual([u0.cell, u1.cell], [3, 5]);
  const long = new SpawnRng("🎲".repeat(128)); // 512-byte key: hashed first, as HMAC says
  assert.equal(toHex(long.digest(0)), "034ad7528cc59173f413a49f4d54c758c88cf430f260ca1d02a05a3c0a07039c");
});

test("the whole 2^64 counter range is exact (no float, no signed arithmetic)", () => {
  const rng = new SpawnRng("alpha");
  const top = (1n << 64n) - 1n;
  const expected = createHmac("sha256", "alpha").update(Buffer.from("ffffffffffffffff", "hex")).digest("hex");
  assert.equal(toHex(rng.digest(top)), expected);
  assert.throws(() => rng.digest(1n << 64n), RangeError);
  assert.throws(() => rng.digest(-1), RangeError);
  assert.throws(() => rng.digest(2 ** 53), RangeError, "unsafe numbers must be given as BigInt");
});

test("seed rules of SPEC 5.1, worded as the reference", () => {
  assert.equal(seedProblem(""), "seed is empty");
  assert.equal(seedProblem("x".repeat(129)), "seed has 129 characters, the limit is 128");
  assert.equal(seedProblem("🎲".repeat(128)), null, "128 code points are 256 UTF-16 units");
  assert.equal(seedProblem("ab\ud800"), "seed is not encodable as UTF-8 (character 3)");
  assert.equal(seedProblem("\ud83c\udfb2\udc00"), "seed is not encodable as UTF-8 (character 2)");
  assert.throws(() => new SpawnRng("\ud800"), RangeError);
});

test("pure-JS SHA-256 and HMAC equal node:crypto (block boundaries, long keys)", () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
    const data = Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 255);
    assert.equal(toHex(sha256(data)), createHash("sha256").update(data).digest("hex"));
    for (const keyLength of [0, 7, 64, 65, 512]) {
      const key = Uint8Array.from({ length: keyLength }, (_, i) => (i * 13 + 1) & 255);
      assert.equal(toHex(hmacSha256(key, data)), createHmac("sha256", key).update(data).digest("hex"));
    }
  }
});

test("WebCrypto gives the same spawn digests as the pure-JS path", async () => {
  for (const [seed, k] of [["example", 0], ["example", 6], ["🎲".repeat(128), 0], ["alpha", 1000001]]) {
    const webcrypto = await spawnDigestWebCrypto(seed, k);
    assert.ok(webcrypto !== null, "Node 20 has crypto.subtle");
    assert.equal(toHex(webcrypto), toHex(new SpawnRng(seed).digest(k)));
  }
});
