// record.js: read one record, format version 1 (SPEC section 6, fair fields 11.4).
//
// parseRecord applies every reading rule of SPEC 6.4 (the complete list of what makes a
// record unreadable) in the reference's order, so that the first problem it reports is the
// one `twenty48 verify --json` reports, worded the same way (without the "FILE:INDEX: "
// prefix, which names an input this module does not know).
//
// API:
//   parseRecord(input) -> {record, errors}
//       input: the record's text (a string), its UTF-8 bytes (Uint8Array / ArrayBuffer), or an
//       already-parsed plain object (then serialised with JSON.stringify first, so lexical
//       rules such as "12.0 is not an integer" cannot apply to it).
//       errors: [] when readable, else [one message] such as "field 'score': 12.0 (a number
//       with a fraction or exponent) is not an integer"; record is then null.
//   record: {
//       seed, moves, score,                     string, string of U/D/L/R, integer
//       maxTile, finalBoard,                    null when absent; finalBoard as 4 rows of values
//       metadata,                               {player, started, finished, client, notes,
//                                                assisted}: only the keys present
//       fair,                                   null, or the fair object as a plain object
//                                                (keys commitment, server_seed, client_seed,
//                                                key_id, game_id, started, ended)
//       signature,                              null or 128 lowercase hex characters
//       json,                                   the whole record as read (a Map; canonical bytes)
//   }
//   describeValue(v)  how the reference shows a value in a message (Python repr style)

import { canonicalBytes, CanonicalError } from "./canonical.js";
import { JsonBigInt, JsonError, JsonFloat, readJson, shortNumber } from "./json.js";
import { seedProblem } from "./rng.js";
import { codePointCount, codePointSlice, loneSurrogateAt, pyFloatRepr, pyRepr } from "./text.js";

const RECORD_FORMAT = "twenty48-record";
const RECORD_MAX_MOVES = 1000000;
const RECORD_MAX_INTEGER = 9007199254740992;
const RECORD_MAX_NESTING = 100;
const RECORD_TILES = new Set([0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]);
const RECORD_CORE_KEYS = new Set(["format", "version", "seed", "moves", "score", "max_tile", "final_board"]);
const RECORD_METADATA = { player: "str", started: "str", finished: "str", client: "str", notes: "str", assisted: "bool" };
const RECORD_FAIR_KEYS = ["commitment", "server_seed", "client_seed", "key_id", "game_id", "started", "ended"];
const RECORD_HEX64 = /^[0-9a-f]{64}$/;
const RECORD_KEY_ID = /^[0-9a-f]{16}$/;
const RECORD_SIGNATURE = /^[0-9a-f]{128}$/;
// A real date and time (SPEC 11.4): the schema's $defs/time pattern, fair.py's TIMESTAMP_PATTERN.
export const RECORD_TIMESTAMP = new RegExp(
  "^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])" +
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))" +
    "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)" +
    "T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?" +
    "(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$",
);

class RecordProblem extends Error {
  constructor(reason, field = null) {
    super(field === null ? reason : `field '${field}': ${reason}`);
    this.name = "RecordProblem";
  }
}

export function describeValue(value) {
  if (value instanceof JsonFloat) {
    return `${pyFloatRepr(value.value)} (a number with a fraction or exponent)`;
  }
  if (value instanceof JsonBigInt) return value.long ? shortNumber(value.text) : value.text;
  if (value === true) return "true";
  if (value === false) return "false";
  if (value === null) return "null";
  if (typeof value === "string") {
    const shown = codePointCount(value) <= 20 ? value : codePointSlice(value, 0, 17) + "...";
    return `the string ${pyRepr(shown)}`;
  }
  if (Array.isArray(value)) return "an array";
  if (value instanceof Map) return "an object";
  return String(value);
}

function recordInteger(value, field) {
  if (value instanceof JsonBigInt) {
    const why = value.text.startsWith("-") ? "is negative" : "is over the limit of 2^53";
    throw new RecordProblem(`${describeValue(value)} ${why}`, field);
  }
  if (typeof value !== "number") throw new RecordProblem(`${describeValue(value)} is not an integer`, field);
  if (value < 0) throw new RecordProblem(`${value} is negative`, field);
  if (value > RECORD_MAX_INTEGER) throw new RecordProblem(`${value} is over the limit of 2^53`, field);
  return value;
}

