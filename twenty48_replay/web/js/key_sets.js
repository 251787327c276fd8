// key_sets.js: key sets (SPEC 11.6): every key a server signed with, when, and which are revoked.
//
// A well-known document may list, besides its current key, a "keys" array: each key with the
// time it was in use (from .. until, until null for the current key) and a revoked flag with a
// reason.  A record is judged by the key its fair.key_id names: listed, not revoked, and in use
// at fair.ended (compared as instants, offsets applied); then its signature is checked with that
// key (fair.js).  The reference is twenty48_replay/fairplay/keyset.py; messages are its words.
//
// API:
//   readKeySetFile(input) -> trusted key   a key file (bytes or text) by the one rule of
//                                          trusted_keys.js, key sets included
//   parseTrustedKeySet(key) -> trusted key as parseTrustedKeys, key sets included
//   class KeySet {current, keyId, listed, periods}   what a document with "keys" gives
//       .period(keyId) -> {keyId, publicKey, from, until, revoked, reason} | null
//       .publicKeyOf(keyId), .refusal(keyId, ended)  as every trusted key (trusted_keys.js)
//   timestampInstant(text) -> [seconds since 1970 UTC, nanoseconds]   (a valid SPEC 11.4 time)

import { reason } from "./reasons.js";
import { RECORD_TIMESTAMP } from "./record.js";
import { toHex } from "./sha256.js";
import { codePointCount, loneSurrogateAt, pyRepr } from "./text.js";
import { documentPublicKey, keyIdOf, parseTrustedKeys, readKeyFile, TrustedKeyError } from "./trusted_keys.js";

const SETS_ENTRY = ["key_id", "public_key", "from", "until", "revoked", "reason"];
const SETS_MAX_REASON = 500;

function setsFail(template, params) {
  throw new TrustedKeyError(template, params);
}

