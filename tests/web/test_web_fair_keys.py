"""The new fair-play vectors in headless Chromium: Ed25519, key files, key sets, real times.

A replay page made by the real CLI (``export --format html``) carries the
whole verifier as ``globalThis.twenty48``; each vector of
``schema/vectors/fair/ed25519.json``, ``key-files/``, ``keysets/`` and
``timestamps/`` is run through it in the browser (WebCrypto and the pure-JS
fallback) and compared with the expected verdicts the Python reference wrote.
Then pages exported with ``--trust`` a key set show the verdict of ``verify``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from support.browser import BrowserPage
from support.common import VECTORS, load_json, run_cli

from twenty48_replay.core.text import printable

FAIR = VECTORS / "fair"
KEYSETS: dict[str, Any] = load_json(FAIR / "keysets" / "expected.json")

RUN_VECTORS = """async (data) => {
  const t = globalThis.twenty48;
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const hex = (h) => Uint8Array.from(h.match(/../g) || [], (x) => parseInt(x, 16));
  const pick = (v) => v.valid === null ? {valid: null, error: v.error}
    : {valid: v.valid, fair: v.fair, signature: v.signature, reasons: v.reasons};
  const out = {ed25519: [], keyFiles: [], documents: [], keySets: [], times: []};
  for (const c of data.ed25519) {
    const [a, s, m] = [hex(c.public_key), hex(c.signature), hex(c.message)];
    out.ed25519.push([t.ed25519KeyProblem(a) === null, await t.ed25519Verify(a, s, m),
      await t.ed25519Verify(a, s, m, {webCrypto: false})]);
  }
  const outcome = (b) => { try { return [t.readKeySetFile(bytes(b)).keyId, null]; }
    catch (e) { return [null, e.name === "TrustedKeyError" ? e.message : "THROWN " + e]; } };
  for (const c of data.keyFiles) out.keyFiles.push(outcome(c.bytes));
  for (const c of data.documents) out.documents.push(outcome(c.bytes));
  const set = t.parseTrustedKeySet(bytes(data.keySet));
  for (const c of data.keySets) {
    out.keySets.push(pick(t.verdictJson(await t.verifyRecord(bytes(c.bytes), {trustedKey: set}))));
  }
  const key = bytes(data.key);
  for (const c of data.times) {
    out.times.push(pick(t.verdictJson(await t.verifyRecord(bytes(c.bytes), {trustedKey: key}))));
  }
  const control = t.parseTrustedKeySet(bytes(data.control.keySet));
  const judged = t.verdictJson(
    await t.verifyRecord(bytes(data.control.record), {trustedKey: control}));
  out.control = [pick(judged), judged.reason_codes];
  return out;
}"""


def b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode("ascii")


def export_html(source: Path, out: Path, *extra: str, expect: int) -> Path:
    result = run_cli("export", str(source), "--format", "html", "-o", str(out), *extra)
    assert result.returncode == expect, result.stderr
    return out


@pytest.mark.slow
def test_every_new_fair_vector_in_the_browser(browser_page: BrowserPage, tmp_path: Path) -> None:
    browser_page.open(export_html(FAIR / "record.json", tmp_path / "p.html", expect=0))
    browser_page.verdict()
    ed = load_json(FAIR / "ed25519.json")["cases"]
    key_files = load_json(FAIR / "key-files" / "expected.json")["cases"]
    times = load_json(FAIR / "timestamps" / "expected.json")["cases"]
    data = {
        "ed25519": ed,
        "keyFiles": [{"bytes": b64(FAIR / "key-files" / c["file"])} for c in key_files],
        "documents": [{"bytes": b64(FAIR / "keysets" / d["file"])} for d in KEYSETS["documents"]],
        "keySet": b64(FAIR / "keysets" / KEYSETS["key_set"]),
        "keySets": [{"bytes": b64(FAIR / "keysets" / c["file"])} for c in KEYSETS["cases"]],
        "key": b64(FAIR / "key.pem"),
        "times": [{"bytes": b64(FAIR / "timestamps" / c["file"])} for c in times],
        "control": {
            "keySet": b64(FAIR / "keysets" / KEYSETS["control_reason"]["key_set"]),
            "record": b64(FAIR / "keysets" / KEYSETS["control_reason"]["file"]),
        },
    }
    got = browser_page.page.evaluate(RUN_VECTORS, data)
    assert got["ed25519"] == [[c["key"] == "accepted", c["valid"], c["valid"]] for c in ed]
    assert got["keyFiles"] == [[c["key_id"], c["error"]] for c in key_files]
    assert got["documents"] == [
        [None if d["error"] else load_json(FAIR / "key.json")["key_id"], d["error"]]
        for d in KEYSETS["documents"]
    ]
    assert got["keySets"] == [c["with_key_set"] for c in KEYSETS["cases"]]
    assert got["times"] == [c["with_key"] for c in times]
    control = KEYSETS["control_reason"]
    assert got["control"] == [control["with_key_set"], control["reason_codes"]]
    assert browser_page.errors == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["old-key.json", "revoked-key.json", "old-key-after.json"])
def test_a_page_exported_with_a_key_set_gives_the_verdict_of_verify(
    name: str, browser_page: BrowserPage, tmp_path: Path
) -> None:
    keyset = str(FAIR / "keysets" / KEYSETS["key_set"])
    source = FAIR / "keysets" / name
    verified = run_cli("verify", "--json", "--trust", keyset, str(source))
    expected = json.loads(verified.stdout)
    page = export_html(
        source, tmp_path / "p.html", "--trust", keyset, expect=0 if expected["valid"] else 1
    )
    browser_page.open(page)
    shown = browser_page.verdict()
    assert shown["valid"] == ("true" if expected["valid"] else "false")
    box = browser_page.page.locator("#verdict")
    assert box.get_attribute("data-fair") == expected["fair"]
    reasons = browser_page.page.evaluate(
        "[...document.querySelectorAll('#verdict-reasons li')].map(li => li.textContent)"
    )
    assert reasons == [printable(reason) for reason in expected["reasons"]]
    checks = browser_page.page.locator("#fair-checks li").all_text_contents()
    if expected["valid"]:
        record = load_json(source)
        assert checks[-1].endswith(f"signed by the trusted server key {record['fair']['key_id']}.")
    assert browser_page.errors == []


def test_export_refuses_a_key_set_a_verifier_would_refuse(tmp_path: Path) -> None:
    bad = FAIR / "keysets" / "bad-current-revoked.json"
    result = run_cli(
        "export", str(FAIR / "record.json"), "-f", "html", "-o", str(tmp_path / "p.html"),
        "--trust", str(bad),
    )  # fmt: skip
    assert result.returncode == 2
    assert "is revoked" in result.stderr
    assert not (tmp_path / "p.html").exists()
