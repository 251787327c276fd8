"""The pages say a bad trusted key in their language, as the command line does (issue 20 s.3).

trusted_keys.js and key_sets.js threw English sentences, so an exported Danish
page with a bad trust document, or the Danish play page given a server's bad
key, showed English.  TrustedKeyError now carries its problem as the
reference's KeyFileError template and parameters: ``message`` stays the
English text (the vectors' ``error``), the pages render it with their catalog.

Every key-file and key-set vector the reference refuses is read by the real
modules in Node and by ``signing.read_key_file`` in Python: the English words
and the Danish words of both pages' catalogs must be the reference's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support.common import VECTORS
from support.node import node_or_skip

from twenty48_replay.core import i18n
from twenty48_replay.core.errors import KeyFileError
from twenty48_replay.fairplay.signing import read_key_file
from twenty48_replay.web.messages import page_catalog, served_catalog

JS = Path(__file__).resolve().parents[2] / "twenty48_replay" / "web" / "js"
FILES = sorted(
    path
    for folder in ("key-files", "keysets")
    for path in (VECTORS / "fair" / folder).iterdir()
    if path.name != "expected.json"
)

SCRIPT = """
import { readFileSync } from "node:fs";
import { readKeySetFile } from "%(js)s/key_sets.js";
import { reasonText, translator } from "%(js)s/reasons.js";
const [files, replay, play] = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = {};
for (const file of files) {
  try {
    readKeySetFile(new Uint8Array(readFileSync(file)));
  } catch (error) {
    const said = (catalog) =>
      error.problem ? reasonText(error.problem, translator(catalog)) : error.message;
    out[file] = [error.name, error.message, said(replay), said(play)];
  }
}
console.log(JSON.stringify(out));
"""


def reference(path: Path) -> tuple[str, str] | None:
    """The reference's English and Danish words for the file's problem (None: accepted)."""
    try:
        read_key_file(path.read_bytes(), "where")
    except KeyFileError as exc:
        problem = exc.params["problem"]
        assert isinstance(problem, KeyFileError)
        i18n.set_language(i18n.DANISH)
        try:
            return str(problem), problem.translated()
        finally:
            i18n.set_language(i18n.ENGLISH)
    return None


def test_key_errors_are_said_in_the_pages_language(tmp_path: Path) -> None:
    node = node_or_skip()
    data = tmp_path / "data.json"
    data.write_text(
        json.dumps([[str(path) for path in FILES], page_catalog("da"), served_catalog("da", ())]),
        encoding="utf-8",
    )
    script = tmp_path / "said.mjs"
    script.write_text(SCRIPT % {"js": JS.as_posix()}, encoding="utf-8")
    proc = subprocess.run(
        [node, str(script), str(data)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    translated = 0
    for path in FILES:
        expected = reference(path)
        if expected is None:
            assert str(path) not in said, path.name
            continue
        english, danish = expected
        name, message, on_replay_page, on_play_page = said[str(path)]
        assert name == "TrustedKeyError", path.name
        assert message == english, path.name
        assert on_replay_page == danish, path.name
        assert on_play_page == danish, path.name
        translated += danish != english
    assert translated >= 20
