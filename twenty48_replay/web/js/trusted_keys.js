// trusted_keys.js: the key a verifier trusts (SPEC 11.6): key files and the well-known document.
//
// One rule for every key file and fetched document, as the reference's signing.read_key_file:
// at most 65,536 bytes of UTF-8, one BOM at the very start ignored; if the first character that
// is not whitespace is "{", the text is the well-known document, read as strictly as a record
// (json.js: no duplicate keys, no NaN) and nested at most 100 levels; otherwise the text must
// hold exactly one PEM PUBLIC KEY block (text before and after it is ignored, any other
// boundary line is refused).  Messages are the reference's (twenty48_replay/fairplay/signing.py
// and keyset.py).
//
// A document that lists keys (a key set, for rotation) is read by key_sets.js, which passes
// its reader in as readSet: this module stays small, because verify.js (whose bundle has a
// size budget) needs only one key.  Without readSet such a document is refused, never read
// as its current key alone.
//
// API:
//   class TrustedKeyError(template, params = {})   .problem (and .code): the reason, its English
//                                           template and parameters as the reference's KeyFileError;
//                                           .message its English text; reasonText(.problem, t)
//                                           says it in a page's language
//   keyIdOf(publicKey)                      first 16 hex of SHA-256 of the 32-byte key
//   readKeyFile(input, readSet = null)      the file's bytes (Uint8Array) or text -> trusted key
//   readDocument(doc, readSet = null)       a parsed document (Map or plain object) -> trusted key;
//                                           readSet(map, currentKey) gets it as a Map.  Its depth
//                                           is not checked here: a document read from text
//                                           (readKeyFile) is parsed with the limit of 100 levels
//   documentPublicKey(value, where)         a "public_key" value checked (hex, canonical, not of
//                                           small order) -> Uint8Array(32); for key_sets.js
//   parseTrustedKeys(key, readSet = null)   key: a trusted key (returned as is), a Uint8Array(32)
//                                           or 64 hex characters (a raw key, for programs), a
//                                           document object, or a key file's text or bytes
//   parseTrustedKey(key) -> Uint8Array(32)  the current key of parseTrustedKeys(key)
//   A trusted key is {current, keyId, refusal(keyId, ended), publicKeyOf(keyId)}:
//   refusal gives null or why the key may not have signed a record (the reference's words).

import { ed25519KeyProblem } from "./ed25519.js";
import { JsonError, readJson } from "./json.js";
import { reason, reasonText } from "./reasons.js";
import { fromHex, sha256, toHex } from "./sha256.js";
import { pyRepr, utf8Length } from "./text.js";

export const MAX_KEY_FILE_BYTES = 65536;
const KEYS_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const KEYS_PEM_HEAD = "-----BEGIN PUBLIC KEY-----";
const KEYS_NOT_PEM = "not a PEM public key (" + KEYS_PEM_HEAD + ")";
const KEYS_HEX64 = /^[0-9a-f]{64}$/;

export class TrustedKeyError extends Error {
  constructor(template, params) {
    const problem = { code: "", template, params };
    super(reasonText(problem));
    this.name = "TrustedKeyError";
    this.code = this.problem = problem;
  }
}

export function keyIdOf(publicKey) {
  return toHex(sha256(publicKey)).slice(0, 16);
}

function keysFail(template, params) {
  throw new TrustedKeyError(template, params);
}

function keysSingle(current) {
  // A trusted key of one key, valid at any time.
  const problem = ed25519KeyProblem(current);
  if (problem !== null) keysFail(problem);
  const keyId = keyIdOf(current);
  const refusal = (id) => (id === keyId ? null : reason("key.other", { key_id: id, trusted: keyId }));
  return Object.freeze({ current, keyId, refusal, publicKeyOf: (id) => (id === keyId ? current : null) });
}

export function documentPublicKey(value, where) {
  if (typeof value !== "string" || !KEYS_HEX64.test(value)) keysFail("{where}public_key must be 64 lowercase hex characters", { where });
  const key = fromHex(value);
  const problem = ed25519KeyProblem(key);
  if (problem !== null) keysFail("{where}public_key: {problem}", { where, problem: { code: "", template: problem } });
  return key;
}

