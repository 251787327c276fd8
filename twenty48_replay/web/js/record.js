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
//       problems: the same as reasons with codes and parameters (reasons.js; the codes
//       twenty48_replay/core/record.py gives, `verify --json`'s "error_code"), for a page to say
//       them in its language.
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
//   describeReason(v) how the reference shows a value in a message (Python repr style), as a
//                     reason (value.*), so it is translated with the message around it

import { canonicalBytes, CanonicalError } from "./canonical.js";
import { JsonBigInt, JsonError, JsonFloat, readJson, shortNumberReason } from "./json.js";
import { inField, reason, reasonText } from "./reasons.js";
import { seedReason } from "./rng.js";
import { codePointCount, codePointSlice, loneSurrogateAt } from "./text.js";

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
  constructor(why, field = null) {
    const problem = inField(field, why);
    super(reasonText(problem));
    this.name = "RecordProblem";
    this.problem = problem;
  }
}

// Throws the reason `code` (with `params`) in `field`.
function refuse(code, params = {}, field = null) {
  throw new RecordProblem(reason(code, params), field);
}

export function describeReason(value) {
  if (value instanceof JsonFloat) return reason("value.fraction", { number: value.value });
  // An integer beyond 2^53 keeps its digits as text: a JavaScript number cannot hold them.
  if (value instanceof JsonBigInt) {
    return value.long ? shortNumberReason(value.text) : reason("value.integer", { number: value.text });
  }
  if (value === true) return reason("value.true");
  if (value === false) return reason("value.false");
  if (value === null) return reason("value.null");
  if (typeof value === "string") {
    const shown = codePointCount(value) <= 20 ? value : codePointSlice(value, 0, 17) + "...";
    return reason("value.string", { text: shown });
  }
  if (Array.isArray(value)) return reason("value.array");
  if (value instanceof Map) return reason("value.object");
  if (typeof value === "number") return reason("value.integer", { number: value });
  return reason("text", { text: String(value) });
}


function recordInteger(value, field) {
  if (value instanceof JsonBigInt) {
    // The reference words an integer of up to 640 digits as itself, a longer one shortened.
    const shown = value.long ? describeReason(value) : value.text;
    refuse(value.text.startsWith("-") ? "record.negative" : "record.over_limit", { value: shown }, field);
  }
  if (typeof value !== "number") refuse("record.not_integer", { value: describeReason(value) }, field);
  if (value < 0) refuse("record.negative", { value }, field);
  if (value > RECORD_MAX_INTEGER) refuse("record.over_limit", { value }, field);
  return value;
}

function recordTile(value, field) {
  const number = recordInteger(value, field);
  if (!RECORD_TILES.has(number)) {
    refuse("record.not_tile", { value: number, max: 131072 }, field);
  }
  return number;
}

function recordGrid(value, field) {
  if (!Array.isArray(value) || value.length !== 4) refuse("record.not_rows", {}, field);
  return value.map((row, r) => {
    if (!Array.isArray(row) || row.length !== 4) {
      refuse("record.not_row", {}, `${field}[${r}]`);
    }
    return row.map((v, c) => recordTile(v, `${field}[${r}][${c}]`));
  });
}

function recordMoves(value) {
  if (typeof value !== "string") refuse("record.not_string", { value: describeReason(value) }, "moves");
  if (value.length > RECORD_MAX_MOVES) {
    const length = codePointCount(value);
    if (length > RECORD_MAX_MOVES) refuse("record.too_many_moves", { count: length, limit: RECORD_MAX_MOVES }, "moves");
  }
  if (!/^[UDLR]*$/.test(value)) {
    const points = Array.from(value);
    const position = points.findIndex((ch) => ch !== "U" && ch !== "D" && ch !== "L" && ch !== "R");
    refuse("record.move_letter", { letter: points[position], number: position + 1 }, "moves");
  }
  return value;
}

function recordCheckNesting(value, field) {
  const stack = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop();
    const children = Array.isArray(item) ? item : item instanceof Map ? [...item.values()] : null;
    if (children === null) continue;
    if (depth >= RECORD_MAX_NESTING) refuse("record.too_deep", { limit: RECORD_MAX_NESTING }, field);
    for (const child of children) {
      if (Array.isArray(child) || child instanceof Map) stack.push([child, depth + 1]);
    }
  }
}

function recordServerSeed(value, field) {
  if (typeof value !== "string" || !RECORD_HEX64.test(value)) {
    refuse("fair.not_hex64", {}, field);
  }
  return value;
}

