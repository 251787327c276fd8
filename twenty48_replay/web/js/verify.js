// verify.js: verify a record (SPEC section 8, fair play 11.7) and keep every step.
//
// The replay runs synchronously (the spawn HMAC is pure JS, see rng.js for why) and stores
// every position as it goes: 16 bytes of board, the score and the spawn per step, so the
// timeline's at(i) is O(1) (a 20,000-move record needs about 0.5 MB).  Only the fair-play
// checks are asynchronous (WebCrypto), hence verifyRecord is async.
//
// API:
//   async verifyRecord(input, {trustedKey = null} = {}) -> Verdict
//       input: record text, its UTF-8 bytes, or a parsed object (see record.js parseRecord);
//       trustedKey: anything trusted_keys.js parseTrustedKeys takes (a key, a key file's text
//       or bytes, the well-known document; a key set read by key_sets.js), or null; an
//       unusable key throws TrustedKeyError before anything is read (a usage error, as
//       `verify --trust` exits 2).
//   Verdict = {
//       valid,       true | false | null (null: unreadable; then `error` says why)
//       error,       null, or the reason the record is unreadable (the CLI's "error" without
//                    its "FILE:INDEX: " prefix)
//       errorCode,   null, or the same reason as a code with parameters (the CLI's "error_code")
//       score, maxTile, moves, won, over,   replayed values at the last valid step
//                    (null when unreadable); moves = number of valid moves replayed
//       reasons,     [string...]: replay reasons, then the fair-play reasons; [] when valid
//       reasonCodes, the same reasons as codes with parameters (reasons.js, SPEC 8.8)
//       fair,        null for a self-seeded or unreadable record, else
//                    {status: "fair" | "unchecked" | "not fair", signature: "checked" |
//                    "unchecked", reasons: [the fair-play reasons only]}
//       invalidMove, null or the 1-based number of the first move that changes nothing
//       record,      the parsed record (record.js), null when unreadable
//       timeline,    null when unreadable, else a Timeline of the valid steps:
//                    .length (moves + 1), .at(i) (negative i counts from the end) ->
//                    {step, board (Uint8Array(16) of exponents, a copy), score, gained,
//                     move ("U" | "D" | "L" | "R", null at step 0), spawn ({cell, value},
//                     null at step 0), won, over};  .opening: the two opening spawns
//   }
//   verdictJson(verdict) -> the object `twenty48 verify --json` prints, without file and index:
//       {valid, score, max_tile, moves, won, over, reasons, fair, signature, reason_codes} or
//       {valid: null, error, error_code}
//   replayRecord(record) -> the replay alone: {timeline, score, maxTile, moves, won, over,
//       invalidMove, reason (a reason of reasons.js, or null)}

import { checkFair } from "./fair.js";
import { reason, reasonJson, reasonText } from "./reasons.js";
import { parseRecord } from "./record.js";
import { openingBoard, SpawnRng } from "./rng.js";
import { boardToRows, canMove, isWon, maxTile, moveInto } from "./rules.js";
import { parseTrustedKeys } from "./trusted_keys.js";

const VERIFY_LETTER_CODES = { U: 0, D: 1, L: 2, R: 3 };

export class Timeline {
  constructor(boards, scores, spawns, moves, opening, length) {
    this.boards = boards;
    this.scores = scores;
    this.spawns = spawns;
    this.moveLetters = moves;
    this.opening = opening;
    this.length = length;
  }

  at(index) {
    const i = index < 0 ? this.length + index : index;
    if (!Number.isInteger(i) || i < 0 || i >= this.length) {
      throw new RangeError(`step ${index} is outside 0..${this.length - 1}`);
    }
    const board = this.boards.slice(i * 16, i * 16 + 16);
    const code = this.spawns[i];
    return {
      step: i,
      board,
      score: this.scores[i],
      gained: i === 0 ? 0 : this.scores[i] - this.scores[i - 1],
      move: i === 0 ? null : this.moveLetters[i - 1],
      spawn: i === 0 ? null : { cell: code & 15, value: code & 16 ? 4 : 2 },
      won: isWon(board),
      over: !canMove(board),
    };
  }
}

