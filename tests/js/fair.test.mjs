// Fair play against schema/vectors/fair/: commitment, seed derivation, canonical bytes,
// the signature with the RFC 8032 test key (WebCrypto and the pure-JS fallback), and every
// tampered copy's verdict with and without the trusted key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jsModule, readBytes, readJsonFile, VECTORS } from "./helpers.mjs";

const { verifyRecord, verdictJson } = await jsModule("verify.js");
const { parseRecord } = await jsModule("record.js");
const { commitmentOf, gameSeedOf } = await jsModule("fair.js");
const { keyIdOf, parseTrustedKey, TrustedKeyError } = await jsModule("trusted_keys.js");
const { canonicalBytes, canonicalText } = await jsModule("canonical.js");
const { readJson } = await jsModule("json.js");
const { ed25519Verify, ed25519VerifyJs } = await jsModule("ed25519.js");
const { fromHex, sha256, toHex } = await jsModule("sha256.js");
const { sha512 } = await jsModule("sha512.js");

const fair = (name) => join("schema", "vectors", "fair", name);
const expected = readJsonFile(fair("expected.json"));
const key = readJsonFile(fair("key.json"));
const pem = readFileSync(join(VECTORS, "fair", "key.pem"), "utf8");

test("11.2 and 11.3: commitment, seed derivation and key id", async () => {
  assert.equal(await commitmentOf(expected.server_seed), expected.commitment);
  assert.equal(toHex(new TextEncoder().encode(expected.client_seed)), expected.client_seed_utf8_hex);
  assert.equal(await gameSeedOf(expected.server_seed, expected.client_seed), expected.seed);
  assert.equal(keyIdOf(fromHex(key.public_key)), expected.key_id);
  assert.equal(key.key_id, expected.key_id);
});

test("the fallbacks give the same commitment and seed without WebCrypto", async () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
  try {
    assert.equal(await commitmentOf(expected.server_seed), expected.commitment);
    assert.equal(await gameSeedOf(expected.server_seed, expected.client_seed), expected.seed);
  } finally {
    Object.defineProperty(globalThis, "crypto", saved);
  }
});

test("11.5: record.canonical rebuilt byte for byte from record.json", () => {
  const { record } = parseRecord(readBytes(fair("record.json")));
  const bytes = canonicalBytes(record.json);
  assert.deepEqual(bytes, readBytes(fair("record.canonical")));
  assert.equal(bytes.length, expected.canonical_length);
  assert.equal(toHex(sha256(bytes)), expected.canonical_sha256);
});

test("11.5: canonical.json, canonical forms and refused inputs", () => {
  const doc = readJsonFile(fair("canonical.json"));
  for (const entry of doc.canonical) {
    assert.equal(toHex(canonicalBytes(readJson(entry.input))), entry.canonical_hex, entry.why);
  }
  for (const entry of doc.refused) {
    assert.throws(() => canonicalBytes(readJson(entry.input)), { name: "CanonicalError" }, entry.why);
  }
  // A "signature" below the top level is kept (only the top-level one is left out).
  assert.equal(canonicalText(readJson('{"s":{"signature":1}}')), '{"s":{"signature":1}}');
});

test("11.6: the signature verifies with key.json (WebCrypto and pure JS); S >= L is refused", async () => {
  const message = readBytes(fair("record.canonical"));
  const publicKey = fromHex(key.public_key);
  const signature = fromHex(expected.signature);
  assert.equal(await ed25519Verify(publicKey, signature, message), true);
  assert.equal(await ed25519Verify(publicKey, signature, message, { webCrypto: false }), true);
  assert.equal(ed25519VerifyJs(publicKey, signature, message), true);
  const changed = Uint8Array.from(message);
  changed[10] ^= 1;
  assert.equal(ed25519VerifyJs(publicKey, signature, changed), false);
  assert.equal(await ed25519Verify(publicKey, signature, changed), false);
  // S + L verifies mathematically but is not canonical (RFC 8032 5.1.7): refused by both.
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]);
  s += (1n << 252n) + 27742317777372353535851937790883648493n;
  const malleable = Uint8Array.from(signature);
  for (let i = 32; i < 64; i++) {
    malleable[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  assert.equal(ed25519VerifyJs(publicKey, malleable, message), false);
  assert.equal(await ed25519Verify(publicKey, malleable, message), false);
});

test("RFC 8032 section 7.1 tests 1 and 2 with the pure-JS verifier", () => {
  const pk1 = fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  const sig1 = fromHex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
  const pk2 = fromHex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
  const sig2 = fromHex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00");
  assert.equal(ed25519VerifyJs(pk1, sig1, new Uint8Array(0)), true);
  assert.equal(ed25519VerifyJs(pk2, sig2, new Uint8Array([0x72])), true);
  assert.equal(ed25519VerifyJs(pk1, sig2, new Uint8Array([0x72])), false);
});

test("pure-JS SHA-512 equals node:crypto", async () => {
  const { createHash } = await import("node:crypto");
  for (const n of [0, 1, 111, 112, 127, 128, 129, 239, 240, 1000, 70000]) {
    const data = Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 255);
    assert.equal(toHex(sha512(data)), createHash("sha512").update(data).digest("hex"));
  }
});

test("trusted keys: PEM, well-known document, hex, bytes; bad ones refused", () => {
  const wellKnown = readFileSync(join(VECTORS, "fair", "well-known.json"), "utf8");
  const raw = fromHex(key.public_key);
  assert.deepEqual(parseTrustedKey(pem), raw);
  assert.deepEqual(parseTrustedKey(wellKnown), raw);
  assert.deepEqual(parseTrustedKey(JSON.parse(wellKnown)), raw);
  assert.deepEqual(parseTrustedKey(key.public_key), raw);
  assert.deepEqual(parseTrustedKey(raw), raw);
  for (const bad of [new Uint8Array(31), "abc", pem.replace("PUBLIC", "PRIVATE"), { algorithm: "RSA" },
    JSON.stringify({ algorithm: "Ed25519", key_id: "0000000000000000", public_key: key.public_key }), 42]) {
    assert.throws(() => parseTrustedKey(bad), TrustedKeyError);
  }
});

for (const entry of expected.cases) {
  test(`${entry.file} (${entry.changed}): verdicts without and with the trusted key`, async () => {
    const bytes = readBytes(fair(entry.file));
    const pick = (v) => ({ valid: v.valid, fair: v.fair, signature: v.signature, reasons: v.reasons });
    assert.deepEqual(pick(verdictJson(await verifyRecord(bytes))), entry.without_key);
    assert.deepEqual(pick(verdictJson(await verifyRecord(bytes, { trustedKey: pem }))), entry.with_key);
  });
}

test("a bad trusted key is a usage error: it throws before any record is read", async () => {
  await assert.rejects(verifyRecord("not even JSON", { trustedKey: "nope" }), TrustedKeyError);
});
