// play_witness.js: what the play page was shown, checked against the rules as each answer arrives
// (the browser's twenty48_replay/witness.py: the same checks, in the same order, in the
// same English words, so a lying server gets the same verdict from `play --server`).
//
// Shapes (an answer that is not an object, a missing field, a board that is not 4x4 tiles,
// a commitment that is not 64 lowercase hex) are WitnessUnusable: nothing in such an
// answer can be judged, the game cannot go on (the CLI's exit 2).  A broken rule is
// WitnessUnfair (exit 1): the opening is two tiles of 2 or 4 at score 0, move 0; after
// move n the board is the slide of the board before plus exactly one new 2 or 4 on a
// cell the slide left empty, the score rises by the points of the slide, max_tile, won
// and over are what the board says, the move number and letter are the ones sent; the
// reveal's server seed hashes to the commitment; and the signed record, replayed,
// equals everything shown (player, moves, every board and spawn, score) and passes
// verify.js with the server's key.  Every answer received is kept, in order, as the
// evidence (the token only as its SHA-256).
//
// API:
//   new Witness(server, player, clientSeed)
//   .received(request, sent, status, answer)     log one answer (api_client.js calls it)
//   .created(answer)           -> {id, token, commitment}
//   .opened(answer)            -> shown {board (exponents), score, moves}
//   .moved(n, letter, answer)  -> {shown, gained, finished, spawn}
//   .refused(n, letter, reason) -> WitnessUnfair (the server refused a move that changes the board)
//   await .revealed(answer)    -> the server seed (the answer to finishing, or the finished game)
//   await .checkRecord(text, trustedKey) -> the verdict of verify.js
//   .evidence(verdict)         -> the evidence document (twenty48-fair-evidence, version 1)
//   .savedShown() / .restoreShown(saved, id, commitment)   what was shown, across a reload
//   .caughtUp(view)            -> the public view after a reload or a lost answer: the position
//                                 last shown, or one valid move beyond it (else WitnessUnfair)
//   .verdict                   null, or the WitnessUnfair that stopped the game

import { commitmentOf } from "./fair.js";
import { JsonBigInt, JsonFloat } from "./json.js";
import { applyMove, boardFromRows, canMove, isWon, maxTile } from "./rules.js";
import { sha256, toHex } from "./sha256.js";
import { utf8Encode } from "./text.js";
import { verifyRecord } from "./verify.js";

export const WITNESS_FORMAT = "twenty48-fair-evidence";
const WITNESS_MAX_INTEGER = 9007199254740992;
const WITNESS_HEX64 = /^[0-9a-f]{64}$/;
const WITNESS_TOKEN = /^[!-~]{1,512}$/;
const WITNESS_QUOTE_LENGTH = 40;

export class WitnessUnfair extends Error {
  constructor(where, rule, move, evidence = null) {
    super(`${where} breaks the rules: ${rule}`);
    this.name = "WitnessUnfair";
    this.kind = "broken";
    this.move = move;
    this.evidence = evidence;
  }
}

export class WitnessUnusable extends Error {
  constructor(where, problem) {
    super(`${where} is unusable: ${problem}`);
    this.name = "WitnessUnusable";
    this.kind = "unusable";
  }
}

export function witnessQuote(value) {
  let text;
  try {
    text = JSON.stringify(value, (key, item) => (item instanceof JsonFloat || item instanceof JsonBigInt ? Number(item.text) : item));
  } catch (error) {
    text = typeof value;
  }
  if (text === undefined) text = String(value);
  const points = Array.from(text);
  return points.length <= WITNESS_QUOTE_LENGTH ? text : points.slice(0, WITNESS_QUOTE_LENGTH - 3).join("") + "...";
}

function witnessCell(cell) {
  return `row ${Math.floor(cell / 4) + 1} column ${(cell % 4) + 1}`;
}

function witnessTile(exponent) {
  return exponent === 0 ? 0 : 2 ** exponent;
}

function witnessSameBoard(a, b) {
  for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return false;
  return true;
}

