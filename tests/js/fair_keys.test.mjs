// SPEC 11.4 and 11.6 without room to guess, in JavaScript: strict Ed25519 (WebCrypto and the
// pure-JS fallback), key files read by the one rule, key sets, and real dates and times.
// Every vector of schema/vectors/fair/ed25519.json, key-files/, keysets/ and timestamps/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { jsModule, readBytes, readJsonFile } from "./helpers.mjs";

const { verifyRecord, verdictJson } = await jsModule("verify.js");
const { ed25519KeyProblem, ed25519Verify, ed25519VerifyJs } = await jsModule("ed25519.js");
const { parseTrustedKeys, readKeyFile, TrustedKeyError } = await jsModule("trusted_keys.js");
const { KeySet, parseTrustedKeySet, readKeySetFile, timestampInstant } = await jsModule("key_sets.js");
const { fromHex } = await jsModule("sha256.js");

const fair = (...parts) => join("schema", "vectors", "fair", ...parts);
const ed = readJsonFile(fair("ed25519.json"));
const keyFiles = readJsonFile(fair("key-files", "expected.json"));
const keySets = readJsonFile(fair("keysets", "expected.json"));
const times = readJsonFile(fair("timestamps", "expected.json"));
const pick = (v) => (v.valid === null ? { valid: null, error: v.error } : { valid: v.valid, fair: v.fair, signature: v.signature, reasons: v.reasons });

for (const c of ed.cases) {
  test(`ed25519: ${c.why}`, async () => {
    const publicKey = fromHex(c.public_key);
    const signature = fromHex(c.signature);
    const message = fromHex(c.message);
    assert.equal(ed25519KeyProblem(publicKey) === null, c.key === "accepted");
    assert.equal(ed25519VerifyJs(publicKey, signature, message), c.valid);
    assert.equal(await ed25519Verify(publicKey, signature, message), c.valid);
    assert.equal(await ed25519Verify(publicKey, signature, message, { webCrypto: false }), c.valid);
    if (c.key === "refused") assert.throws(() => parseTrustedKeys(publicKey), TrustedKeyError);
  });
}

for (const c of keyFiles.cases) {
  test(`key file ${c.file}: ${c.why}`, () => {
    const bytes = readBytes(fair("key-files", c.file));
    if (c.error === null) {
      assert.equal(readKeyFile(bytes).keyId, c.key_id);
      assert.equal(parseTrustedKeys(bytes).keyId, c.key_id);
      assert.equal(readKeySetFile(bytes).keyId, c.key_id);
    } else {
      assert.throws(() => readKeyFile(bytes), (error) => error instanceof TrustedKeyError && error.message === c.error);
      assert.throws(() => readKeySetFile(bytes), (error) => error instanceof TrustedKeyError && error.message === c.error);
    }
  });
}

for (const d of keySets.documents) {
  test(`key set document ${d.file}: ${d.why}`, () => {
    const bytes = readBytes(fair("keysets", d.file));
    if (d.error === null) {
      const keys = readKeySetFile(bytes);
      assert.ok(keys instanceof KeySet);
      assert.equal(keys.listed, true);
      // trusted_keys.js alone (the verify.js bundle) refuses a key set: never its current key alone.
      assert.throws(() => readKeyFile(bytes), /a key set: read it with key_sets.js/);
    } else {
      assert.throws(() => readKeySetFile(bytes), (error) => error instanceof TrustedKeyError && error.message === d.error);
    }
    // SPEC 11.6: a reader without key sets refuses every document with a keys member.
    assert.throws(() => readKeyFile(bytes), TrustedKeyError);
  });
}

test("a revocation reason with control characters is read, and carried as it is (SPEC 11.6)", async () => {
  const control = keySets.control_reason;
  const keys = readKeySetFile(readBytes(fair("keysets", control.key_set)));
  assert.ok(keys instanceof KeySet);
  assert.ok([..."\t\n\x1b\x07\x7f\x85\u2028\u202e"].every((ch) => control.reason.includes(ch)));
  const result = verdictJson(await verifyRecord(readBytes(fair("keysets", control.file)), { trustedKey: keys }));
  assert.deepEqual(pick(result), control.with_key_set);
  assert.deepEqual(result.reason_codes, control.reason_codes);
  assert.equal(result.reason_codes[0].params.problem.params.why, control.reason);
});