function recordTile(value, field) {
  const number = recordInteger(value, field);
  if (!RECORD_TILES.has(number)) {
    throw new RecordProblem(`${number} is not 0 or a power of two from 2 to 131072`, field);
  }
  return number;
}

function recordGrid(value, field) {
  if (!Array.isArray(value) || value.length !== 4) throw new RecordProblem("must be an array of 4 rows", field);
  return value.map((row, r) => {
    if (!Array.isArray(row) || row.length !== 4) {
      throw new RecordProblem("must be an array of 4 tile values", `${field}[${r}]`);
    }
    return row.map((v, c) => recordTile(v, `${field}[${r}][${c}]`));
  });
}

function recordMoves(value) {
  if (typeof value !== "string") throw new RecordProblem(`${describeValue(value)} is not a string`, "moves");
  if (value.length > RECORD_MAX_MOVES) {
    const length = codePointCount(value);
    if (length > RECORD_MAX_MOVES) throw new RecordProblem(`${length} moves, the limit is 1,000,000`, "moves");
  }
  if (!/^[UDLR]*$/.test(value)) {
    const points = Array.from(value);
    const position = points.findIndex((ch) => ch !== "U" && ch !== "D" && ch !== "L" && ch !== "R");
    throw new RecordProblem(
      `letter ${pyRepr(points[position])} at move ${position + 1} is not U, D, L or R`,
      "moves",
    );
  }
  return value;
}

function recordCheckNesting(value, field) {
  const stack = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop();
    const children = Array.isArray(item) ? item : item instanceof Map ? [...item.values()] : null;
    if (children === null) continue;
    if (depth >= RECORD_MAX_NESTING) throw new RecordProblem(`nested deeper than ${RECORD_MAX_NESTING} levels`, field);
    for (const child of children) {
      if (Array.isArray(child) || child instanceof Map) stack.push([child, depth + 1]);
    }
  }
}

function recordServerSeed(value, field) {
  if (typeof value !== "string" || !RECORD_HEX64.test(value)) {
    throw new RecordProblem("must be 64 lowercase hex characters", field);
  }
  return value;
}

function recordClientSeed(value, field) {
  if (typeof value !== "string") throw new RecordProblem("must be a string", field);
  if (value.length === 0) throw new RecordProblem("is empty", field);
  const length = codePointCount(value);
  if (length > 128) throw new RecordProblem(`has ${length} characters, the limit is 128`, field);
  const lone = loneSurrogateAt(value);
  if (lone >= 0) throw new RecordProblem(`is not encodable as UTF-8 (character ${lone + 1})`, field);
  return value;
}

function recordGameId(value, field) {
  if (typeof value === "number" || (value instanceof JsonBigInt && !value.long)) {
    if (typeof value !== "number" || value < 0 || value > RECORD_MAX_INTEGER) {
      const shown = typeof value === "number" ? value : value.text;
      throw new RecordProblem(`${shown} is outside 0..2^53`, field);
    }
    return value;
  }
  if (typeof value === "string" && value.length > 0 && codePointCount(value) <= 128) {
    if (loneSurrogateAt(value) >= 0) throw new RecordProblem("is not encodable as UTF-8", field);
    return value;
  }
  throw new RecordProblem("must be an integer from 0 to 2^53 or a string of 1 to 128 characters", field);
}

function recordTimestamp(value, field) {
  if (typeof value !== "string" || !RECORD_TIMESTAMP.test(value)) {
    throw new RecordProblem("must be a real date and time in RFC 3339 form such as 2026-11-30T12:00:00Z", field);
  }
  return value;
}