export function replayRecord(record) {
  const moves = record.moves;
  const n = moves.length;
  const rng = new SpawnRng(record.seed);
  const { board: opening, first, second } = openingBoard(rng);
  // Grown on demand would be slower; one allocation of the largest size a record can need.
  const boards = new Uint8Array((n + 1) * 16);
  const scores = new Float64Array(n + 1);
  const spawns = new Uint8Array(n + 1);
  boards.set(opening, 0);
  let current = Uint8Array.from(opening);
  let next = new Uint8Array(16);
  const empties = new Uint8Array(16);
  let score = 0;
  let steps = 0;
  let nullMove = null;
  let invalidMove = null;
  for (let i = 1; i <= n; i++) {
    const letter = moves[i - 1];
    const gained = moveInto(current, next, VERIFY_LETTER_CODES[letter]);
    let count = 0;
    let changed = false;
    for (let c = 0; c < 16; c++) {
      const e = next[c];
      if (e !== current[c]) changed = true;
      if (e === 0) empties[count++] = c;
    }
    if (!changed) {
      nullMove = reason(canMove(current) ? "move.no_change" : "move.game_over", { number: i, direction: letter });
      invalidMove = i;
      break;
    }
    score += gained;
    const code = rng.spawnCode(i + 1, empties, count);
    next[code & 15] = code & 16 ? 2 : 1;
    boards.set(next, i * 16);
    scores[i] = score;
    spawns[i] = code;
    const swap = current;
    current = next;
    next = swap;
    steps = i;
  }
  const timeline = new Timeline(boards, scores, spawns, moves, [first, second], steps + 1);
  return {
    timeline,
    board: current,
    score,
    maxTile: maxTile(current),
    moves: steps,
    won: isWon(current),
    over: !canMove(current),
    invalidMove,
    reason: nullMove,
  };
}

function verifyUnreadable(error, errorCode) {
  return {
    valid: null,
    error,
    errorCode,
    score: null,
    maxTile: null,
    moves: null,
    won: null,
    over: null,
    reasons: [],
    reasonCodes: [],
    fair: null,
    invalidMove: null,
    record: null,
    timeline: null,
  };
}

export async function verifyRecord(input, { trustedKey = null } = {}) {
  const key = trustedKey === null || trustedKey === undefined ? null : parseTrustedKeys(trustedKey);
  const { record, errors, problems } = parseRecord(input);
  if (record === null) return verifyUnreadable(errors[0], problems[0]);
  const replay = replayRecord(record);
  const codes = [];
  if (replay.reason !== null) codes.push(replay.reason);
  if (record.score !== replay.score) codes.push(reason("claim.score", { claimed: record.score, replayed: replay.score }));
  if (record.maxTile !== null && record.maxTile !== replay.maxTile) {
    codes.push(reason("claim.max_tile", { claimed: record.maxTile, replayed: replay.maxTile }));
  }
  if (record.finalBoard !== null) {
    const replayed = boardToRows(replay.board).flat();
    const claimed = record.finalBoard.flat();
    const differ = [];
    for (let i = 0; i < 16; i++) if (claimed[i] !== replayed[i]) differ.push(i);
    if (differ.length) {
      const first = differ[0];
      codes.push(
        reason(differ.length > 1 ? "claim.final_board" : "claim.final_board_cell", {
          ...(differ.length > 1 ? { cells: differ.length } : {}),
          row: Math.floor(first / 4) + 1,
          column: (first % 4) + 1,
          claimed: claimed[first],
          replayed: replayed[first],
        }),
      );
    }
  }
  let fair = null;
  if (record.fair !== null) {
    fair = await checkFair(record, key);
    codes.push(...fair.codes);
  }
  const reasons = codes.map((code) => reasonText(code));
  return {
    valid: reasons.length === 0,
    error: null,
    errorCode: null,
    score: replay.score,
    maxTile: replay.maxTile,
    moves: replay.moves,
    won: replay.won,
    over: replay.over,
    reasons,
    reasonCodes: codes,
    fair,
    invalidMove: replay.invalidMove,
    record,
    timeline: replay.timeline,
  };
}

export function verdictJson(verdict) {
  if (verdict.valid === null) return { valid: null, error: verdict.error, error_code: reasonJson(verdict.errorCode) };
  return {
    valid: verdict.valid,
    score: verdict.score,
    max_tile: verdict.maxTile,
    moves: verdict.moves,
    won: verdict.won,
    over: verdict.over,
    reasons: verdict.reasons,
    fair: verdict.fair === null ? "self-seeded" : verdict.fair.status,
    signature: verdict.fair === null ? null : verdict.fair.signature,
    reason_codes: verdict.reasonCodes.map(reasonJson),
  };
}