export function readDocument(doc, readSet = null) {
  const plain = doc !== null && typeof doc === "object" && Object.getPrototypeOf(doc) === Object.prototype;
  const map = plain ? new Map(Object.entries(doc)) : doc;
  if (!(map instanceof Map) || map.get("algorithm") !== "Ed25519") keysFail('not a twenty48 key: expected {"algorithm": "Ed25519", ...}');
  const current = documentPublicKey(map.get("public_key"), "");
  const keyId = map.get("key_id");
  if (keyId !== keyIdOf(current)) {
    keysFail(`{where}key_id ${typeof keyId === "string" ? "{shown}" : "not a string"} does not match the public key ({key_id})`, { where: "", shown: typeof keyId === "string" ? pyRepr(keyId) : "", key_id: keyIdOf(current) });
  }
  if (!map.has("keys")) return keysSingle(current);
  if (readSet === null) keysFail("a key set: read it with key_sets.js");
  return readSet(map, current);
}

function keysBase64(body) {
  // Only the canonical base64 of some bytes: padding at the end only, unused bits zero.
  const pad = body.length - body.replace(/=+$/, "").length;
  const unused = KEYS_B64.indexOf(body[body.length - 1 - pad]) & [0, 3, 15][pad];
  if (!body || unused || body.length % 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return null;
  return Uint8Array.from(atob(body), (ch) => ch.charCodeAt(0));
}

function keysPem(text) {
  const lines = text.split("\n").map((line) => line.replace(/[ \t\r]+$/, ""));
  const marks = [];
  lines.forEach((line, i) => {
    if (line.startsWith("-----BEGIN") || line.startsWith("-----END")) marks.push(i);
  });
  if (marks.some((i) => lines[i].includes("PRIVATE KEY"))) keysFail("this is a private key; give the server's public key");
  if (!marks.length) keysFail("not JSON (the well-known document) and " + KEYS_NOT_PEM);
  if (marks.length !== 2) keysFail("{count} PEM boundary lines: a key file holds one PUBLIC KEY block", { count: marks.length });
  const [first, last] = marks;
  if (lines[first] !== KEYS_PEM_HEAD || lines[last] !== "-----END PUBLIC KEY-----") keysFail(KEYS_NOT_PEM);
  const der = keysBase64(lines.slice(first + 1, last).join("").replace(/[ \t\r\n]/g, ""));
  if (der === null) keysFail("the PEM public key is not valid base64");
  if (der.length !== 44 || toHex(der.subarray(0, 12)) !== "302a300506032b6570032100") keysFail("the PEM public key is not an Ed25519 key");
  return keysSingle(der.slice(12));
}

export function readKeyFile(input, readSet = null) {
  const tooBig = ["is over {limit} bytes: not a key", { limit: MAX_KEY_FILE_BYTES }];
  let text = input;
  if (typeof input === "string") {
    if (utf8Length(input) > MAX_KEY_FILE_BYTES) keysFail(...tooBig);
  } else {
    const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
    if (bytes.length > MAX_KEY_FILE_BYTES) keysFail(...tooBig);
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch (error) {
      keysFail("not UTF-8 text");
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!/^[ \t\r\n]*\{/.test(text)) return keysPem(text);
  let doc;
  try {
    doc = readJson(text, 100); // SPEC 11.6: a key document nests at most 100 levels
  } catch (error) {
    if (!(error instanceof JsonError)) throw error;
    keysFail("not a well-known key document: {problem}", { problem: error.problem || error.message });
  }
  return readDocument(doc, readSet);
}

export function parseTrustedKeys(key, readSet = null) {
  if (key !== null && typeof key === "object" && typeof key.refusal === "function") return key;
  if (key instanceof Uint8Array && key.length === 32) return keysSingle(Uint8Array.from(key));
  if (typeof key === "string" && KEYS_HEX64.test(key.trim())) return keysSingle(fromHex(key.trim()));
  if (typeof key === "string" || key instanceof Uint8Array || key instanceof ArrayBuffer) return readKeyFile(key, readSet);
  if (key !== null && typeof key === "object") return readDocument(key, readSet);
  keysFail("a trusted key is 32 bytes, 64 hex characters, a PEM public key or the well-known document");
}

export function parseTrustedKey(key) {
  return parseTrustedKeys(key).current;
}
