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
//   async checkFair(record, trusted = null)   -> {status, signature, reasons, codes}
//       reasons: the English words; codes: the same reasons as codes (reasons.js, SPEC 8.8)
//       record from parseRecord; trusted a trusted key (trusted_keys.js; a key set from
//       key_sets.js), anything parseTrustedKeys takes, or null.  status "self-seeded" | "fair" | "unchecked" | "not fair"; signature
//       "checked" | "unchecked" | null.  With a key set, the key the record names must be
//       listed, not revoked and in use at fair.ended (SPEC 11.7).
//   canonicalBytes(recordMap)                 (from canonical.js) the signed bytes
//   Trusted keys and key files: trusted_keys.js; key sets: key_sets.js.

import { canonicalBytes } from "./canonical.js";
import { ed25519SignatureProblem, ed25519Verify } from "./ed25519.js";
import { reason, reasonText } from "./reasons.js";
import { fromHex, hmacSha256, sha256, toHex } from "./sha256.js";
import { utf8Encode } from "./text.js";
import { parseTrustedKeys } from "./trusted_keys.js";

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

function fairVerdict(status, signature, codes) {
  return { status, signature, reasons: codes.map((code) => reasonText(code)), codes };
}

export async function checkFair(record, trusted = null) {
  const f = record.fair;
  if (f === null) return fairVerdict("self-seeded", null, []);
  const codes = [];
  const revealed = await commitmentOf(f.server_seed);
  if (revealed !== f.commitment) codes.push(reason("fair.commitment", { commitment: f.commitment, sha256: revealed }));
  const derived = await gameSeedOf(f.server_seed, f.client_seed);
  if (derived !== record.seed) codes.push(reason("fair.seed", { seed: record.seed, derived }));
  if (trusted === null) return fairVerdict(codes.length ? "not fair" : "unchecked", "unchecked", codes);
  const keys = parseTrustedKeys(trusted);
  const refusal = keys.refusal(f.key_id, f.ended);
  if (record.signature === null) {
    codes.push(reason("fair.no_signature", { trusted: keys.keyId }));
  } else if (refusal !== null) {
    codes.push(reason("fair.signature", { problem: refusal }));
  } else {
    const signature = fromHex(record.signature);
    const why =
      ed25519SignatureProblem(signature) ??
      ((await ed25519Verify(keys.publicKeyOf(f.key_id), signature, canonicalBytes(record.json)))
        ? null
        : reason("signature.mismatch"));
    if (why !== null) {
      codes.push(reason("fair.signature", { problem: reason("signature.invalid", { key_id: f.key_id, problem: why }) }));
    }
  }
  return fairVerdict(codes.length ? "not fair" : "fair", "checked", codes);
}
