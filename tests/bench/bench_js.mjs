// Benchmark of the JavaScript verifier (issue 11): Node, the 20,000-move record.
//
// Run from the project root:  node tests/bench/bench_js.mjs [RECORD.json]
// Prints figures, asserts nothing.  Also times the two HMAC strategies rng.js chose between:
// the synchronous pure-JS HMAC with precomputed key states, and awaited WebCrypto calls.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const js = (name) => join(root, "twenty48_replay", "web", "js", name);
const { verifyRecord } = await import(js("verify.js"));
const { parseRecord } = await import(js("record.js"));
const { SpawnRng } = await import(js("rng.js"));

const path = process.argv[2] || join(root, "tests", "data", "long-20000.json");
const text = readFileSync(path, "utf8");

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const runs = [];
let verdict = null;
for (let i = 0; i < 7; i++) {
  const start = performance.now();
  verdict = await verifyRecord(text);
  runs.push(performance.now() - start);
}
const moves = verdict.moves;
console.log(
  `verifyRecord on ${path.split("/").pop()} (${moves.toLocaleString("en")} moves, valid ${verdict.valid}, ` +
    `score ${verdict.score}): first run ${runs[0].toFixed(1)} ms (cold JIT), ` +
    `median of the next ${runs.length - 1} ${median(runs.slice(1)).toFixed(1)} ms, ` +
    `${Math.round(moves / (median(runs.slice(1)) / 1000)).toLocaleString("en")} moves/s`,
);

const parses = [];
for (let i = 0; i < 5; i++) {
  const start = performance.now();
  parseRecord(text);
  parses.push(performance.now() - start);
}
console.log(`  of which parseRecord (strict JSON reader): median ${median(parses).toFixed(2)} ms`);

const timeline = verdict.timeline;
const jumps = [];
let seed = 4;
for (let i = 0; i < 1000; i++) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  const step = seed % timeline.length;
  const start = performance.now();
  timeline.at(step);
  jumps.push(performance.now() - start);
}
const p99 = [...jumps].sort((a, b) => a - b)[Math.floor(jumps.length * 0.99)];
console.log(
  `timeline.at(random step) x1000: median ${(median(jumps) * 1000).toFixed(1)} us, ` +
    `99th percentile ${(p99 * 1000).toFixed(1)} us, max ${(Math.max(...jumps) * 1000).toFixed(1)} us`,
);

// The HMAC choice of rng.js: 20,002 spawn digests each way.
const count = moves + 2;
const rng = new SpawnRng(verdict.record.seed);
const pure = [];
for (let r = 0; r < 5; r++) {
  const start = performance.now();
  for (let k = 0; k < count; k++) rng.words(k);
  pure.push(performance.now() - start);
}
console.log(`HMAC, pure JS with precomputed key states: ${count.toLocaleString("en")} digests in median ${median(pure).toFixed(1)} ms`);
const subtle = globalThis.crypto && globalThis.crypto.subtle;
if (subtle) {
  const key = await subtle.importKey(
    "raw",
    new TextEncoder().encode(verdict.record.seed),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const message = new Uint8Array(8);
  const view = new DataView(message.buffer);
  let start = performance.now();
  for (let k = 0; k < count; k++) {
    view.setUint32(4, k);
    await subtle.sign("HMAC", key, message);
  }
  const awaited = performance.now() - start;
  start = performance.now();
  const all = [];
  for (let k = 0; k < count; k++) {
    const m = new Uint8Array(8);
    new DataView(m.buffer).setUint32(4, k);
    all.push(subtle.sign("HMAC", key, m));
  }
  await Promise.all(all);
  const batched = performance.now() - start;
  console.log(
    `HMAC, WebCrypto: ${count.toLocaleString("en")} awaited crypto.subtle.sign ${awaited.toFixed(1)} ms; ` +
      `all at once with Promise.all ${batched.toFixed(1)} ms`,
  );
}
