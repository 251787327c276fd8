// trusted_keys.js: the keys a verifier trusts (SPEC 11.6): key files, the well-known document,
// and key sets (every key a server signed with, when, and which are revoked).
//
// One rule for every key file and fetched document, as the reference's signing.read_key_file:
// at most 65,536 bytes of UTF-8, one BOM at the very start ignored; if the first character that
// is not whitespace is "{", the text is the well-known document, read as strictly as a record
// (json.js: no duplicate keys, no NaN), either one key or a key set; otherwise the text must hold
// exactly one PEM PUBLIC KEY block (text before and after it is ignored, any other boundary line
// is refused).  Messages are the reference's (twenty48_replay/signing.py and keyset.py).
//
// API:
//   class TrustedKeyError(message)
//   keyIdOf(publicKey)                     first 16 hex of SHA-256 of the 32-byte key
//   readKeyFile(input) -> KeySet           input: the file's bytes (Uint8Array) or its text
//   readKeySet(doc) -> KeySet              a parsed document (plain object or Map)
//   parseTrustedKeys(key) -> KeySet        key: a KeySet, a Uint8Array(32) or 64 hex characters
//                                          (a raw key, for programs), a document object, or
//                                          the text or bytes of a key file
//   parseTrustedKey(key) -> Uint8Array(32) the current key of parseTrustedKeys(key)
//   timestampInstant(text) -> [seconds since 1970 UTC, nanoseconds]   (a valid SPEC 11.4 time)
//   class KeySet {current, keyId, periods, listed}
//       .period(keyId) -> {keyId, publicKey, from, until, revoked, reason} | null
//       .publicKeyOf(keyId) -> Uint8Array(32) | null
//       .refusal(keyId, ended) -> null, or why this set does not vouch for a record signed by
//                                 keyId that ended at `ended` (the reference's words)

import { ed25519KeyProblem } from "./ed25519.js";
import { JsonError, readJson } from "./json.js";
import { RECORD_TIMESTAMP } from "./record.js";
import { fromHex, sha256, toHex } from "./sha256.js";
import { codePointCount, loneSurrogateAt, pyRepr, utf8Length } from "./text.js";

export const MAX_KEY_FILE_BYTES = 65536;
const KEYS_SPKI_PREFIX = "302a300506032b6570032100";
const KEYS_ENTRY = ["key_id", "public_key", "from", "until", "revoked", "reason"];
const KEYS_MAX_REASON = 500;
const KEYS_HEX64 = /^[0-9a-f]{64}$/;
const KEYS_TIME_WORDS = "must be a real date and time in RFC 3339 form such as 2026-11-30T12:00:00Z";

export class TrustedKeyError extends Error {
  constructor(message) {
    super(message);
    this.name = "TrustedKeyError";
  }
}

export function keyIdOf(publicKey) {
  return toHex(sha256(publicKey)).slice(0, 16);
}

// ---------------------------------------------------------------- times