function recordClientSeed(value, field) {
  if (typeof value !== "string") refuse("fair.not_string", {}, field);
  if (value.length === 0) refuse("fair.empty", {}, field);
  const length = codePointCount(value);
  if (length > 128) refuse("fair.too_long", { length, limit: 128 }, field);
  const lone = loneSurrogateAt(value);
  if (lone >= 0) refuse("fair.not_utf8_at", { character: lone + 1 }, field);
  return value;
}

function recordGameId(value, field) {
  if (typeof value === "number" || (value instanceof JsonBigInt && !value.long)) {
    if (typeof value !== "number" || value < 0 || value > RECORD_MAX_INTEGER) {
      // A JsonBigInt's digits as text: a JavaScript number cannot hold them.
      const shown = typeof value === "number" ? value : value.text;
      refuse("fair.game_id_range", { value: shown }, field);
    }
    return value;
  }
  if (typeof value === "string" && value.length > 0 && codePointCount(value) <= 128) {
    if (loneSurrogateAt(value) >= 0) refuse("fair.not_utf8", {}, field);
    return value;
  }
  refuse("fair.game_id", { limit: 128 }, field);
}

function recordTimestamp(value, field) {
  if (typeof value !== "string" || !RECORD_TIMESTAMP.test(value)) {
    refuse("fair.time", {}, field);
  }
  return value;
}

function recordFair(obj) {
  if (!(obj instanceof Map)) refuse("fair.not_object", {}, "fair");
  for (const key of obj.keys()) {
    if (!RECORD_FAIR_KEYS.includes(key)) refuse("fair.unknown_key", {}, `fair.${key}`);
  }
  for (const key of RECORD_FAIR_KEYS) {
    if (!obj.has(key)) refuse("record.missing", {}, `fair.${key}`);
  }
  const keyId = obj.get("key_id");
  if (typeof keyId !== "string" || !RECORD_KEY_ID.test(keyId)) refuse("fair.key_id", {}, "fair.key_id");
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
  if (!(data instanceof Map)) refuse("record.not_object", { value: describeReason(data) });
  for (const key of ["format", "version", "seed", "moves", "score"]) {
    if (!data.has(key)) refuse("record.missing", {}, key);
  }
  if (data.get("format") !== RECORD_FORMAT) {
    refuse("record.format", { value: describeReason(data.get("format")), expected: RECORD_FORMAT }, "format");
  }
  const version = data.get("version");
  if (typeof version !== "number" && !(version instanceof JsonBigInt)) {
    refuse("record.not_integer", { value: describeReason(version) }, "version");
  }
  if (version !== 1) refuse("record.version", { value: describeReason(version) }, "version");
  const seed = data.get("seed");
  if (typeof seed !== "string") refuse("record.not_string", { value: describeReason(seed) }, "seed");
  const seedIssue = seedReason(seed);
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
    if (maxTile === 0) refuse("record.zero_tile", {}, "max_tile");
    record.maxTile = maxTile;
  }
  if (data.has("final_board")) record.finalBoard = recordGrid(data.get("final_board"), "final_board");
  for (const [key, value] of data) {
    if (RECORD_CORE_KEYS.has(key)) continue;
    if (Object.prototype.hasOwnProperty.call(RECORD_METADATA, key)) {
      const expected = RECORD_METADATA[key];
      const ok = expected === "str" ? typeof value === "string" : typeof value === "boolean";
      if (!ok) refuse("record.wrong_type", { value: describeReason(value), type: expected }, key);
      record.metadata[key] = value;
    }
    recordCheckNesting(value, key);
  }
  if (data.has("fair") || data.has("signature")) {
    if (data.has("fair")) record.fair = recordFair(data.get("fair"));
    if (data.has("signature")) {
      const signature = data.get("signature");
      if (typeof signature !== "string" || !RECORD_SIGNATURE.test(signature)) {
        refuse("fair.signature_text", {}, "signature");
      }
      if (!data.has("fair")) refuse("fair.signature_alone", {}, "signature");
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
      if (typeof source !== "string") refuse("record.not_object", { value: reason("text", { text: "nothing" }) });
    }
    return { record: recordValidate(readJson(source)), errors: [], problems: [] };
  } catch (error) {
    if (error instanceof RecordProblem || error instanceof JsonError || error instanceof CanonicalError) {
      return { record: null, errors: [error.message], problems: [error.problem] };
    }
    if (error instanceof RangeError) {
      // A JavaScript engine out of stack or memory on hostile input: unreadable, never a crash.
      const problem = reason("json.refused", { problem: error.message });
      return { record: null, errors: [reasonText(problem)], problems: [problem] };
    }
    throw error;
  }
}
