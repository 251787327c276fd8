// json.js: the strict JSON reader of SPEC sections 6.3 and 7, for one record.
//
// JSON.parse cannot be used: it keeps the last of two duplicate keys, rounds
// 9007199254740993 to 2^53, cannot tell 12.0 from 12, and puts keys that look like
// integers first.  This reader follows RFC 8259 and the reference (Python's json module
// with the hooks of twenty48_replay/core/record.py) step for step, so it accepts and refuses
// the same texts, and its messages name the same problem at the same line and column.
//
// Values it returns:
//   null, true, false, strings (a lone surrogate from an escape is kept as it is),
//   integers within +-2^53 as numbers, other integers as JsonBigInt (exact digits),
//   numbers with a fraction or an exponent as JsonFloat (the nearest double),
//   arrays as Array, objects as Map (insertion order, any key, "__proto__" included).
//
// API:
//   MAX_INPUT_BYTES = 16 MiB, MAX_VALUES = 1,000,000
//   class JsonError(problem)         one reason, worded as the reference words it: .problem is
//                                    the reason as a code with parameters (reasons.js, SPEC
//                                    8.8; the codes of twenty48_replay/core/record.py), .message
//                                    its English text
//   class JsonFloat {value, text}    class JsonBigInt {text, long}
//   readJson(input, maxDepth = 994)  input: a string, or a Uint8Array / ArrayBuffer of UTF-8;
//                                    one BOM at the very start is skipped; throws JsonError
//                                    (json.too_deep past maxDepth levels of arrays and objects:
//                                    a record's parser goes as deep as the reference's, a key
//                                    document's 100, SPEC 11.6)
//   countValues(text)                the reference's count of JSON values (SPEC 7)
//   shortNumberReason(text)          a long number as the reference shows it in messages, as a
//                                    reason (value.digits / value.long_digits)

import { reason, reasonText } from "./reasons.js";
import { utf8Length } from "./text.js";

export const MAX_INPUT_BYTES = 16 * 1024 * 1024;
export const MAX_VALUES = 1000000;
// The reference parser recurses and gives up near Python's recursion limit (about 995 levels).
const JSON_MAX_DEPTH = 994;
const JSON_INT_DIGITS = 640;
const JSON_TWO53 = 9007199254740992n;

export class JsonError extends Error {
  constructor(problem) {
    super(reasonText(problem));
    this.name = "JsonError";
    this.problem = problem;
  }
}

export class JsonFloat {
  constructor(value, text) {
    this.value = value;
    this.text = text;
  }
}

export class JsonBigInt {
  constructor(text) {
    this.text = text;
    // Over 640 characters the reference keeps the digits as text and shortens them in messages.
    this.long = text.length > JSON_INT_DIGITS;
  }
}

export function shortNumberReason(text) {
  if (text.length <= 24) return reason("value.digits", { digits: text });
  return reason("value.long_digits", { head: text.slice(0, 10), tail: text.slice(-10), length: text.length });
}

// ---------------------------------------------------------------- counting values

export function countValues(text) {
  // 1 + commas + "[" + "{" over the raw text settles the usual case; only beyond the limit
  // are strings blanked and empty containers subtracted, as the reference does.
  let quick = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44 || c === 91 || c === 123) quick++;
  }
  if (quick <= MAX_VALUES) return quick;
  let count = 1;
  let last = 0; // last character of the skeleton (strings become "0", whitespace goes)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13 || c === 10) continue;
    if (c === 34) {
      i++;
      while (i < text.length) {
        const d = text.charCodeAt(i);
        if (d === 34) break;
        if (d === 92) i++;
        i++;
      }
      last = 48;
      continue;
    }
    if (c === 44 || c === 91 || c === 123) count++;
    else if ((c === 93 && last === 91) || (c === 125 && last === 123)) count--;
    last = c;
  }
  return count;
}

// ---------------------------------------------------------------- bytes