class WitnessShape {
  constructor(answer, where) {
    this.where = where;
    if (answer === null || typeof answer !== "object" || Array.isArray(answer) || answer instanceof JsonFloat || answer instanceof JsonBigInt) {
      throw new WitnessUnusable(where, `it is ${witnessQuote(answer)}, not a JSON object`);
    }
    this.answer = answer;
  }

  fail(key, wanted) {
    return new WitnessUnusable(this.where, `field '${key}' is ${witnessQuote(this.answer[key])}, not ${wanted}`);
  }

  get(key) {
    if (!Object.prototype.hasOwnProperty.call(this.answer, key)) {
      throw new WitnessUnusable(this.where, `field '${key}' is missing`);
    }
    return this.answer[key];
  }

  integer(key, low = 0, high = WITNESS_MAX_INTEGER) {
    const value = this.get(key);
    if (typeof value !== "number" || !Number.isInteger(value) || value < low || value > high) {
      throw this.fail(key, `an integer from ${low} to ${high}`);
    }
    return value;
  }

  flag(key) {
    const value = this.get(key);
    if (typeof value !== "boolean") throw this.fail(key, "true or false");
    return value;
  }

  text(key, pattern, wanted) {
    const value = this.get(key);
    if (typeof value !== "string" || !pattern.test(value)) throw this.fail(key, wanted);
    return value;
  }

  hex64(key) {
    return this.text(key, WITNESS_HEX64, "64 lowercase hex characters");
  }

  position() {
    return [this.board(), this.integer("score"), this.integer("moves")];
  }

  board(key = "board") {
    const value = this.get(key);
    const wanted = "4 rows of 4 tiles (0 or a power of two from 2 to 131072)";
    const shaped =
      Array.isArray(value) &&
      value.length === 4 &&
      value.every((row) => Array.isArray(row) && row.length === 4 && row.every((cell) => typeof cell === "number" && Number.isInteger(cell)));
    if (!shaped) throw this.fail(key, wanted);
    try {
      return boardFromRows(value);
    } catch (error) {
      throw this.fail(key, wanted);
    }
  }
}

function witnessTokenDigest(token) {
  return typeof token === "string" ? "sha256:" + toHex(sha256(utf8Encode(token))) : token;
}

export class Witness {
  constructor(server, player, clientSeed) {
    this.server = server;
    this.player = player;
    this.clientSeed = clientSeed;
    this.gameId = null;
    this.commitment = null;
    this.serverSeed = null;
    this.exchanges = [];
    this.shown = [];
    this.verdict = null;
  }

  // ------------------------------------------------------------------ evidence

  received(request, sent, status, answer) {
    let kept = answer;
    if (answer && typeof answer === "object" && !Array.isArray(answer) && "token" in answer) {
      kept = { ...answer, token: witnessTokenDigest(answer.token) };
    }
    this.exchanges.push({ request, sent, status, answer: kept });
  }

  get letters() {
    return this.shown
      .slice(1)
      .map((shown) => shown.letter)
      .join("");
  }

  get last() {
    return this.shown[this.shown.length - 1];
  }

  evidence(verdict = null) {
    return {
      format: WITNESS_FORMAT,
      version: 1,
      server: this.server,
      game_id: this.gameId,
      player: this.player,
      client_seed: this.clientSeed,
      commitment: this.commitment,
      moves: this.letters,
      verdict,
      answers: this.exchanges.slice(),
    };
  }

  broken(where, rule, move = null) {
    const error = new WitnessUnfair(where, rule, move);
    error.evidence = this.evidence(error.message);
    this.verdict = error;
    return error;
  }

  // ------------------------------------------------------------------ the new game

  created(answer) {
    const shape = new WitnessShape(answer, "the server's answer to the new game");
    const commitment = shape.hex64("commitment");
    const id = shape.integer("id");
    const token = shape.text("token", WITNESS_TOKEN, "1 to 512 visible ASCII characters");
    this.gameId = id;
    this.commitment = commitment;
    return { id, token, commitment };
  }