function keysDaysFromCivil(year, month, day) {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

export function timestampInstant(text) {
  if (typeof text !== "string" || !RECORD_TIMESTAMP.test(text)) throw new RangeError(`not a timestamp: ${text}`);
  const num = (a, b) => Number(text.slice(a, b));
  let seconds = keysDaysFromCivil(num(0, 4), num(5, 7), num(8, 10)) * 86400 + num(11, 13) * 3600 + num(14, 16) * 60 + num(17, 19);
  let rest = text.slice(19);
  let nanos = 0;
  if (rest.startsWith(".")) {
    const digits = /^\.([0-9]+)/.exec(rest)[1];
    nanos = Number(digits.padEnd(9, "0"));
    rest = rest.slice(1 + digits.length);
  }
  if (rest !== "Z") {
    const offset = Number(rest.slice(1, 3)) * 3600 + Number(rest.slice(4, 6)) * 60;
    seconds -= rest[0] === "+" ? offset : -offset;
  }
  return [seconds, nanos];
}

function keysCompareTimes(a, b) {
  const [sa, na] = timestampInstant(a);
  const [sb, nb] = timestampInstant(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  return na === nb ? 0 : na < nb ? -1 : 1;
}

// ---------------------------------------------------------------- key sets

export class KeySet {
  constructor(current, periods = []) {
    this.current = current;
    this.keyId = keyIdOf(current);
    this.periods = periods;
    this.listed = periods.length > 0;
    Object.freeze(this);
  }

  period(keyId) {
    return this.periods.find((p) => p.keyId === keyId) || null;
  }

  publicKeyOf(keyId) {
    if (!this.listed) return keyId === this.keyId ? this.current : null;
    const found = this.period(keyId);
    return found === null ? null : found.publicKey;
  }

  refusal(keyId, ended) {
    if (!this.listed) {
      return keyId === this.keyId ? null : `signed by key ${keyId}, not by the trusted key ${this.keyId}`;
    }
    const found = this.period(keyId);
    if (found === null) {
      return `signed by key ${keyId}, which the trusted key set does not list (its current key is ${this.keyId})`;
    }
    if (found.revoked) return `signed by key ${keyId}, which the trusted key set marks revoked: ${found.reason}`;
    const inUse =
      typeof ended === "string" &&
      RECORD_TIMESTAMP.test(ended) &&
      keysCompareTimes(found.from, ended) <= 0 &&
      (found.until === null || keysCompareTimes(ended, found.until) <= 0);
    if (!inUse) {
      return `signed by key ${keyId} at ${ended}, outside the time it was in use (${found.from} to ${found.until || "now"})`;
    }
    return null;
  }
}

function keysPublicKey(value, where) {
  if (typeof value !== "string" || !KEYS_HEX64.test(value)) {
    throw new TrustedKeyError(`${where}public_key must be 64 lowercase hex characters`);
  }
  const key = fromHex(value);
  const problem = ed25519KeyProblem(key);
  if (problem !== null) throw new TrustedKeyError(`${where}public_key: ${problem}`);
  return key;
}

function keysKeyId(value, key, where) {
  if (value !== keyIdOf(key)) {
    throw new TrustedKeyError(`${where}key_id ${typeof value === "string" ? pyRepr(value) : "not a string"} does not match the public key (${keyIdOf(key)})`);
  }
}

function keysTime(value, where) {
  if (typeof value !== "string" || !RECORD_TIMESTAMP.test(value)) throw new TrustedKeyError(`${where} ${KEYS_TIME_WORDS}`);
  return value;
}

function keysIsObject(value) {
  // A JSON object as json.js gives it (a Map), or a plain object from a program.
  return value instanceof Map || (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype);
}

function keysGet(obj, key) {
  return obj instanceof Map ? obj.get(key) : obj[key];
}

function keysHas(obj, key) {
  return obj instanceof Map ? obj.has(key) : Object.prototype.hasOwnProperty.call(obj, key);
}

function keysEntry(obj, index) {
  const where = `keys[${index}]`;
  if (!keysIsObject(obj)) throw new TrustedKeyError(`${where} must be an object`);
  for (const name of obj instanceof Map ? obj.keys() : Object.keys(obj)) {
    if (!KEYS_ENTRY.includes(name)) throw new TrustedKeyError(`${where}.${name} is not a key of a key entry`);
  }
  for (const name of KEYS_ENTRY.slice(0, 5)) {
    if (!keysHas(obj, name)) throw new TrustedKeyError(`${where}.${name} is missing`);
  }
  const publicKey = keysPublicKey(keysGet(obj, "public_key"), `${where}.`);
  keysKeyId(keysGet(obj, "key_id"), publicKey, `${where}.`);
  const from = keysTime(keysGet(obj, "from"), `${where}.from`);
  const until = keysGet(obj, "until") === null ? null : keysTime(keysGet(obj, "until"), `${where}.until`);
  if (until !== null && keysCompareTimes(from, until) > 0) {
    throw new TrustedKeyError(`${where}: from ${from} is after until ${until}`);
  }
  const revoked = keysGet(obj, "revoked");
  if (typeof revoked !== "boolean") throw new TrustedKeyError(`${where}.revoked must be true or false`);
  if (revoked !== keysHas(obj, "reason")) {
    throw new TrustedKeyError(
      revoked ? `${where}.reason is missing: a revoked key says why` : `${where}.reason is given for a key that is not revoked`,
    );
  }
  let reason = null;
  if (revoked) {
    reason = keysGet(obj, "reason");
    if (typeof reason !== "string" || reason.length === 0 || codePointCount(reason) > KEYS_MAX_REASON) {
      throw new TrustedKeyError(`${where}.reason must be a string of 1 to ${KEYS_MAX_REASON} characters`);
    }
    if (loneSurrogateAt(reason) >= 0) throw new TrustedKeyError(`${where}.reason is not encodable as UTF-8`);
  }
  return Object.freeze({ keyId: keyIdOf(publicKey), publicKey, from, until, revoked, reason });
}

export function readKeySet(doc) {
  if (!keysIsObject(doc) || keysGet(doc, "algorithm") !== "Ed25519") {
    throw new TrustedKeyError('not a twenty48 key: expected {"algorithm": "Ed25519", ...}');
  }
  const current = keysPublicKey(keysGet(doc, "public_key"), "");
  keysKeyId(keysGet(doc, "key_id"), current, "");
  if (!keysHas(doc, "keys")) return new KeySet(current);
  const entries = keysGet(doc, "keys");
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new TrustedKeyError("keys must be a non-empty array of key entries");
  }
  const periods = [];
  const seen = new Map();
  entries.forEach((item, index) => {
    const period = keysEntry(item, index);
    if (seen.has(period.keyId)) {
      throw new TrustedKeyError(`keys[${index}]: key ${period.keyId} is listed twice (first as keys[${seen.get(period.keyId)}])`);
    }
    seen.set(period.keyId, index);
    periods.push(period);
  });
  const inUse = [];
  periods.forEach((p, i) => {
    if (p.until === null) inUse.push(i);
  });
  if (inUse.length !== 1) {
    throw new TrustedKeyError(`a key set has exactly one key in use (until null), this one has ${inUse.length}`);
  }
  const index = inUse[0];
  if (toHex(periods[index].publicKey) !== toHex(current)) {
    throw new TrustedKeyError(`the key in use, keys[${index}], is not the document's public_key`);
  }
  if (periods[index].revoked) {
    throw new TrustedKeyError(`the key in use, keys[${index}], is revoked: a server rotates to a new key first`);
  }
  return new KeySet(current, Object.freeze(periods));
}

// ---------------------------------------------------------------- key files

const KEYS_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function keysBase64(body) {
  // Only the canonical base64 of some bytes: padding at the end only, unused bits zero.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0 || body.length === 0) return null;
  const pad = body.endsWith("==") ? 2 : body.endsWith("=") ? 1 : 0;
  const out = [];
  let bits = 0;
  let value = 0;
  for (const ch of body.slice(0, body.length - pad)) {
    value = (value << 6) | KEYS_BASE64.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 255);
      value &= (1 << bits) - 1;
    }
  }
  return value === 0 ? Uint8Array.from(out) : null;
}

