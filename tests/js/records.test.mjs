// Every sample record of schema/vectors/records/ gets its expected verdict (expected.json),
// read from its bytes as a verifier reads a .json file; plus the limits of SPEC 6.4 and 7.
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsModule, readBytes, readJsonFile } from "./helpers.mjs";

const { verifyRecord, verdictJson } = await jsModule("verify.js");
const { parseRecord } = await jsModule("record.js");
const { MAX_INPUT_BYTES } = await jsModule("json.js");

const expected = readJsonFile("schema", "vectors", "records", "expected.json");
const codes = readJsonFile("schema", "vectors", "records", "codes.json").codes;
const VERDICT = { valid: true, invalid: false, unreadable: null };

test("expected.json lists the three kinds of sample", () => {
  const kinds = new Set(Object.values(expected));
  assert.deepEqual([...kinds].sort(), ["invalid", "unreadable", "valid"]);
});

for (const [file, outcome] of Object.entries(expected)) {
  test(`sample ${file} is ${outcome}`, async () => {
    const bytes = readBytes("schema", "vectors", "records", file);
    const verdict = await verifyRecord(bytes);
    assert.equal(verdict.valid, VERDICT[outcome], verdict.error || verdict.reasons.join("; "));
    if (outcome === "unreadable") {
      assert.equal(typeof verdict.error, "string");
      assert.equal(verdict.timeline, null);
    } else {
      assert.equal(verdict.reasons.length === 0, outcome === "valid");
      assert.equal(verdict.timeline.length, verdict.moves + 1);
      // The same verdict from the text as from the bytes (the page embeds text).
      const fromText = await verifyRecord(new TextDecoder().decode(bytes));
      assert.deepEqual(verdictJson(fromText), verdictJson(verdict));
    }
  });
}

for (const [file, want] of Object.entries(codes)) {
  test(`sample ${file} gives the reason codes of codes.json (SPEC 8.8: rows and columns from 1)`, async () => {
    const verdict = await verifyRecord(readBytes("schema", "vectors", "records", file));
    assert.deepEqual(verdictJson(verdict).reason_codes, want);
  });
}

test("SPEC 8.7: games.jsonl's three records", async () => {
  const line1 = '{"format": "twenty48-record", "version": 1, "seed": "example", "moves": "LURD", "score": 8}';
  const line2 = '{"format": "twenty48-record", "version": 1, "seed": "example", "moves": "LURDUU", "score": 12}';
  const line3 = '{"format": "twenty48-record", "version": 1, "seed": "example", "moves": "LURD", "score": 8.0}';
  assert.deepEqual(verdictJson(await verifyRecord(line1)), {
    valid: true, score: 8, max_tile: 4, moves: 4, won: false, over: false, reasons: [], fair: "self-seeded", signature: null,
    reason_codes: [],
  });
  assert.deepEqual(verdictJson(await verifyRecord(line2)), {
    valid: false, score: 8, max_tile: 4, moves: 5, won: false, over: false,
    reasons: ["move 6 (U) is not a valid move: it does not change the board", "claimed score 12, replayed 8"],
    fair: "self-seeded", signature: null,
    reason_codes: [
      { code: "move.no_change", params: { number: 6, direction: "U" } },
      { code: "claim.score", params: { claimed: 12, replayed: 8 } },
    ],
  });
  assert.deepEqual(verdictJson(await verifyRecord(line3)), {
    valid: null, error: "field 'score': 8.0 (a number with a fraction or exponent) is not an integer",
    error_code: {
      code: "field",
      params: {
        field: "score",
        problem: { code: "record.not_integer", params: { value: { code: "value.fraction", params: { number: 8 } } } },
      },
    },
  });
});

