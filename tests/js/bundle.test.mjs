// The bundle (twenty48_replay/web/bundle.py): one classic script that runs with no module
// loader and exposes globalThis.twenty48.verifyRecord.  tests/test_js_node.py writes it to a
// file and passes its path in TWENTY48_JS_BUNDLE; run alone, this test builds it with Python.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import { ROOT, readBytes } from "./helpers.mjs";

function bundleText() {
  const path = process.env.TWENTY48_JS_BUNDLE;
  if (path) return readFileSync(path, "utf8");
  const venv = join(ROOT, ".venv", "bin", "python");
  const python = existsSync(venv) ? venv : "python3";
  const out = spawnSync(python, ["-c", "from twenty48_replay.web.bundle import bundle; print(bundle(['verify.js']), end='')"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return out.status === 0 ? out.stdout : null;
}

const text = bundleText();

test("the bundle runs as a classic script and verifies records", { skip: text === null && "no Python to build the bundle" }, async () => {
  assert.doesNotMatch(text, /^\s*(import|export)\s/m);
  const context = vm.createContext({ TextEncoder, TextDecoder, crypto: globalThis.crypto, atob, console });
  context.globalThis = context;
  vm.runInContext(text, context, { filename: "bundle.js" });
  const api = context.twenty48;
  assert.equal(typeof api.verifyRecord, "function");
  assert.ok(Object.isFrozen(api));
  const valid = await api.verifyRecord(new TextDecoder().decode(readBytes("examples", "valid.json")));
  assert.equal(valid.valid, true);
  assert.equal(valid.score, 7008);
  assert.equal(valid.timeline.length, 473);
  const tampered = await api.verifyRecord(new TextDecoder().decode(readBytes("examples", "tampered-score.json")));
  assert.equal(tampered.valid, false);
  assert.deepEqual([...tampered.reasons], ["claimed score 7010, replayed 7008"]);
});

test("the bundle works without WebCrypto (file:// or an insecure context)", { skip: text === null && "no Python to build the bundle" }, async () => {
  const context = vm.createContext({ TextEncoder, TextDecoder, atob, console });
  context.globalThis = context;
  vm.runInContext(text, context, { filename: "bundle.js" });
  const record = new TextDecoder().decode(readBytes("schema", "vectors", "fair", "record.json"));
  const pem = new TextDecoder().decode(readBytes("schema", "vectors", "fair", "key.pem"));
  const verdict = await context.twenty48.verifyRecord(record, { trustedKey: pem });
  assert.equal(verdict.valid, true);
  assert.equal(verdict.fair.status, "fair");
  const other = new TextDecoder().decode(readBytes("schema", "vectors", "fair", "tampered-player.json"));
  const refused = await context.twenty48.verifyRecord(other, { trustedKey: pem });
  assert.equal(refused.valid, false);
  assert.equal(refused.fair.status, "not fair");
});