  opened(answer) {
    const where = "the server's opening board";
    const shape = new WitnessShape(answer, where);
    const [board, score, moves] = shape.position();
    this.sameGame(shape, where, null);
    if (moves !== 0) throw this.broken(where, `it is numbered move ${moves}; a game opens at move 0`);
    if (score !== 0) throw this.broken(where, `its score is ${score}; a game opens at 0`);
    const tiles = Array.from(board).filter((e) => e !== 0);
    if (tiles.length !== 2) throw this.broken(where, `it holds ${tiles.length} tiles; a game opens with two`);
    const odd = tiles.filter((e) => e !== 1 && e !== 2);
    if (odd.length) throw this.broken(where, `it holds a tile of ${witnessTile(odd[0])}; opening tiles are 2 or 4`);
    const shown = { board, score: 0, moves: 0, letter: null, spawn: null };
    this.flags(shape, where, shown, null);
    this.shown = [shown];
    return shown;
  }

  sameGame(shape, where, move) {
    if (Object.prototype.hasOwnProperty.call(shape.answer, "id")) {
      const got = shape.integer("id");
      if (got !== this.gameId) throw this.broken(where, `it is about game ${got}, not game ${this.gameId}`, move);
    }
  }

  flags(shape, where, shown, move) {
    const top = maxTile(shown.board);
    const claimed = shape.integer("max_tile");
    if (claimed !== top) throw this.broken(where, `it says the largest tile is ${claimed}; the board's is ${top}`, move);
    const won = isWon(shown.board);
    if (shape.flag("won") !== won) {
      throw this.broken(
        where,
        won ? "it says the game is not won, but a tile is 2048 or more" : "it says the game is won, but no tile is 2048 or more",
        move,
      );
    }
    const over = !canMove(shown.board);
    if (shape.flag("over") !== over) {
      throw this.broken(
        where,
        over ? "it says the game goes on, but no move changes the board" : "it says the game is over, but the board can still move",
        move,
      );
    }
  }

  // ------------------------------------------------------------------ moves

  refused(n, letter, reason) {
    return this.broken(
      `the server's answer to move ${n} (${letter})`,
      `it refused the move (${String(reason).slice(0, 200)}), but the move changes the board`,
      n,
    );
  }

  moved(n, letter, answer) {
    const where = `the server's answer to move ${n} (${letter})`;
    const before = this.last;
    const shape = new WitnessShape(answer, where);
    const board = shape.board();
    const gotN = shape.integer("n");
    const gotMoves = shape.integer("moves");
    const score = shape.integer("score");
    const gained = shape.integer("gained");
    const move = shape.get("move");
    const spawnShape = new WitnessShape(shape.get("spawn"), `field 'spawn' of ${where}`);
    const spawnCell = spawnShape.integer("cell", 0, 15);
    const spawnValue = spawnShape.integer("value", 0, WITNESS_MAX_INTEGER);
    const finished = shape.flag("finished");
    this.sameGame(shape, where, n);
    if (gotN !== n || gotMoves !== n) {
      throw this.broken(where, `it numbers the move ${gotN !== n ? gotN : gotMoves}, not ${n} as sent`, n);
    }
    if (move !== letter) throw this.broken(where, `it names the move ${witnessQuote(move)}, not ${letter} as sent`, n);
    const slide = applyMove(before.board, letter);
    const { cell, value } = this.newTile(where, n, slide.board, board);
    if (spawnCell !== cell || spawnValue !== value) {
      throw this.broken(
        where,
        `its spawn field says ${spawnValue} at ${witnessCell(spawnCell)}, but the board's new tile is ${value} at ${witnessCell(cell)}`,
        n,
      );
    }
    if (gained !== slide.gained) throw this.broken(where, `it says the move gained ${gained} points; the slide gains ${slide.gained}`, n);
    const real = before.score + slide.gained;
    if (score !== real) {
      throw this.broken(
        where,
        `its score is ${score}; the score before (${before.score}) plus the points of the move (${slide.gained}) is ${real}`,
        n,
      );
    }
    const shown = { board, score, moves: n, letter, spawn: { cell, value } };
    this.flags(shape, where, shown, n);
    if (finished && canMove(board)) throw this.broken(where, "it ends the game, but the board can still move", n);
    this.shown.push(shown);
    return { shown, gained, finished, spawn: { cell, value } };
  }

