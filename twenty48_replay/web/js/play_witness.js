// play_witness.js: what the play page was shown, checked against the rules as each answer arrives
// (the browser's twenty48_replay/fairplay/witness.py: the same checks, in the same order, in the
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
import { reason, reasonJson, reasonTemplates, reasonText } from "./reasons.js";
import { applyMove, boardFromRows, canMove, isWon, maxTile } from "./rules.js";
import { sha256, toHex } from "./sha256.js";
import { utf8Encode } from "./text.js";
import { verifyRecord } from "./verify.js";
import { WITNESS_TEMPLATES } from "./witness_templates.js";

reasonTemplates(WITNESS_TEMPLATES);

export const WITNESS_FORMAT = "twenty48-fair-evidence";
const WITNESS_MAX_INTEGER = 9007199254740992;
const WITNESS_HEX64 = /^[0-9a-f]{64}$/;
const WITNESS_TOKEN = /^[!-~]{1,512}$/;
const WITNESS_QUOTE_LENGTH = 40;

export class WitnessUnfair extends Error {
  constructor(where, rule, move, evidence = null) {
    const code = reason("witness.broken", { where, rule });
    super(reasonText(code));
    this.code = code;
    this.name = "WitnessUnfair";
    this.kind = "broken";
    this.move = move;
    this.evidence = evidence;
  }
}

