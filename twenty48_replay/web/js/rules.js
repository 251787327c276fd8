// rules.js: the rules of 2048 (schema/SPEC.md sections 2 to 4), no spawns.
//
// A board is 16 EXPONENTS in row-major order (index = row * 4 + col, row 0 on
// top): 0 is an empty cell, k is the tile 2**k (so 17 is 131072, the largest
// tile a 4x4 board can hold).  Any array-like of 16 numbers is accepted; the
// functions that return boards return a new Uint8Array(16) and never modify
// their input.
//
// API:
//   DIRECTIONS                      ["U", "D", "L", "R"] (the record letters)
//   applyMove(board, dir)        -> {board, moved, gained}   dir "U" | "D" | "L" | "R";
//                                   moved is false when dir changes nothing (SPEC 3.4),
//                                   gained the points of the move (SPEC 4.1)
//   moveInto(src, dst, dirCode)  -> gained; the fast path of verify.js: writes the moved
//                                   board into dst (a Uint8Array(16)); dirCode is the index
//                                   of the letter in DIRECTIONS
//   canMove(board)               -> true unless the game is over (SPEC 4.3)
//   maxTile(board)               -> the largest tile VALUE (0 on an empty board)
//   emptyCells(board)            -> indices of the empty cells, ascending (what spawns draw from)
//   isWon(board)                 -> a tile of 2048 or more (SPEC 4.2)
//   tileExponent(value)          -> k for the tile 2**k (0 for 0); throws RangeError otherwise
//   boardFromRows(rows)          -> exponents from 4 rows of 4 tile values (the JSON board form)
//   boardToRows(board)           -> 4 rows of 4 tile values

export const DIRECTIONS = Object.freeze(["U", "D", "L", "R"]);

export const WIN_EXPONENT = 11;

// RULES_LINES[code * 16 + line * 4 + j]: cell j of line `line` of direction `code`,
// read from the pushed edge (SPEC table 3.1).
const RULES_LINES = (function () {
  const cells = new Uint8Array(64);
  for (let p = 0; p < 4; p++) {
    for (let j = 0; j < 4; j++) {
      cells[0 * 16 + p * 4 + j] = j * 4 + p; // U: column p, top first
      cells[1 * 16 + p * 4 + j] = (3 - j) * 4 + p; // D: column p, bottom first
      cells[2 * 16 + p * 4 + j] = p * 4 + j; // L: row p, left first
      cells[3 * 16 + p * 4 + j] = p * 4 + (3 - j); // R: row p, right first
    }
  }
  return cells;
})();

function rulesDirectionCode(dir) {
  const code = DIRECTIONS.indexOf(dir);
  if (code < 0) {
    throw new RangeError("direction must be one of U, D, L, R");
  }
  return code;
}

function rulesCheckBoard(board) {
  if (board == null || board.length !== 16) {
    throw new RangeError("a board is 16 exponents");
  }
}

export function moveInto(src, dst, dirCode) {
  // slide_line of SPEC 3.2 on each of the 4 lines, written straight into dst.
  let gained = 0;
  const base = dirCode * 16;
  for (let p = 0; p < 4; p++) {
    const o = base + p * 4;
    let out = 0; // next output slot: cell RULES_LINES[o + out]
    let pending = 0; // a tile waiting for its partner (0 = none)
    for (let j = 0; j < 4; j++) {
      const e = src[RULES_LINES[o + j]];
      if (e === 0) continue;
      if (pending === e) {
        dst[RULES_LINES[o + out++]] = e + 1;
        gained += 2 ** (e + 1);
        pending = 0;
      } else {
        if (pending !== 0) dst[RULES_LINES[o + out++]] = pending;
        pending = e;
      }
    }
    if (pending !== 0) dst[RULES_LINES[o + out++]] = pending;
    while (out < 4) dst[RULES_LINES[o + out++]] = 0;
  }
  return gained;
}

export function applyMove(board, dir) {
  rulesCheckBoard(board);
  const src = Uint8Array.from(board);
  const next = new Uint8Array(16);
  const gained = moveInto(src, next, rulesDirectionCode(dir));
  let moved = false;
  for (let i = 0; i < 16; i++) {
    if (next[i] !== src[i]) {
      moved = true;
      break;
    }
  }
  return { board: next, moved, gained };
}

export function canMove(board) {
  for (let i = 0; i < 16; i++) {
    const e = board[i];
    if (e === 0) return true;
    if ((i & 3) !== 3 && board[i + 1] === e) return true;
    if (i < 12 && board[i + 4] === e) return true;
  }
  return false;
}

export function maxTile(board) {
  let top = 0;
  for (let i = 0; i < 16; i++) {
    if (board[i] > top) top = board[i];
  }
  return top === 0 ? 0 : 2 ** top;
}

export function isWon(board) {
  for (let i = 0; i < 16; i++) {
    if (board[i] >= WIN_EXPONENT) return true;
  }
  return false;
}

export function emptyCells(board) {
  const cells = [];
  for (let i = 0; i < 16; i++) {
    if (board[i] === 0) cells.push(i);
  }
  return cells;
}

export function tileExponent(value) {
  if (value === 0) return 0;
  for (let k = 1; k <= 17; k++) {
    if (value === 2 ** k) return k;
  }
  throw new RangeError("a tile is 0 or a power of two from 2 to 131072");
}

export function boardFromRows(rows) {
  if (!Array.isArray(rows) || rows.length !== 4) {
    throw new RangeError("a board is 4 rows of 4 cells");
  }
  const board = new Uint8Array(16);
  for (let r = 0; r < 4; r++) {
    if (!Array.isArray(rows[r]) || rows[r].length !== 4) {
      throw new RangeError("a board is 4 rows of 4 cells");
    }
    for (let c = 0; c < 4; c++) board[r * 4 + c] = tileExponent(rows[r][c]);
  }
  return board;
}

export function boardToRows(board) {
  const rows = [];
  for (let r = 0; r < 4; r++) {
    const row = [];
    for (let c = 0; c < 4; c++) {
      const e = board[r * 4 + c];
      row.push(e === 0 ? 0 : 2 ** e);
    }
    rows.push(row);
  }
  return rows;
}
