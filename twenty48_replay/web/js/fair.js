// fair.js: fair play (SPEC section 11): commitment, seed derivation, the trusted key,
// and the checks of 11.7 with the reference's reasons.
//
// SHA-256 and HMAC-SHA256 go through WebCrypto when it is there (one call each, so being
// asynchronous costs nothing) and through sha256.js otherwise; Ed25519 through ed25519.js
// (WebCrypto first, a BigInt fallback).  Canonical bytes are canonical.js (SPEC 11.5).
//
// API:
//   async commitmentOf(serverSeed)            -> 64 lowercase hex: SHA-256 of its ASCII
//   async gameSeedOf(serverSeed, clientSeed)  -> 64 lowercase hex: HMAC-SHA256(server, client)
//   keyIdOf(publicKey)                        -> first 16 hex of SHA-256 of the 32-byte key
//   parseTrustedKey(key)                      -> Uint8Array(32); key may be a Uint8Array(32),
//                                                64 hex characters, a PEM public key (RFC 8410),
//                                                or the well-known document (text or object);
//                                                throws TrustedKeyError otherwise
//   async checkFair(record, trustedKey = null) -> {status, signature, reasons}
//       record from parseRecord; trustedKey a Uint8Array(32) or null.  status "self-seeded" |
//       "fair" | "unchecked" | "not fair"; signature "checked" | "unchecked" | null.
//   canonicalBytes(recordMap)                 (from canonical.js) the signed bytes

import { canonicalBytes } from "./canonical.js";
import { ed25519Verify } from "./ed25519.js";
import { fromHex, hmacSha256, sha256, toHex } from "./sha256.js";
import { utf8Encode } from "./text.js";

const FAIR_SPKI_PREFIX = "302a300506032b6570032100";

export class TrustedKeyError extends Error {
  constructor(message) {
    super(message);
    this.name = "TrustedKeyError";
  }
}

function fairSubtle() {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  return subtle || null;
}

export async function commitmentOf(serverSeed) {
  const data = utf8Encode(serverSeed);
  const subtle = fairSubtle();
  if (subtle) {
    try {
      return toHex(new Uint8Array(await subtle.digest("SHA-256", data)));
    } catch (error) {
      // fall back below
    }
  }
  return toHex(sha256(data));
}

export async function gameSeedOf(serverSeed, clientSeed) {
  const key = utf8Encode(serverSeed);
  const message = utf8Encode(clientSeed);
  const subtle = fairSubtle();
  if (subtle) {
    try {
      const hmacKey = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return toHex(new Uint8Array(await subtle.sign("HMAC", hmacKey, message)));
    } catch (error) {
      // fall back below
    }
  }
  return toHex(hmacSha256(key, message));
}

export function keyIdOf(publicKey) {
  return toHex(sha256(publicKey)).slice(0, 16);
}

function fairBase64(text) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const binary = atob(text);
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

function fairWellKnown(obj) {
  const get = (key) => (obj instanceof Map ? obj.get(key) : obj[key]);
  if (get("algorithm") !== "Ed25519") {
    throw new TrustedKeyError('not a twenty48 key: expected {"algorithm": "Ed25519", ...}');
  }
  const hex = get("public_key");
  const key = typeof hex === "string" && hex.length === 64 ? fromHex(hex) : null;
  if (key === null) throw new TrustedKeyError("public_key must be 64 lowercase hex characters");
  if (get("key_id") !== keyIdOf(key)) {
    throw new TrustedKeyError(`key_id does not match the public key (${keyIdOf(key)})`);
  }
  return key;
}

export function parseTrustedKey(key) {
  if (key instanceof Uint8Array) {
    if (key.length !== 32) throw new TrustedKeyError(`an Ed25519 public key is 32 bytes, not ${key.length}`);
    return Uint8Array.from(key);
  }
  if (typeof key === "string") {
    const text = key.trim();
    if (/^[0-9a-f]{64}$/.test(text)) return fromHex(text);
    if (text.startsWith("{")) {
      let obj;
      try {
        obj = JSON.parse(text);
      } catch (error) {
        throw new TrustedKeyError("not JSON");
      }
      return fairWellKnown(obj);
    }
    if (text.includes("PRIVATE KEY")) {
      throw new TrustedKeyError("this is a private key; give the server's public key");
    }
    const head = "-----BEGIN PUBLIC KEY-----";
    const tail = "-----END PUBLIC KEY-----";
    if (!text.startsWith(head) || !text.endsWith(tail)) {
      throw new TrustedKeyError("not a PEM public key (-----BEGIN PUBLIC KEY-----)");
    }
    const der = fairBase64(text.slice(head.length, -tail.length).replace(/\s+/g, ""));
    if (der === null) throw new TrustedKeyError("the PEM public key is not valid base64");
    if (der.length !== 44 || toHex(der.subarray(0, 12)) !== FAIR_SPKI_PREFIX) {
      throw new TrustedKeyError("the PEM public key is not an Ed25519 key");
    }
    return der.slice(12);
  }
  if (key !== null && typeof key === "object") return fairWellKnown(key);
  throw new TrustedKeyError("a trusted key is 32 bytes, 64 hex characters, a PEM public key or the well-known document");
}

export async function checkFair(record, trustedKey = null) {
  const f = record.fair;
  if (f === null) return { status: "self-seeded", signature: null, reasons: [] };
  const reasons = [];
  const revealed = await commitmentOf(f.server_seed);
  if (revealed !== f.commitment) {
    reasons.push(`fair: commitment ${f.commitment} does not match server_seed: its SHA-256 is ${revealed}`);
  }
  const derived = await gameSeedOf(f.server_seed, f.client_seed);
  if (derived !== record.seed) {
    reasons.push(
      `fair: seed ${JSON.stringify(record.seed)} does not match server_seed and client_seed: ` +
        `HMAC-SHA256 gives ${derived}`,
    );
  }
  if (trustedKey === null) {
    return { status: reasons.length ? "not fair" : "unchecked", signature: "unchecked", reasons };
  }
  const id = keyIdOf(trustedKey);
  if (record.signature === null) {
    reasons.push(`fair: no signature to check with the trusted key ${id}`);
  } else if (f.key_id !== id) {
    reasons.push(`fair: signed by key ${f.key_id}, not by the trusted key ${id}`);
  } else if (!(await ed25519Verify(trustedKey, fromHex(record.signature), canonicalBytes(record.json)))) {
    reasons.push(
      `fair: signature does not verify with the trusted key ${id}: ` +
        "the record was changed after signing, or another key signed it",
    );
  }
  return { status: reasons.length ? "not fair" : "fair", signature: "checked", reasons };
}