  newTile(where, n, slid, board) {
    const changed = [];
    for (let c = 0; c < 16; c++) if (slid[c] !== board[c]) changed.push(c);
    if (changed.length === 0) throw this.broken(where, "its board has no new tile; every move adds one", n);
    const covered = changed.filter((c) => slid[c] !== 0);
    if (covered.length) {
      const c = covered[0];
      throw this.broken(
        where,
        `its board puts ${witnessTile(board[c])} on ${witnessCell(c)}, which holds ${witnessTile(slid[c])} after the slide; a new tile goes on an empty cell`,
        n,
      );
    }
    if (changed.length > 1) throw this.broken(where, `its board has ${changed.length} new tiles; every move adds exactly one`, n);
    const cell = changed[0];
    const value = witnessTile(board[cell]);
    if (value !== 2 && value !== 4) throw this.broken(where, `its new tile at ${witnessCell(cell)} is ${value}; a new tile is 2 or 4`, n);
    return { cell, value };
  }

  // ------------------------------------------------------------------ after a reload or a lost answer

  savedShown() {
    // What was shown, compact enough to keep in sessionStorage across a reload.
    return this.shown.map((p) => [Array.from(p.board), p.score, p.moves, p.letter, p.spawn ? [p.spawn.cell, p.spawn.value] : null]);
  }

  restoreShown(saved, gameId, commitment) {
    this.gameId = gameId;
    this.commitment = commitment;
    this.shown = saved.map(([board, score, moves, letter, spawn]) => ({
      board: Uint8Array.from(board),
      score,
      moves,
      letter,
      spawn: spawn ? { cell: spawn[0], value: spawn[1] } : null,
    }));
  }

  caughtUp(view) {
    // The server's public view after a reload or a failed move: the position last shown,
    // or one move beyond it whose answer was lost (its letter and new tile are deduced).
    const where = "the server's game after a lost answer";
    const shape = new WitnessShape(view, where);
    const [board, score, moves] = shape.position();
    const last = this.last;
    if (moves === last.moves && score === last.score && witnessSameBoard(board, last.board)) return last;
    if (moves === last.moves + 1) {
      for (const letter of ["U", "D", "L", "R"]) {
        const slide = applyMove(last.board, letter);
        if (!slide.moved || score !== last.score + slide.gained) continue;
        const changed = [];
        for (let c = 0; c < 16; c++) if (slide.board[c] !== board[c]) changed.push(c);
        if (changed.length === 1 && slide.board[changed[0]] === 0 && (board[changed[0]] === 1 || board[changed[0]] === 2)) {
          const shown = { board, score, moves, letter, spawn: { cell: changed[0], value: witnessTile(board[changed[0]]) } };
          this.flags(shape, where, shown, moves);
          this.shown.push(shown);
          return shown;
        }
      }
    }
    throw this.broken(
      where,
      `its game (${moves} moves, score ${score}) is not the game shown (${last.moves} moves, score ${last.score}) nor one move beyond it`,
    );
  }

  // ------------------------------------------------------------------ the end

