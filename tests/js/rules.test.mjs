// rules.js against SPEC sections 3 and 4 (every example of 3.5, the whole-board example,
// game over), and the board helpers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { exponents, jsModule } from "./helpers.mjs";

const { applyMove, canMove, maxTile, emptyCells, isWon, boardFromRows, boardToRows, tileExponent } =
  await jsModule("rules.js");

function row(values) {
  return [values, [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]];
}

// SPEC 3.5: line before, direction, line after, gained.
const LINES = [
  ["4 4 4 4", "L", "8 8 0 0", 16],
  ["4 4 4 0", "L", "8 4 0 0", 8],
  ["2 2 4 0", "L", "4 4 0 0", 4],
  ["2 0 0 2", "L", "4 0 0 0", 4],
  ["2 4 2 0", "L", "2 4 2 0", 0],
  ["0 0 0 2", "L", "2 0 0 0", 0],
  ["8 8 16 16", "L", "16 32 0 0", 48],
  ["4 4 4 4", "R", "0 0 8 8", 16],
  ["4 4 4 0", "R", "0 0 4 8", 8],
  ["2 2 2 0", "R", "0 0 2 4", 4],
  ["32768 32768 0 0", "L", "65536 0 0 0", 65536],
  ["65536 65536 0 0", "L", "131072 0 0 0", 131072],
];

for (const [before, dir, after, gained] of LINES) {
  test(`SPEC 3.5: ${before} ${dir} -> ${after} (+${gained}), as a row and as a column`, () => {
    const values = before.split(" ").map(Number);
    const expected = after.split(" ").map(Number);
    const result = applyMove(boardFromRows(row(values)), dir);
    assert.deepEqual(boardToRows(result.board), row(expected));
    assert.equal(result.gained, gained);
    assert.equal(result.moved, before !== after);
    // The same line as column 0 read from the top (L -> U, R -> D).
    const column = values.map((v) => [v, 0, 0, 0]);
    const moved = applyMove(boardFromRows(column), dir === "L" ? "U" : "D");
    assert.deepEqual(boardToRows(moved.board).map((r) => r[0]), expected);
    assert.equal(moved.gained, gained);
  });
}

test("SPEC 3.5 whole board: U gains 16", () => {
  const board = boardFromRows([[2, 0, 4, 2], [2, 2, 4, 0], [0, 0, 0, 2], [0, 0, 0, 0]]);
  const copy = Uint8Array.from(board);
  const result = applyMove(board, "U");
  assert.deepEqual(boardToRows(result.board), [[4, 2, 8, 4], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]);
  assert.equal(result.gained, 16);
  assert.deepEqual(board, copy, "applyMove never modifies its input");
});

test("SPEC 4.3: the checkerboard is over; one empty cell or one equal pair is not", () => {
  const over = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]];
  assert.equal(canMove(boardFromRows(over)), false);
  for (const dir of ["U", "D", "L", "R"]) assert.equal(applyMove(boardFromRows(over), dir).moved, false);
  const withHole = over.map((r) => [...r]);
  withHole[3][3] = 0;
  assert.equal(canMove(boardFromRows(withHole)), true);
  const withPair = over.map((r) => [...r]);
  withPair[3][3] = 4; // now equal to its left neighbour (3,2)
  assert.equal(canMove(boardFromRows(withPair)), true);
  const horizontal = over.map((r) => [...r]);
  horizontal[0][1] = 2; // (0,0) is 2
  assert.equal(canMove(boardFromRows(horizontal)), true);
});

test("maxTile, isWon, emptyCells, plain arrays of exponents", () => {
  const board = exponents([[0, 2, 0, 0], [0, 0, 2048, 0], [0, 0, 0, 0], [4, 0, 0, 131072]]);
  assert.equal(maxTile(board), 131072);
  assert.equal(isWon(board), true);
  assert.deepEqual(emptyCells(board), [0, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13, 14]);
  assert.equal(maxTile(new Uint8Array(16)), 0);
  assert.equal(isWon(exponents([[1024, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])), false);
});

test("bad boards, directions and tiles are refused", () => {
  assert.throws(() => applyMove(new Uint8Array(15), "L"), RangeError);
  assert.throws(() => applyMove(new Uint8Array(16), "l"), RangeError);
  assert.throws(() => tileExponent(3), RangeError);
  assert.throws(() => tileExponent(262144), RangeError);
  assert.throws(() => boardFromRows([[0, 0, 0, 0]]), RangeError);
  assert.equal(tileExponent(131072), 17);
});