function recordFair(obj) {
  if (!(obj instanceof Map)) throw new RecordProblem("must be an object", "fair");
  for (const key of obj.keys()) {
    if (!RECORD_FAIR_KEYS.includes(key)) throw new RecordProblem("is not a key of the fair object", `fair.${key}`);
  }
  for (const key of RECORD_FAIR_KEYS) {
    if (!obj.has(key)) throw new RecordProblem("is missing", `fair.${key}`);
  }
  const keyId = obj.get("key_id");
  if (typeof keyId !== "string" || !RECORD_KEY_ID.test(keyId)) {
    throw new RecordProblem("must be 16 lowercase hex characters", "fair.key_id");
  }
  return {
    commitment: recordServerSeed(obj.get("commitment"), "fair.commitment"),
    server_seed: recordServerSeed(obj.get("server_seed"), "fair.server_seed"),
    client_seed: recordClientSeed(obj.get("client_seed"), "fair.client_seed"),
    key_id: keyId,
    game_id: recordGameId(obj.get("game_id"), "fair.game_id"),
    started: recordTimestamp(obj.get("started"), "fair.started"),
    ended: recordTimestamp(obj.get("ended"), "fair.ended"),
  };
}

function recordValidate(data) {
  if (!(data instanceof Map)) throw new RecordProblem(`a record is a JSON object, not ${describeValue(data)}`);
  for (const key of ["format", "version", "seed", "moves", "score"]) {
    if (!data.has(key)) throw new RecordProblem("is missing", key);
  }
  if (data.get("format") !== RECORD_FORMAT) {
    throw new RecordProblem(`${describeValue(data.get("format"))} is not '${RECORD_FORMAT}'`, "format");
  }
  const version = data.get("version");
  if (typeof version !== "number" && !(version instanceof JsonBigInt)) {
    throw new RecordProblem(`${describeValue(version)} is not an integer`, "version");
  }
  if (version !== 1) {
    throw new RecordProblem(`version ${describeValue(version)} is not supported (this reader knows 1)`, "version");
  }
  const seed = data.get("seed");
  if (typeof seed !== "string") throw new RecordProblem(`${describeValue(seed)} is not a string`, "seed");
  const seedIssue = seedProblem(seed);
  if (seedIssue !== null) throw new RecordProblem(seedIssue, "seed");
  const record = {
    seed,
    moves: recordMoves(data.get("moves")),
    score: recordInteger(data.get("score"), "score"),
    maxTile: null,
    finalBoard: null,
    metadata: {},
    fair: null,
    signature: null,
    json: data,
  };
  if (data.has("max_tile")) {
    const maxTile = recordTile(data.get("max_tile"), "max_tile");
    if (maxTile === 0) throw new RecordProblem("0 is not a tile", "max_tile");
    record.maxTile = maxTile;
  }
  if (data.has("final_board")) record.finalBoard = recordGrid(data.get("final_board"), "final_board");
  for (const [key, value] of data) {
    if (RECORD_CORE_KEYS.has(key)) continue;
    if (Object.prototype.hasOwnProperty.call(RECORD_METADATA, key)) {
      const expected = RECORD_METADATA[key];
      const ok = expected === "str" ? typeof value === "string" : typeof value === "boolean";
      if (!ok) throw new RecordProblem(`${describeValue(value)} is not a ${expected}`, key);
      record.metadata[key] = value;
    }
    recordCheckNesting(value, key);
  }
  if (data.has("fair") || data.has("signature")) {
    if (data.has("fair")) record.fair = recordFair(data.get("fair"));
    if (data.has("signature")) {
      const signature = data.get("signature");
      if (typeof signature !== "string" || !RECORD_SIGNATURE.test(signature)) {
        throw new RecordProblem("must be 128 lowercase hex characters (64 bytes)", "signature");
      }
      if (!data.has("fair")) throw new RecordProblem("a signature needs a fair object", "signature");
      canonicalBytes(data);
      record.signature = signature;
    }
  }
  return record;
}

export function parseRecord(input) {
  try {
    let source = input;
    if (typeof input !== "string" && !(input instanceof Uint8Array) && !(input instanceof ArrayBuffer)) {
      source = JSON.stringify(input);
      if (typeof source !== "string") throw new RecordProblem("a record is a JSON object, not nothing");
    }
    return { record: recordValidate(readJson(source)), errors: [] };
  } catch (error) {
    if (error instanceof RecordProblem || error instanceof JsonError || error instanceof CanonicalError) {
      return { record: null, errors: [error.message] };
    }
    if (error instanceof RangeError) {
      // A JavaScript engine out of stack or memory on hostile input: unreadable, never a crash.
      return { record: null, errors: [`not JSON this reader accepts: ${error.message}`] };
    }
    throw error;
  }
}
