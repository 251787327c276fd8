"""The JavaScript implementation of spec v1 (twenty48_replay/web/js), tested from pytest.

Two parts (issue 11): ``node --test tests/js/`` (every vector of schema/vectors, the
bundle) runs in a subprocess and fails with node's own output; and the verdicts of
verify.js are compared field by field with what the real ``twenty48 verify --json``
prints for the same files: every example, every sample record, every fair vector (with and
without the trusted key) and a set of hostile texts.  Without Node these tests skip, unless
TWENTY48_REQUIRE_NODE is set (as .ci/run does), when they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.node import node_or_skip

from twenty48_replay.web.bundle import bundle

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "schema" / "vectors"

HEAD = '{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0'

#: Texts the CLI and verify.js must read the same way (syntax, limits, types, fair fields).
HOSTILE: list[str] = [
    "{",
    '{"a"',
    '{"a":',
    '{"a":1,}',
    "[1,]",
    '{"a" 1}',
    '"abc',
    '"a\x01"',
    '"\\x"',
    '"\\u12"',
    '"\\u12G4"',
    "{}x",
    "01",
    "-",
    "1.",
    "[NaN]",
    "[-Infinity]",
    "Infinity",
    "{1:2}",
    "{'a':1}",
    "\ufeff\ufeff{}",
    " \ufeff{}",
    "[1,\n 2,\n x]",
    '["é😀",x]',
    "[1e400]",
    "[-1e-400]",
    "[[[]]]]",
    '"\\"',
    '["\\ud800\\u12G4"]',
    "[nulll]",
    '{"a":1,"a":2,x}',
    '{"a":{"b":1,"b":2},"a":3}',
    '{"\\u0061":1,"a":2}',
    "",
    " \n\t\r ",
    "\x0b{}",
    "[]",
    "null",
    '"record"',
    HEAD + ',"score":1}',
    HEAD.replace('"score":0', '"score":9007199254740993') + "}",
    HEAD.replace('"score":0', '"score":9007199254740992') + "}",
    HEAD.replace('"score":0', '"score":-1') + "}",
    HEAD.replace('"score":0', '"score":-0') + "}",
    HEAD.replace('"score":0', '"score":1e2') + "}",
    HEAD.replace('"score":0', '"score":"0"') + "}",
    HEAD.replace('"score":0', '"score":-' + "9" * 700) + "}",
    HEAD.replace('"version":1', '"version":1.0') + "}",
    HEAD.replace('"version":1', '"version":2') + "}",
    HEAD.replace('"version":1', '"version":' + "1" * 30) + "}",
    HEAD.replace('"version":1', '"version":true') + "}",
    HEAD.replace('"format":"twenty48-record"', '"format":"Twenty48-Record"') + "}",
    HEAD.replace('"format":"twenty48-record",', "") + "}",
    HEAD.replace('"seed":"s"', '"seed":""') + "}",
    HEAD.replace('"seed":"s"', '"seed":"' + "🎲" * 129 + '"') + "}",
    HEAD.replace('"seed":"s"', '"seed":"' + "🎲" * 128 + '"') + "}",
    HEAD.replace('"seed":"s"', '"seed":"ab\\udfb2"') + "}",
    HEAD.replace('"seed":"s"', '"seed":["s"]') + "}",
    HEAD.replace('"seed":"s"', '"seed":"very long seed with \'quotes\' and more"') + ',"score":1}',
    HEAD.replace('"moves":""', '"moves":"LURD\\n"') + "}",
    HEAD.replace('"moves":""', '"moves":"LUé"') + "}",
    HEAD.replace('"moves":""', '"moves":"L\\u0000"') + "}",
    HEAD.replace('"moves":""', '"moves":"UUUUUUUUUU"') + "}",
    HEAD + ',"max_tile":0}',
    HEAD + ',"max_tile":3}',
    HEAD + ',"max_tile":262144}',
    HEAD + ',"max_tile":2.0}',
    HEAD + ',"final_board":[[0,0,0,0],[0,0,0,0],[0,0,0,0]]}',
    HEAD + ',"final_board":[[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,"2"]]}',
    HEAD + ',"final_board":{}}',
    HEAD + ',"player":5}',
    HEAD + ',"player":null}',
    HEAD + ',"notes":"\\ud800"}',
    HEAD + ',"assisted":"yes"}',
    HEAD + ',"assisted":1}',
    HEAD + ',"player":"a string longer than twenty characters"}',
    HEAD + ',"player":"it\'s"}',
    HEAD + ',"x":' + "[" * 100 + "]" * 100 + "}",
    HEAD + ',"x":' + "[" * 99 + "]" * 99 + "}",
    HEAD + ',"x":{"y":1e308,"z":-0.0,"w":5e-324}}',
    HEAD + ',"x":1' + "0" * 5000 + "}",
    HEAD + ',"__proto__":{"a":1},"1":2,"constructor":3}',
    HEAD + ',"fair":5}',
    HEAD + ',"fair":{}}',
    HEAD + ',"signature":"' + "a" * 128 + '"}',
    HEAD + ',"signature":"' + "A" * 128 + '"}',
]


def fair_mutations() -> list[str]:
    """The signed fair vector with one field broken each: the fair object's reading rules
    (SPEC 11.4) and canonical form (11.5), so their codes are compared too."""
    signed = json.loads((VECTORS / "fair" / "record.json").read_text("utf-8"))
    texts = []
    for key, value in [
        ("client_seed", ""),
        ("client_seed", "x" * 129),
        ("client_seed", 5),
        ("game_id", -1),
        ("game_id", 2**54),
        ("game_id", "g" * 129),
        ("started", "2026-02-30T00:00:00Z"),
        ("key_id", "ABC"),
        ("commitment", "xyz"),
        ("extra", 1),
    ]:
        texts.append(json.dumps({**signed, "fair": {**signed["fair"], key: value}}))
    missing = {key: value for key, value in signed["fair"].items() if key != "ended"}
    texts.append(json.dumps({**signed, "fair": missing}))
    texts.append(json.dumps({**signed, "extra": 1.5}))
    texts.append(json.dumps({**signed, "extra": [1, 2**60]}))
    texts.append(json.dumps({**signed, "notes": "a\ud800"}))
    texts.append(json.dumps({**signed, "extra": {"\ud800": 1}}))
    return texts


HOSTILE += fair_mutations()


def test_node_suite_passes(tmp_path: Path) -> None:
    """``node --test tests/js/``: every vector, and the bundle bundle.py builds right now."""
    node = node_or_skip()
    script = tmp_path / "bundle.js"
    script.write_text(bundle(["verify.js"]), encoding="utf-8")
    proc = subprocess.run(
        [node, "--test", "tests/js/"],
        cwd=ROOT,
        env={**os.environ, "TWENTY48_JS_BUNDLE": str(script)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        failures = [line for line in proc.stdout.splitlines() if line.startswith("not ok")]
        pytest.fail(
            f"node --test tests/js/ exited {proc.returncode}; failed: {failures}\n"
            f"{proc.stdout[-20000:]}\n{proc.stderr[-5000:]}",
            pytrace=False,
        )
    assert "# fail 0" in proc.stdout


def js_verdicts(node: str, jobs: list[dict[str, str | None]]) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [node, str(ROOT / "tests" / "js" / "verdicts.mjs")],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: list[dict[str, Any]] = json.loads(proc.stdout)
    return result


def cli_verdicts(cli: Callable[..., Any], paths: list[Path], *options: str) -> list[dict[str, Any]]:
    proc = cli("verify", "--json", *options, *map(str, paths))
    assert proc.returncode in (0, 1, 2), proc.stderr
    verdicts = []
    for line in proc.stdout.splitlines():
        result = json.loads(line)
        where = f"{result.pop('file')}:{result.pop('index')}: "
        if result["valid"] is None:
            assert result["error"].startswith(where)
            result["error"] = result["error"][len(where) :]
        verdicts.append(result)
    return verdicts


def digits_as_text(value: Any) -> Any:
    """``value`` with every integer beyond 2^53 as its digits: verify.js's reason parameters
    hold such an integer as text (a JavaScript number cannot), the CLI's as the integer."""
    if isinstance(value, dict):
        return {key: digits_as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [digits_as_text(item) for item in value]
    if type(value) is int and abs(value) > 2**53:
        return str(value)
    return value


def test_js_verdicts_equal_the_cli(tmp_path: Path, cli: Callable[..., Any]) -> None:
    """verify.js gives exactly the CLI's result object (reasons and error wording included)."""
    node = node_or_skip()
    hostile = []
    for number, text in enumerate(HOSTILE):
        path = tmp_path / f"hostile-{number:03}.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        hostile.append(path)
    bad_utf8 = tmp_path / "hostile-bad-utf8.json"
    bad_utf8.write_bytes(b"\xef\xbb\xbf" + (HEAD + ',"p":"\xc3\x28"}').encode("latin-1"))
    hostile.append(bad_utf8)
    plain = sorted((ROOT / "examples").glob("*.json*"))
    plain += sorted((VECTORS / "records").glob("*.json"))
    fair = sorted((VECTORS / "fair").glob("*.json"))
    trust = str(VECTORS / "fair" / "key.pem")

    expected = cli_verdicts(cli, [*plain, *fair, *hostile])
    expected += cli_verdicts(cli, fair, "--trust", trust)
    expected = [digits_as_text(verdict) for verdict in expected]
    jobs: list[dict[str, str | None]] = [
        {"path": str(path), "trust": None} for path in [*plain, *fair, *hostile]
    ]
    jobs += [{"path": str(path), "trust": trust} for path in fair]
    actual = js_verdicts(node, jobs)

    assert len(expected) >= len(HOSTILE) + 60
    assert len(actual) == len(expected)
    assert {str(v["valid"]) for v in expected} == {"True", "False", "None"}
    mismatches = [
        (index, want, got)
        for index, (want, got) in enumerate(zip(expected, actual, strict=True))
        if want != got
    ]
    assert not mismatches, "\n".join(f"#{i}\n  cli {w}\n  js  {g}" for i, w, g in mismatches[:10])