  async revealed(answer) {
    const where = "the server's answer to finishing the game";
    const shape = new WitnessShape(answer, where);
    const [board, score, moves] = shape.position();
    const serverSeed = shape.hex64("server_seed");
    const commitment = shape.get("commitment");
    const clientSeed = shape.get("client_seed");
    this.sameGame(shape, where, null);
    if (commitment !== this.commitment) {
      throw this.broken(where, `it names the commitment ${witnessQuote(commitment)}, not ${this.commitment} sent before the first move`);
    }
    if (clientSeed !== this.clientSeed) throw this.broken(where, `it names the client seed ${witnessQuote(clientSeed)}, not ours`);
    const digest = await commitmentOf(serverSeed);
    if (digest !== this.commitment) {
      throw this.broken(where, `the SHA-256 of its server seed is ${digest}, not the commitment ${this.commitment}`);
    }
    const last = this.last;
    if (!witnessSameBoard(board, last.board) || score !== last.score || moves !== last.moves) {
      throw this.broken(
        where,
        `its game (${moves} moves, score ${score}) is not the game shown (${last.moves} moves, score ${last.score})`,
      );
    }
    this.serverSeed = serverSeed;
    return serverSeed;
  }

  async checkRecord(text, trustedKey) {
    const where = "the server's signed record";
    const verdict = await verifyRecord(text, { trustedKey });
    if (verdict.valid === null) throw new WitnessUnusable(where, verdict.error);
    const record = verdict.record;
    const info = record.fair;
    if (info === null) throw this.broken(where, "it has no fair object");
    const expected = [
      ["commitment", this.commitment, "the commitment sent before the first move"],
      ["client_seed", this.clientSeed, "our client seed"],
      ["game_id", this.gameId, "the id of the game played"],
    ];
    for (const [key, ours, name] of expected) {
      if (info[key] !== ours) throw this.broken(where, `its fair.${key} is ${witnessQuote(info[key])}, not ${name}`);
    }
    if (this.serverSeed !== null && info.server_seed !== this.serverSeed) {
      throw this.broken(where, "its server seed is not the one revealed when the game ended");
    }
    const player = Object.prototype.hasOwnProperty.call(record.metadata, "player") ? record.metadata.player : null;
    if (player !== this.player) {
      throw this.broken(where, `its player is ${witnessQuote(player)}, not ${witnessQuote(this.player)} who played`);
    }
    const letters = this.letters;
    if (record.moves !== letters) throw this.broken(where, witnessMovesDiffer(record.moves, letters));
    this.compareSteps(where, verdict.timeline);
    if (record.score !== this.last.score) {
      throw this.broken(where, `its score is ${record.score}, not ${this.last.score} as played`);
    }
    if (verdict.reasons.length) throw this.broken(where, verdict.reasons[0]);
    if (trustedKey !== null && (verdict.fair === null || verdict.fair.status !== "fair")) {
      throw this.broken(where, `its fair play is ${verdict.fair === null ? "self-seeded" : verdict.fair.status}`);
    }
    return verdict;
  }

  compareSteps(where, timeline) {
    const steps = Math.min(timeline.length, this.shown.length);
    for (let i = 0; i < steps; i++) {
      const step = timeline.at(i);
      const shown = this.shown[i];
      if (i === 0) {
        if (!witnessSameBoard(step.board, shown.board)) {
          throw this.broken(where, "its opening board is not the opening board shown", 0);
        }
        continue;
      }
      if (shown.spawn !== null && (step.spawn.cell !== shown.spawn.cell || step.spawn.value !== shown.spawn.value)) {
        throw this.broken(
          where,
          `its new tile after move ${i} is ${step.spawn.value} at ${witnessCell(step.spawn.cell)}; ` +
            `the server showed ${shown.spawn.value} at ${witnessCell(shown.spawn.cell)}`,
          i,
        );
      }
      if (!witnessSameBoard(step.board, shown.board) || step.score !== shown.score) {
        throw this.broken(where, `its board after move ${i} is not the board shown after move ${i}`, i);
      }
    }
    if (timeline.length !== this.shown.length) {
      throw this.broken(where, `it replays ${Math.max(timeline.length - 1, 0)} of the ${this.shown.length - 1} moves shown`);
    }
  }
}

function witnessMovesDiffer(record, played) {
  const n = Math.min(record.length, played.length);
  for (let i = 0; i < n; i++) {
    if (record[i] !== played[i]) return `its move ${i + 1} is ${record[i]}, but ${played[i]} was played`;
  }
  return `it holds ${record.length} moves, but ${played.length} were played`;
}
