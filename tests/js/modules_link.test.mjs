// Every page module links: each named import is exported by the module it names.
// A page imports its modules in the browser only; a moved export (say, a class
// that went from fair.js to trusted_keys.js) would otherwise show up only as a
// dead page.  Linking happens before any module code runs, so a missing export
// is a SyntaxError here even where running the module needs a DOM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";

const folder = fileURLToPath(new URL("../../twenty48_replay/web/js/", import.meta.url));

for (const name of readdirSync(folder).filter((file) => file.endsWith(".js")).sort()) {
  test(`${name} links`, async () => {
    try {
      await import(pathToFileURL(join(folder, name)).href);
    } catch (error) {
      // Running a page module outside a browser may fail on document/window; linking may not.
      assert.ok(!(error instanceof SyntaxError), `${name}: ${error.message}`);
    }
  });
}