function setsDays(year, month, day) {
  // Days from 1970-01-01 to a proleptic Gregorian date, any year.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

export function timestampInstant(text) {
  if (typeof text !== "string" || !RECORD_TIMESTAMP.test(text)) throw new RangeError(`not a timestamp: ${text}`);
  const num = (a, b) => Number(text.slice(a, b));
  let seconds = setsDays(num(0, 4), num(5, 7), num(8, 10)) * 86400 + num(11, 13) * 3600 + num(14, 16) * 60 + num(17, 19);
  const [, fraction = "", zone] = /^(?:\.([0-9]+))?(.*)$/.exec(text.slice(19));
  if (zone !== "Z") seconds -= (zone[0] === "+" ? 1 : -1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  return [seconds, Number(fraction.padEnd(9, "0"))];
}

function setsBefore(a, b) {
  // Whether instant a <= instant b.
  const [sa, na] = timestampInstant(a);
  const [sb, nb] = timestampInstant(b);
  return sa < sb || (sa === sb && na <= nb);
}

export class KeySet {
  constructor(current, periods) {
    this.current = current;
    this.keyId = keyIdOf(current);
    this.listed = true;
    this.periods = periods;
    Object.freeze(this);
  }

  period(keyId) {
    return this.periods.find((p) => p.keyId === keyId) || null;
  }

  publicKeyOf(keyId) {
    const found = this.period(keyId);
    return found === null ? null : found.publicKey;
  }

  refusal(keyId, ended) {
    const found = this.period(keyId);
    if (found === null) return reason("key.unlisted", { key_id: keyId, trusted: this.keyId });
    if (found.revoked) return reason("key.revoked", { key_id: keyId, why: found.reason });
    const inUse = RECORD_TIMESTAMP.test(ended) && setsBefore(found.from, ended) && (found.until === null || setsBefore(ended, found.until));
    if (inUse) return null;
    const times = { key_id: keyId, ended, since: found.from };
    return found.until === null ? reason("key.out_of_time_open", times) : reason("key.out_of_time", { ...times, until: found.until });
  }
}

function setsTime(value, where) {
  if (typeof value !== "string" || !RECORD_TIMESTAMP.test(value)) {
    setsFail("{where} must be a real date and time in RFC 3339 form such as 2026-11-30T12:00:00Z", { where });
  }
  return value;
}

function setsEntry(obj, index) {
  const where = `keys[${index}]`;
  const plain = obj !== null && typeof obj === "object" && Object.getPrototypeOf(obj) === Object.prototype;
  if (!(obj instanceof Map || plain)) setsFail("{where} must be an object", { where });
  const map = obj instanceof Map ? obj : new Map(Object.entries(obj));
  for (const name of map.keys()) {
    if (!SETS_ENTRY.includes(name)) setsFail("{where}.{name} is not a key of a key entry", { where, name });
  }
  for (const name of SETS_ENTRY.slice(0, 5)) {
    if (!map.has(name)) setsFail("{where}.{name} is missing", { where, name });
  }
  const publicKey = documentPublicKey(map.get("public_key"), `${where}.`);
  const keyId = keyIdOf(publicKey);
  const named = map.get("key_id");
  if (named !== keyId) {
    setsFail(`{where}key_id ${typeof named === "string" ? "{shown}" : "not a string"} does not match the public key ({key_id})`, { where: where + ".", shown: typeof named === "string" ? pyRepr(named) : "", key_id: keyId });
  }
  const from = setsTime(map.get("from"), `${where}.from`);
  const until = map.get("until") === null ? null : setsTime(map.get("until"), `${where}.until`);
  if (until !== null && !setsBefore(from, until)) setsFail("{where}: from {since} is after until {until}", { where, since: from, until });
  const revoked = map.get("revoked");
  if (typeof revoked !== "boolean") setsFail("{where}.revoked must be true or false", { where });
  if (revoked !== map.has("reason")) {
    setsFail(revoked ? "{where}.reason is missing: a revoked key says why" : "{where}.reason is given for a key that is not revoked", { where });
  }
  const reason = revoked ? map.get("reason") : null;
  if (revoked && (typeof reason !== "string" || reason.length === 0 || codePointCount(reason) > SETS_MAX_REASON)) {
    setsFail("{where} must be a string of 1 to {limit} characters", { where: where + ".reason", limit: SETS_MAX_REASON });
  }
  if (revoked && loneSurrogateAt(reason) >= 0) setsFail("{where} is not encodable as UTF-8", { where: where + ".reason" });
  return Object.freeze({ keyId, publicKey, from, until, revoked, reason });
}

function setsRead(doc, current) {
  const entries = doc.get("keys");
  if (!Array.isArray(entries) || entries.length === 0) setsFail("keys must be a non-empty array of key entries");
  const periods = [];
  const seen = new Map();
  entries.forEach((item, index) => {
    const period = setsEntry(item, index);
    if (seen.has(period.keyId)) setsFail("keys[{index}]: key {key_id} is listed twice (first as keys[{first}])", { index, key_id: period.keyId, first: seen.get(period.keyId) });
    seen.set(period.keyId, index);
    periods.push(period);
  });
  const inUse = periods.map((p, i) => (p.until === null ? i : -1)).filter((i) => i >= 0);
  if (inUse.length !== 1) setsFail("a key set has exactly one key in use (until null), this one has {count}", { count: inUse.length });
  const index = inUse[0];
  if (toHex(periods[index].publicKey) !== toHex(current)) setsFail("the key in use, keys[{index}], is not the document's public_key", { index });
  if (periods[index].revoked) setsFail("the key in use, keys[{index}], is revoked: a server rotates to a new key first", { index });
  return new KeySet(current, Object.freeze(periods));
}

export function readKeySetFile(input) {
  return readKeyFile(input, setsRead);
}

export function parseTrustedKeySet(key) {
  return parseTrustedKeys(key, setsRead);
}