function jsonUtf8ErrorAt(bytes, start) {
  // Index of the lead byte of the first ill-formed sequence (what Python reports).
  let i = start;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    const second = bytes[i + 1];
    if (second === undefined || second < low || second > high) return i;
    for (let j = 2; j <= need; j++) {
      const c = bytes[i + j];
      if (c === undefined || c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

function jsonDecodeBytes(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  if (bytes.length > MAX_INPUT_BYTES) {
    throw new JsonError(reason("input.too_large", { size: bytes.length, limit: MAX_INPUT_BYTES }));
  }
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const lossy = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const values = countValues(lossy);
  if (values > MAX_VALUES) {
    throw new JsonError(reason("input.too_many_values", { count: values, limit: MAX_VALUES }));
  }
  const start = bom ? 3 : 0;
  const bad = jsonUtf8ErrorAt(bytes, start);
  if (bad >= 0) throw new JsonError(reason("input.not_utf8", { byte: bad - start + 1 }));
  return bom ? lossy.slice(1) : lossy;
}

function jsonPrepareText(text) {
  const size = utf8Length(text);
  if (size > MAX_INPUT_BYTES) {
    throw new JsonError(reason("input.too_large", { size, limit: MAX_INPUT_BYTES }));
  }
  const values = countValues(text);
  if (values > MAX_VALUES) {
    throw new JsonError(reason("input.too_many_values", { count: values, limit: MAX_VALUES }));
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

// ---------------------------------------------------------------- parsing

// A syntax error: the code of the JSON parser's words (Python's json module's, SPEC 8.8),
// or a reason of its own, at a position.
class JsonSyntax {
  constructor(problem, pos) {
    this.problem = typeof problem === "string" ? reason(problem) : problem;
    this.pos = pos;
  }
}

function jsonIsSpace(c) {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

const JSON_SPECIAL = /["\\\x00-\x1f]/g;
const JSON_ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const JSON_ZERO = /^-?[0.]*(?:[eE].*)?$/s;

class JsonParser {
  constructor(text, maxDepth) {
    this.s = text;
    this.n = text.length;
    this.depth = 0;
    this.max = maxDepth;
  }

  space(i) {
    const s = this.s;
    while (i < this.n && jsonIsSpace(s.charCodeAt(i))) i++;
    return i;
  }

  // Returns [value, next index]; throws JsonSyntax / JsonError; "stop" = no value here.
  value(i) {
    const s = this.s;
    if (i >= this.n) throw new JsonSyntax("json.expecting_value", i);
    const c = s[i];
    switch (c) {
      case '"':
        return this.string(i + 1);
      case "{":
      case "[":
        if (++this.depth > this.max) {
          throw new JsonError(reason("json.too_deep"));
        }
        try {
          return c === "{" ? this.object(i + 1) : this.array(i + 1);
        } finally {
          this.depth--;
        }
      case "n":
        if (i + 3 < this.n && s.startsWith("ull", i + 1)) return [null, i + 4];
        break;
      case "t":
        if (i + 3 < this.n && s.startsWith("rue", i + 1)) return [true, i + 4];
        break;
      case "f":
        if (i + 4 < this.n && s.startsWith("alse", i + 1)) return [false, i + 5];
        break;
      case "N":
        if (i + 2 < this.n && s.startsWith("aN", i + 1)) throw new JsonError(reason("json.constant", { name: "NaN" }));
        break;
      case "I":
        if (i + 7 < this.n && s.startsWith("nfinity", i + 1)) {
          throw new JsonError(reason("json.constant", { name: "Infinity" }));
        }
        break;
      case "-":
        if (i + 8 < this.n && s.startsWith("Infinity", i + 1)) {
          throw new JsonError(reason("json.constant", { name: "-Infinity" }));
        }
        break;
      default:
        break;
    }
    return this.number(i);
  }

  number(start) {
    const s = this.s;
    const last = this.n - 1;
    let i = start;
    const digit = (k) => {
      const d = s.charCodeAt(k);
      return d >= 48 && d <= 57;
    };
    if (s[i] === "-") {
      i++;
      if (i > last) throw new JsonSyntax("json.expecting_value", start);
    }
    const first = s.charCodeAt(i);
    if (first >= 49 && first <= 57) {
      i++;
      while (i <= last && digit(i)) i++;
    } else if (first === 48) i++;
    else throw new JsonSyntax("json.expecting_value", start);
    let isFloat = false;
    if (i < last && s[i] === "." && digit(i + 1)) {
      isFloat = true;
      i += 2;
      while (i <= last && digit(i)) i++;
    }
    if (i < last && (s[i] === "e" || s[i] === "E")) {
      const eStart = i;
      i++;
      if (i < last && (s[i] === "-" || s[i] === "+")) i++;
      while (i <= last && digit(i)) i++;
      if (digit(i - 1)) isFloat = true;
      else i = eStart;
    }
    const text = s.slice(start, i);
    if (isFloat) {
      const value = Number(text);
      if (!Number.isFinite(value)) {
        throw new JsonError(reason("json.number_too_large", { number: shortNumberReason(text) }));
      }
      if (value === 0 && !JSON_ZERO.test(text)) {
        throw new JsonError(reason("json.number_too_small", { number: shortNumberReason(text) }));
      }
      return [new JsonFloat(value, text), i];
    }
    const size = text.charCodeAt(0) === 45 ? text.length - 1 : text.length;
    if (size <= 15) return [Number(text) || 0, i];
    if (text.length <= JSON_INT_DIGITS) {
      const big = BigInt(text);
      if (big <= JSON_TWO53 && big >= -JSON_TWO53) return [Number(big), i];
    }
    return [new JsonBigInt(text), i];
  }

  string(i) {
    const s = this.s;
    const begin = i - 1;
    let out = "";
    for (;;) {
      JSON_SPECIAL.lastIndex = i;
      const found = JSON_SPECIAL.exec(s);
      if (found === null) throw new JsonSyntax("json.unterminated_string", begin);
      const at = found.index;
      const c = s[at];
      if (c !== '"' && c !== "\\") throw new JsonSyntax("json.control_character", at);
      out += s.slice(i, at);
      if (c === '"') return [out, at + 1];
      const next = at + 1;
      if (next >= this.n) throw new JsonSyntax("json.unterminated_string", begin);
      const e = s[next];
      if (e !== "u") {
        const mapped = JSON_ESCAPES[e];
        if (mapped === undefined || !Object.prototype.hasOwnProperty.call(JSON_ESCAPES, e)) {
          throw new JsonSyntax("json.bad_escape", at);
        }
        out += mapped;
        i = next + 1;
        continue;
      }
      let end = next + 1 + 4;
      if (end >= this.n) throw new JsonSyntax("json.bad_unicode_escape", next);
      let code = this.hex4(next + 1, next);
      if (code >= 0xd800 && code <= 0xdbff && end + 6 < this.n && s[end] === "\\" && s[end + 1] === "u") {
        const low = this.hex4(end + 2, end + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out += String.fromCharCode(code, low);
          code = -1;
          end += 6;
        }
      }
      if (code >= 0) out += String.fromCharCode(code);
      i = end;
    }
  }

  hex4(i, errorAt) {
    const part = this.s.slice(i, i + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(part)) throw new JsonSyntax("json.bad_unicode_escape", errorAt);
    return parseInt(part, 16);
  }

  object(i) {
    const s = this.s;
    const map = new Map();
    let duplicate = null;
    i = this.space(i);
    if (i >= this.n || s[i] !== "}") {
      for (;;) {
        if (i >= this.n || s[i] !== '"') {
          throw new JsonSyntax("json.expecting_name", i);
        }
        const [key, afterKey] = this.string(i + 1);
        i = this.space(afterKey);
        if (i >= this.n || s[i] !== ":") throw new JsonSyntax("json.expecting_colon", i);
        i = this.space(i + 1);
        const [value, afterValue] = this.value(i);
        if (duplicate === null && map.has(key)) duplicate = key;
        if (duplicate === null) map.set(key, value);
        i = this.space(afterValue);
        if (i < this.n && s[i] === "}") break;
        if (i >= this.n || s[i] !== ",") throw new JsonSyntax("json.expecting_comma", i);
        i = this.space(i + 1);
      }
    }
    if (duplicate !== null) throw new JsonError(reason("json.duplicate_key", { key: duplicate }));
    return [map, i + 1];
  }

  array(i) {
    const s = this.s;
    const items = [];
    i = this.space(i);
    if (i >= this.n || s[i] !== "]") {
      for (;;) {
        const [value, after] = this.value(i);
        items.push(value);
        i = this.space(after);
        if (i < this.n && s[i] === "]") break;
        if (i >= this.n || s[i] !== ",") throw new JsonSyntax("json.expecting_comma", i);
        i = this.space(i + 1);
      }
    }
    return [items, i + 1];
  }
}

function jsonLocate(text, pos) {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < pos; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < pos; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < pos) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    column++;
  }
  return [line, column];
}

export function readJson(input, maxDepth = JSON_MAX_DEPTH) {
  let text;
  if (typeof input === "string") text = jsonPrepareText(input);
  else if (input instanceof Uint8Array || input instanceof ArrayBuffer) text = jsonDecodeBytes(input);
  else throw new TypeError("readJson takes a string or UTF-8 bytes");
  try {
    if (text.charCodeAt(0) === 0xfeff) {
      throw new JsonSyntax(reason("text", { text: "Unexpected UTF-8 BOM (decode using utf-8-sig)" }), 0);
    }
    const parser = new JsonParser(text, maxDepth);
    const [value, end] = parser.value(parser.space(0));
    const after = parser.space(end);
    if (after !== text.length) throw new JsonSyntax("json.extra_data", after);
    return value;
  } catch (error) {
    if (!(error instanceof JsonSyntax)) throw error;
    if (/^[ \t\r\n]*$/.test(text)) {
      throw new JsonError(reason("json.empty"));
    }
    const [line, column] = jsonLocate(text, error.pos);
    throw new JsonError(reason("json.syntax", { problem: error.problem, line, column }));
  }
}
