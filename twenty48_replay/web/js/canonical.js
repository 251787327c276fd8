// canonical.js: the canonical bytes of a record (SPEC 11.5), the bytes a fair record's
// signature covers: RFC 8785 (JCS) restricted to integers.
//
// Keys are sorted by UTF-16 code units, which is exactly how JavaScript's default sort
// compares strings.  Input is the record as readJson returns it (objects as Map); a value
// with no canonical form (a JsonFloat, an integer beyond +-2^53, a lone surrogate) throws
// CanonicalError naming the field, worded as the reference (twenty48_replay/core/fair.py).
//
// API:
//   class CanonicalError {field, reason, problem, message}: reason as a code with parameters
//       (reasons.js), problem the same in its field, message problem's English text
//   canonicalText(value, where = "") -> string     (value without any key removed)
//   canonicalBytes(recordMap)        -> Uint8Array  (the record without its top-level "signature")

import { JsonBigInt, JsonFloat } from "./json.js";
import { inField, reason, reasonText } from "./reasons.js";
import { loneSurrogateAt, utf8Encode } from "./text.js";

export class CanonicalError extends Error {
  constructor(field, why) {
    const problem = inField(field || null, why);
    super(reasonText(problem));
    this.name = "CanonicalError";
    this.field = field;
    this.reason = why;
    this.problem = problem;
  }
}

const CANONICAL_SPECIAL = /["\\\x00-\x1f]/g;
const CANONICAL_SHORT = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };

function canonicalString(text, where) {
  const lone = loneSurrogateAt(text);
  if (lone >= 0) {
    throw new CanonicalError(where, reason("canonical.lone_surrogate", { character: lone + 1 }));
  }
  const body = text.replace(CANONICAL_SPECIAL, (ch) => {
    const short = CANONICAL_SHORT[ch];
    return short !== undefined ? short : "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0");
  });
  return '"' + body + '"';
}

function canonicalInto(value, where, out) {
  if (value === null) out.push("null");
  else if (value === true) out.push("true");
  else if (value === false) out.push("false");
  else if (typeof value === "number") {
    if (!Number.isInteger(value)) {
      throw new CanonicalError(where, reason("canonical.fraction", { value }));
    }
    if (Math.abs(value) > 9007199254740992) {
      throw new CanonicalError(where, reason("canonical.beyond", { value }));
    }
    out.push(String(value === 0 ? 0 : value));
  } else if (value instanceof JsonFloat) {
    throw new CanonicalError(where, reason("canonical.fraction", { value: value.value }));
  } else if (value instanceof JsonBigInt) {
    // The reference keeps integers over 640 characters as an opaque type it cannot serialise.
    if (value.long) throw new CanonicalError(where, reason("canonical.not_json", { type: "BigInteger" }));
    // The digits as text: a JavaScript number cannot hold them (--json has the integer itself).
    throw new CanonicalError(where, reason("canonical.beyond", { value: value.text }));
  } else if (typeof value === "string") out.push(canonicalString(value, where));
  else if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i) out.push(",");
      canonicalInto(value[i], `${where}[${i}]`, out);
    }
    out.push("]");
  } else if (value instanceof Map) {
    for (const key of value.keys()) canonicalString(key, where ? `${where}.${key}` : key);
    const keys = [...value.keys()].sort();
    out.push("{");
    keys.forEach((key, i) => {
      if (i) out.push(",");
      out.push(canonicalString(key, where));
      out.push(":");
      canonicalInto(value.get(key), where ? `${where}.${key}` : key, out);
    });
    out.push("}");
  } else {
    throw new CanonicalError(where, reason("canonical.not_json", { type: typeof value }));
  }
}

export function canonicalText(value, where = "") {
  const out = [];
  canonicalInto(value, where, out);
  return out.join("");
}

export function canonicalBytes(recordMap) {
  const body = new Map([...recordMap].filter(([key]) => key !== "signature"));
  return utf8Encode(canonicalText(body));
}
