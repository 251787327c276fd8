// Print verify.js's verdict for each file named on standard input (one JSON array of
// {"path", "trust"} objects), as `twenty48 verify --json` would print it without file and
// index: tests/test_js_node.py compares the two.  A .jsonl file gives one verdict per
// non-blank line.  Not a test file itself (node --test does not pick it up).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.mjs";

const { verifyRecord, verdictJson } = await import(join(ROOT, "twenty48_replay", "web", "js", "verify.js"));

const jobs = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (const job of jobs) {
  const trustedKey = job.trust ? readFileSync(job.trust, "utf8") : null;
  const bytes = new Uint8Array(readFileSync(job.path));
  if (job.path.endsWith(".jsonl")) {
    const text = new TextDecoder().decode(bytes);
    for (const line of text.split("\n")) {
      if (/^[ \t\r]*$/.test(line)) continue;
      out.push(verdictJson(await verifyRecord(line, { trustedKey })));
    }
  } else {
    out.push(verdictJson(await verifyRecord(bytes, { trustedKey })));
  }
}
process.stdout.write(JSON.stringify(out));
