// Shared paths and loaders of the Node tests (tests/js/*.test.mjs): no npm, only node: modules.
import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Node 18 (Debian's nodejs package on older releases) has WebCrypto only in node:crypto;
// the modules look for globalThis.crypto, as browsers provide it.
if (!globalThis.crypto) globalThis.crypto = webcrypto;

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const VECTORS = join(ROOT, "schema", "vectors");

export function jsModule(name) {
  return import(join(ROOT, "twenty48_replay", "web", "js", name));
}

export function readJsonFile(...parts) {
  return JSON.parse(readFileSync(join(ROOT, ...parts), "utf8"));
}

export function readBytes(...parts) {
  return new Uint8Array(readFileSync(join(ROOT, ...parts)));
}

export function exponents(rows) {
  return rows.flat().map((v) => (v === 0 ? 0 : Math.log2(v)));
}