export class WitnessUnusable extends Error {
  constructor(where, problem) {
    const code = reason("witness.unusable", { where, problem });
    super(reasonText(code));
    this.code = code;
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
  return reason("witness.cell", { row: Math.floor(cell / 4) + 1, column: (cell % 4) + 1 });
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
      throw new WitnessUnusable(where, reason("witness.shape.not_object", { value: witnessQuote(answer) }));
    }
    this.answer = answer;
  }

  fail(key, wanted) {
    return new WitnessUnusable(this.where, reason("witness.shape.field", { field: key, value: witnessQuote(this.answer[key]), wanted }));
  }

  get(key) {
    if (!Object.prototype.hasOwnProperty.call(this.answer, key)) {
      throw new WitnessUnusable(this.where, reason("witness.shape.missing", { field: key }));
    }
    return this.answer[key];
  }

  integer(key, low = 0, high = WITNESS_MAX_INTEGER) {
    const value = this.get(key);
    if (typeof value !== "number" || !Number.isInteger(value) || value < low || value > high) {
      throw this.fail(key, reason("witness.shape.integer", { low, high }));
    }
    return value;
  }

  flag(key) {
    const value = this.get(key);
    if (typeof value !== "boolean") throw this.fail(key, reason("witness.shape.flag"));
    return value;
  }

  text(key, pattern, wanted) {
    const value = this.get(key);
    if (typeof value !== "string" || !pattern.test(value)) throw this.fail(key, wanted);
    return value;
  }

  hex64(key) {
    return this.text(key, WITNESS_HEX64, reason("witness.shape.hex64"));
  }

  position() {
    return [this.board(), this.integer("score"), this.integer("moves")];
  }

  board(key = "board") {
    const value = this.get(key);
    const wanted = reason("witness.shape.board");
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

  evidence(verdict = null, verdictCode = null) {
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
      verdict_code: verdictCode === null ? null : reasonJson(verdictCode),
      answers: this.exchanges.slice(),
    };
  }

  broken(where, rule, move = null) {
    const error = new WitnessUnfair(where, rule, move);
    error.evidence = this.evidence(error.message, error.code);
    this.verdict = error;
    return error;
  }

  // ------------------------------------------------------------------ the new game

  created(answer) {
    const shape = new WitnessShape(answer, reason("witness.where.new_game"));
    const commitment = shape.hex64("commitment");
    const id = shape.integer("id");
    const token = shape.text("token", WITNESS_TOKEN, reason("witness.shape.token", { limit: 512 }));
    this.gameId = id;
    this.commitment = commitment;
    return { id, token, commitment };
  }

  opened(answer) {
    const where = reason("witness.where.opening");
    const shape = new WitnessShape(answer, where);
    const [board, score, moves] = shape.position();
    this.sameGame(shape, where, null);
    if (moves !== 0) throw this.broken(where, reason("witness.opening.number", { got: moves }));
    if (score !== 0) throw this.broken(where, reason("witness.opening.score", { got: score }));
    const tiles = Array.from(board).filter((e) => e !== 0);
    if (tiles.length !== 2) throw this.broken(where, reason("witness.opening.tiles", { count: tiles.length }));
    const odd = tiles.filter((e) => e !== 1 && e !== 2);
    if (odd.length) throw this.broken(where, reason("witness.opening.tile_value", { value: witnessTile(odd[0]) }));
    const shown = { board, score: 0, moves: 0, letter: null, spawn: null };
    this.flags(shape, where, shown, null);
    this.shown = [shown];
    return shown;
  }

  sameGame(shape, where, move) {
    if (Object.prototype.hasOwnProperty.call(shape.answer, "id")) {
      const got = shape.integer("id");
      if (got !== this.gameId) throw this.broken(where, reason("witness.game", { got, id: this.gameId }), move);
    }
  }

  flags(shape, where, shown, move) {
    const top = maxTile(shown.board);
    const claimed = shape.integer("max_tile");
    if (claimed !== top) throw this.broken(where, reason("witness.max_tile", { got: claimed, real: top }), move);
    const won = isWon(shown.board);
    if (shape.flag("won") !== won) {
      throw this.broken(
        where,
        reason(won ? "witness.not_won" : "witness.won"),
        move,
      );
    }
    const over = !canMove(shown.board);
    if (shape.flag("over") !== over) {
      throw this.broken(
        where,
        reason(over ? "witness.not_over" : "witness.over"),
        move,
      );
    }
  }

  // ------------------------------------------------------------------ moves

  refused(n, letter, why) {
    return this.broken(
      reason("witness.where.move", { n, letter }),
      reason("witness.move.refused", { reason: String(why).slice(0, 200) }),
      n,
    );
  }

  moved(n, letter, answer) {
    const where = reason("witness.where.move", { n, letter });
    const before = this.last;
    const shape = new WitnessShape(answer, where);
    const board = shape.board();
    const gotN = shape.integer("n");
    const gotMoves = shape.integer("moves");
    const score = shape.integer("score");
    const gained = shape.integer("gained");
    const move = shape.get("move");
    const spawnShape = new WitnessShape(shape.get("spawn"), reason("witness.where.spawn", { where }));
    const spawnCell = spawnShape.integer("cell", 0, 15);
    const spawnValue = spawnShape.integer("value", 0, WITNESS_MAX_INTEGER);
    const finished = shape.flag("finished");
    this.sameGame(shape, where, n);
    if (gotN !== n || gotMoves !== n) {
      throw this.broken(where, reason("witness.move.number", { got: gotN !== n ? gotN : gotMoves, n }), n);
    }
    if (move !== letter) throw this.broken(where, reason("witness.move.letter", { got: witnessQuote(move), letter }), n);
    const slide = applyMove(before.board, letter);
    const { cell, value } = this.newTile(where, n, slide.board, board);
    if (spawnCell !== cell || spawnValue !== value) {
      throw this.broken(
        where,
        reason("witness.move.spawn_field", { got: spawnValue, got_cell: witnessCell(spawnCell), value, cell: witnessCell(cell) }),
        n,
      );
    }
    if (gained !== slide.gained) throw this.broken(where, reason("witness.move.gained", { got: gained, real: slide.gained }), n);
    const real = before.score + slide.gained;
    if (score !== real) {
      throw this.broken(
        where,
        reason("witness.move.score", { got: score, before: before.score, gained: slide.gained, real }),
        n,
      );
    }
    const shown = { board, score, moves: n, letter, spawn: { cell, value } };
    this.flags(shape, where, shown, n);
    if (finished && canMove(board)) throw this.broken(where, reason("witness.move.finished"), n);
    this.shown.push(shown);
    return { shown, gained, finished, spawn: { cell, value } };
  }

  newTile(where, n, slid, board) {
    const changed = [];
    for (let c = 0; c < 16; c++) if (slid[c] !== board[c]) changed.push(c);
    if (changed.length === 0) throw this.broken(where, reason("witness.move.no_tile"), n);
    const covered = changed.filter((c) => slid[c] !== 0);
    if (covered.length) {
      const c = covered[0];
      throw this.broken(
        where,
        reason("witness.move.covered", { value: witnessTile(board[c]), cell: witnessCell(c), held: witnessTile(slid[c]) }),
        n,
      );
    }
    if (changed.length > 1) throw this.broken(where, reason("witness.move.tiles", { count: changed.length }), n);
    const cell = changed[0];
    const value = witnessTile(board[cell]);
    if (value !== 2 && value !== 4) throw this.broken(where, reason("witness.move.tile_value", { value, cell: witnessCell(cell) }), n);
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
    const where = reason("witness.where.lost_answer");
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
      reason("witness.caught_up", { moves, score, shown_moves: last.moves, shown_score: last.score }),
    );
  }

  // ------------------------------------------------------------------ the end

  async revealed(answer) {
    const where = reason("witness.where.reveal");
    const shape = new WitnessShape(answer, where);
    const [board, score, moves] = shape.position();
    const serverSeed = shape.hex64("server_seed");
    const commitment = shape.get("commitment");
    const clientSeed = shape.get("client_seed");
    this.sameGame(shape, where, null);
    if (commitment !== this.commitment) {
      throw this.broken(where, reason("witness.reveal.commitment", { got: witnessQuote(commitment), commitment: this.commitment }));
    }
    if (clientSeed !== this.clientSeed) throw this.broken(where, reason("witness.reveal.client_seed", { got: witnessQuote(clientSeed) }));
    const digest = await commitmentOf(serverSeed);
    if (digest !== this.commitment) {
      throw this.broken(where, reason("witness.reveal.server_seed", { digest, commitment: this.commitment }));
    }
    const last = this.last;
    if (!witnessSameBoard(board, last.board) || score !== last.score || moves !== last.moves) {
      throw this.broken(
        where,
        reason("witness.reveal.game", { moves, score, shown_moves: last.moves, shown_score: last.score }),
      );
    }
    this.serverSeed = serverSeed;
    return serverSeed;
  }

  async checkRecord(text, trustedKey) {
    const where = reason("witness.where.record");
    const verdict = await verifyRecord(text, { trustedKey });
    if (verdict.valid === null) throw new WitnessUnusable(where, reason("text", { text: verdict.error }));
    const record = verdict.record;
    const info = record.fair;
    if (info === null) throw this.broken(where, reason("witness.record.no_fair"));
    const expected = [
      ["commitment", this.commitment, reason("witness.record.our_commitment")],
      ["client_seed", this.clientSeed, reason("witness.record.our_client_seed")],
      ["game_id", this.gameId, reason("witness.record.our_game_id")],
    ];
    for (const [key, ours, name] of expected) {
      if (info[key] !== ours) throw this.broken(where, reason("witness.record.fair_field", { key, got: witnessQuote(info[key]), name }));
    }
    if (this.serverSeed !== null && info.server_seed !== this.serverSeed) {
      throw this.broken(where, reason("witness.record.server_seed"));
    }
    const player = Object.prototype.hasOwnProperty.call(record.metadata, "player") ? record.metadata.player : null;
    if (player !== this.player) {
      throw this.broken(where, reason("witness.record.player", { got: witnessQuote(player), player: witnessQuote(this.player) }));
    }
    const letters = this.letters;
    if (record.moves !== letters) throw this.broken(where, witnessMovesDiffer(record.moves, letters));
    this.compareSteps(where, verdict.timeline);
    if (record.score !== this.last.score) {
      throw this.broken(where, reason("witness.record.score", { got: record.score, score: this.last.score }));
    }
    if (verdict.reasonCodes.length) throw this.broken(where, verdict.reasonCodes[0]);
    if (trustedKey !== null && (verdict.fair === null || verdict.fair.status !== "fair")) {
      throw this.broken(where, reason("witness.record.fair", { status: verdict.fair === null ? "self-seeded" : verdict.fair.status }));
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
          throw this.broken(where, reason("witness.record.opening"), 0);
        }
        continue;
      }
      if (shown.spawn !== null && (step.spawn.cell !== shown.spawn.cell || step.spawn.value !== shown.spawn.value)) {
        throw this.broken(
          where,
          reason("witness.record.spawn", {
            n: i,
            value: step.spawn.value,
            cell: witnessCell(step.spawn.cell),
            shown_value: shown.spawn.value,
            shown_cell: witnessCell(shown.spawn.cell),
          }),
          i,
        );
      }
      if (!witnessSameBoard(step.board, shown.board) || step.score !== shown.score) {
        throw this.broken(where, reason("witness.record.board", { n: i }), i);
      }
    }
    if (timeline.length !== this.shown.length) {
      throw this.broken(where, reason("witness.record.steps", { count: Math.max(timeline.length - 1, 0), moves: this.shown.length - 1 }));
    }
  }
}

function witnessMovesDiffer(record, played) {
  const n = Math.min(record.length, played.length);
  for (let i = 0; i < n; i++) {
    if (record[i] !== played[i]) return reason("witness.record.move", { n: i + 1, got: record[i], real: played[i] });
  }
  return reason("witness.record.moves", { count: record.length, played: played.length });
}