function keysPem(text) {
  const lines = text.split("\n").map((line) => line.replace(/[ \t\r]+$/, ""));
  const boundaries = [];
  lines.forEach((line, i) => {
    if (line.startsWith("-----BEGIN") || line.startsWith("-----END")) boundaries.push(i);
  });
  if (boundaries.some((i) => lines[i].includes("PRIVATE KEY"))) {
    throw new TrustedKeyError("this is a private key; give the server's public key");
  }
  if (boundaries.length === 0) {
    throw new TrustedKeyError("not JSON (the well-known document) and not a PEM public key (-----BEGIN PUBLIC KEY-----)");
  }
  if (boundaries.length !== 2) {
    throw new TrustedKeyError(
      "a key file holds exactly one -----BEGIN PUBLIC KEY----- ... -----END PUBLIC KEY----- " +
        `block; this text has ${boundaries.length} PEM boundary line(s)`,
    );
  }
  const [first, last] = boundaries;
  if (lines[first] !== "-----BEGIN PUBLIC KEY-----" || lines[last] !== "-----END PUBLIC KEY-----") {
    throw new TrustedKeyError("not a PEM public key (-----BEGIN PUBLIC KEY-----)");
  }
  const der = keysBase64(lines.slice(first + 1, last).join("").replace(/[ \t\r\n]/g, ""));
  if (der === null) throw new TrustedKeyError("the PEM public key is not valid base64");
  if (der.length !== 44 || toHex(der.subarray(0, 12)) !== KEYS_SPKI_PREFIX) {
    throw new TrustedKeyError("the PEM public key is not an Ed25519 key");
  }
  const key = der.slice(12);
  const problem = ed25519KeyProblem(key);
  if (problem !== null) throw new TrustedKeyError(problem);
  return new KeySet(key);
}

export function readKeyFile(input) {
  let text;
  if (typeof input === "string") {
    if (utf8Length(input) > MAX_KEY_FILE_BYTES) throw new TrustedKeyError(`is over ${MAX_KEY_FILE_BYTES} bytes: not a key`);
    if (loneSurrogateAt(input) >= 0) throw new TrustedKeyError("not UTF-8 text");
    text = input;
  } else {
    const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
    if (bytes.length > MAX_KEY_FILE_BYTES) throw new TrustedKeyError(`is over ${MAX_KEY_FILE_BYTES} bytes: not a key`);
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch (error) {
      throw new TrustedKeyError("not UTF-8 text");
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text.replace(/^[ \t\r\n]+/, "").startsWith("{")) return keysPem(text);
  let doc;
  try {
    doc = readJson(text);
  } catch (error) {
    if (!(error instanceof JsonError)) throw error;
    throw new TrustedKeyError(`not a well-known key document: ${error.message}`);
  }
  return readKeySet(doc);
}

export function parseTrustedKeys(key) {
  if (key instanceof KeySet) return key;
  if (key instanceof Uint8Array && key.length === 32) {
    const problem = ed25519KeyProblem(key);
    if (problem !== null) throw new TrustedKeyError(problem);
    return new KeySet(Uint8Array.from(key));
  }
  if (typeof key === "string" && KEYS_HEX64.test(key.trim())) return parseTrustedKeys(fromHex(key.trim()));
  if (typeof key === "string" || key instanceof Uint8Array || key instanceof ArrayBuffer) return readKeyFile(key);
  if (key !== null && typeof key === "object") return readKeySet(key);
  throw new TrustedKeyError("a trusted key is 32 bytes, 64 hex characters, a PEM public key or the well-known document");
}

export function parseTrustedKey(key) {
  return parseTrustedKeys(key).current;
}