test("the 16 MiB limit: exactly 16,777,216 bytes is read, one more byte is not", () => {
  const head = '{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"pad":"';
  const tail = '"}';
  const fill = MAX_INPUT_BYTES - head.length - tail.length;
  const atLimit = new TextEncoder().encode(head + "x".repeat(fill) + tail);
  assert.equal(atLimit.length, MAX_INPUT_BYTES);
  assert.deepEqual(parseRecord(atLimit).errors, []);
  const over = new Uint8Array(MAX_INPUT_BYTES + 1);
  over.set(atLimit);
  over[MAX_INPUT_BYTES] = 0x20;
  assert.deepEqual(parseRecord(over).errors, ["record is 16,777,217 bytes, over the limit of 16,777,216"]);
  // Text is measured in UTF-8 bytes, not UTF-16 units: 'é' is 2 bytes.
  const text = head + "é".repeat(fill / 2 + 1) + tail;
  assert.match(parseRecord(text).errors[0], /over the limit of 16,777,216$/);
});

test("1,000,000 moves are readable; 1,000,001 are not; other letters are refused", () => {
  const base = { format: "twenty48-record", version: 1, seed: "s", score: 0 };
  assert.deepEqual(parseRecord(JSON.stringify({ ...base, moves: "L".repeat(1000000) })).errors, []);
  assert.deepEqual(parseRecord(JSON.stringify({ ...base, moves: "L".repeat(1000001) })).errors, [
    "field 'moves': 1000001 moves, the limit is 1,000,000",
  ]);
  assert.deepEqual(parseRecord(JSON.stringify({ ...base, moves: "LU\n" })).errors, [
    "field 'moves': letter '\\n' at move 3 is not U, D, L or R",
  ]);
  assert.deepEqual(parseRecord(JSON.stringify({ ...base, moves: "l" })).errors, [
    "field 'moves': letter 'l' at move 1 is not U, D, L or R",
  ]);
});

test("reading rules worded as the reference", () => {
  const cases = [
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":9007199254740993}',
      "field 'score': 9007199254740993 is over the limit of 2^53"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":-0}', null],
    ['{"format":"twenty48-record","version":1.0,"seed":"s","moves":"","score":0}',
      "field 'version': 1.0 (a number with a fraction or exponent) is not an integer"],
    ['{"format":"twenty48-record","version":true,"seed":"s","moves":"","score":0}',
      "field 'version': true is not an integer"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"max_tile":0}',
      "field 'max_tile': 0 is not a tile"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"max_tile":3}',
      "field 'max_tile': 3 is not 0 or a power of two from 2 to 131072"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"final_board":[[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0]]}',
      "field 'final_board[3]': must be an array of 4 tile values"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"final_board":[[0,0,0,0],[0,0,0,0],[0,0,0,5],[0,0,0,0]]}',
      "field 'final_board[2][3]': 5 is not 0 or a power of two from 2 to 131072"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"player":null}',
      "field 'player': null is not a str"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"assisted":"yes"}',
      "field 'assisted': the string 'yes' is not a bool"],
    ['{"format":"twenty48-record","version":1,"seed":"\\ud800","moves":"","score":0}',
      "field 'seed': seed is not encodable as UTF-8 (character 1)"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":"\\ud800"}', null],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":' + "[".repeat(100) + "]".repeat(100) + "}",
      "field 'x': nested deeper than 100 levels"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":' + "[".repeat(99) + "]".repeat(99) + "}", null],
    ['[]', "a record is a JSON object, not an array"],
    ['{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"__proto__":1,"1":2}', null],
    ['{"format":"twenty48","version":1,"seed":"s","moves":"","score":0}', "field 'format': the string 'twenty48' is not 'twenty48-record'"],
  ];
  for (const [text, error] of cases) {
    assert.deepEqual(parseRecord(text).errors, error === null ? [] : [error], text.slice(0, 90));
  }
});

test("bad UTF-8 is unreadable with the byte position; a BOM only at the start", () => {
  const good = new TextEncoder().encode('{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"p":"');
  const bytes = new Uint8Array(good.length + 3);
  bytes.set(good);
  bytes.set([0xff, 0x22, 0x7d], good.length);
  assert.deepEqual(parseRecord(bytes).errors, [`input is not UTF-8 (byte ${good.length + 1})`]);
  const withBom = new Uint8Array(bytes.length + 3);
  withBom.set([0xef, 0xbb, 0xbf]);
  withBom.set(bytes, 3);
  assert.deepEqual(parseRecord(withBom).errors, [`input is not UTF-8 (byte ${good.length + 1})`]);
});