test('"keys": null is refused by both readers, never read as a document without keys', () => {
  const doc = JSON.parse(new TextDecoder().decode(readBytes(fair("well-known.json"))));
  const withNull = JSON.stringify({ ...doc, keys: null });
  assert.throws(() => readKeySetFile(withNull), /keys must be a non-empty array of key entries/);
  assert.throws(() => readKeyFile(withNull), /a key set: read it with key_sets.js/);
  assert.equal(readKeySetFile(JSON.stringify(doc)).keyId, doc.key_id);
});

test("a document deeper than 100 levels is refused however deep it goes", () => {
  const doc = JSON.parse(new TextDecoder().decode(readBytes(fair("well-known.json"))));
  const nested = (levels) => "[".repeat(levels) + "]".repeat(levels);
  const text = (x) => JSON.stringify(doc).replace("{", `{"x": ${x},`);
  const words = "not a well-known key document: not JSON this reader accepts: nested too deeply";
  assert.equal(readKeySetFile(text(nested(99))).keyId, doc.key_id);
  assert.equal(readKeyFile(text(nested(99))).keyId, doc.key_id);
  for (const deep of [nested(100), `{"y": ${nested(99)}}`, nested(500), nested(30000)]) {
    assert.throws(() => readKeySetFile(text(deep)), (error) => error instanceof TrustedKeyError && error.message === words);
    assert.throws(() => readKeyFile(text(deep)), (error) => error instanceof TrustedKeyError && error.message === words);
  }
});

const keySetText = new TextDecoder().decode(readBytes(fair("keysets", keySets.key_set)));
const currentPem = new TextDecoder().decode(readBytes(fair("key.pem")));

for (const c of keySets.cases) {
  test(`key set case ${c.file}: ${c.changed}`, async () => {
    const bytes = readBytes(fair("keysets", c.file));
    assert.deepEqual(pick(verdictJson(await verifyRecord(bytes, { trustedKey: parseTrustedKeySet(keySetText) }))), c.with_key_set);
    const fromObject = parseTrustedKeySet(JSON.parse(keySetText));
    assert.deepEqual(pick(verdictJson(await verifyRecord(bytes, { trustedKey: fromObject }))), c.with_key_set);
    assert.deepEqual(pick(verdictJson(await verifyRecord(bytes, { trustedKey: currentPem }))), c.with_current_key);
  });
}

for (const c of times.cases) {
  test(`timestamp ${c.file}: ${c.why}`, async () => {
    const bytes = readBytes(fair("timestamps", c.file));
    assert.deepEqual(pick(verdictJson(await verifyRecord(bytes, { trustedKey: currentPem }))), c.with_key);
  });
}

test("timestamp instants agree with Date where Date can hold them", () => {
  for (const text of ["1970-01-01T00:00:00Z", "2026-11-30T12:04:31.250Z", "2024-02-29T23:59:59+05:30", "1600-03-01T00:00:00-23:59"]) {
    const [seconds, nanos] = timestampInstant(text);
    const ms = Date.parse(text);
    assert.equal(seconds * 1000 + Math.floor(nanos / 1e6), ms, text);
  }
  assert.deepEqual(timestampInstant("2026-06-01T02:00:00+02:00"), timestampInstant("2026-06-01T00:00:00Z"));
  assert.deepEqual(timestampInstant("0000-03-01T00:00:00.000000001Z"), [-62162035200, 1]);
});

test("the identity point as trusted key is a usage error before any record is read", async () => {
  const pem = readBytes(fair("key-files", "pem-identity.pem"));
  await assert.rejects(verifyRecord(readBytes(fair("record.json")), { trustedKey: pem }), TrustedKeyError);
});
