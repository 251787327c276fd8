"""Reasons as codes (SPEC 8.8): ``reason_codes`` beside unchanged ``reasons``, Danish from the code.

The English ``reasons`` and ``error`` are the public contract and must not
change; the codes must render to exactly those words, every code must be
in SPEC's table with its template, and a person reading Danish must see
Danish reasons while ``--json`` stays byte for byte the same.
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from support.common import EXAMPLES, SCHEMA, VECTORS, load_json, run_cli

from twenty48_replay.bulk.batch import verify_raw
from twenty48_replay.bulk.sources import read_raw
from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.reasons import TEMPLATES, Reason
from twenty48_replay.fairplay.signing import load_trusted

RECORDS = VECTORS / "records"
FAIR = VECTORS / "fair"
FAIR_CASES: list[dict[str, Any]] = load_json(FAIR / "expected.json")["cases"]
TABLE_ROW = re.compile(r"^\| `([a-z0-9_.]+)` \| (.*?) \| `(.*)` \|$", re.MULTILINE)


def record_inputs() -> list[Path]:
    names = sorted(load_json(RECORDS / "expected.json"))
    return [RECORDS / name for name in names] + [FAIR / case["file"] for case in FAIR_CASES]


def rendered(obj: dict[str, Any]) -> str:
    return str(Reason.from_json(obj))


def check_codes(result: dict[str, Any]) -> None:
    """The codes of one ``--json`` result say exactly its English words."""
    if result["valid"] is None:
        where = result["file"] if result["index"] is None else f"{result['file']}:{result['index']}"
        assert result["error"] == f"{where}: {rendered(result['error_code'])}"
        assert "reason_codes" not in result
    else:
        assert [rendered(code) for code in result["reason_codes"]] == result["reasons"]
        assert result["valid"] == (not result["reason_codes"])


@pytest.mark.parametrize(
    "path", record_inputs(), ids=lambda path: f"{path.parent.name}/{path.name}"
)
def test_codes_render_the_english_reasons_of_every_vector(path: Path) -> None:
    trusted = load_trusted(str(FAIR / "key.pem"))
    for key in (None, trusted):
        for raw in read_raw(str(path)):
            result = verify_raw(raw, key)
            check_codes(result)
            json.dumps(result, allow_nan=False)  # plain JSON: nothing but JSON values inside


def test_fair_vectors_give_the_codes_of_their_checks() -> None:
    trusted = load_trusted(str(FAIR / "key.pem"))
    codes: dict[str, list[str]] = {}
    for case in FAIR_CASES:
        (raw,) = read_raw(str(FAIR / case["file"]))
        result = verify_raw(raw, trusted)
        assert result["reasons"] == case["with_key"]["reasons"]
        codes[case["file"]] = [code["code"] for code in result["reason_codes"]]
    assert codes["record.json"] == []
    assert codes["tampered-commitment.json"][0] == "fair.commitment"
    assert "fair.seed" in codes["tampered-server-seed.json"]
    assert codes["unsigned.json"] == ["fair.no_signature"]
    assert codes["other-key.json"] == ["fair.signature"]
    assert codes["tampered-score.json"][0] == "claim.score"


def test_every_code_is_in_the_spec_table_with_its_template_and_parameters() -> None:
    spec = (SCHEMA / "SPEC.md").read_text(encoding="utf-8")
    table = {code: (params, template) for code, params, template in TABLE_ROW.findall(spec)}
    assert {code: template for code, (_params, template) in table.items()} == TEMPLATES
    for code, (params, template) in table.items():
        names = [
            field for _text, field, _spec, _conv in string.Formatter().parse(template) if field
        ]
        shown = ", ".join(f"`{name}`" for name in dict.fromkeys(names)) or "—"
        assert params == shown, code


def test_reason_json_round_trips_nested_codes() -> None:
    error = RecordError(
        Reason("record.not_integer", {"value": Reason("value.fraction", {"number": 8.0})}),
        field="score",
    )
    assert (
        error.message
        == "field 'score': 8.0 (a number with a fraction or exponent) is not an integer"
    )
    assert str(Reason.from_json(json.loads(json.dumps(error.to_json())))) == error.message


# ---------------------------------------------------------------- the command line in two languages


def verify_in(language: str, *args: str) -> tuple[int, str, str]:
    result = run_cli("--lang", language, "verify", *args)
    return result.returncode, result.stdout, result.stderr


def test_json_is_byte_identical_in_english_and_danish(tmp_path: Path) -> None:
    inputs = [str(path) for path in record_inputs()]
    english = verify_in("en", "--json", "--trust", str(FAIR / "key.pem"), *inputs)
    danish = verify_in("da", "--json", "--trust", str(FAIR / "key.pem"), *inputs)
    assert english[:2] == danish[:2]
    assert english[0] == 2
    lines = [json.loads(line) for line in english[1].splitlines()]
    assert len(lines) == len(inputs)
    for line in lines:
        check_codes(line)


def test_danish_verify_lines_are_danish_from_the_codes() -> None:
    data = load_json(EXAMPLES / "tampered-score.json")
    code, out, _err = verify_in("da", str(EXAMPLES / "tampered-score.json"))
    assert code == 1
    assert f"UGYLDIG: påstået point {data['score']}, genspillet {data['score'] - 2}" in out
    assert "claimed" not in out
    assert "replayed" not in out
    code, _out, err = verify_in("da", str(RECORDS / "malformed-score-float.json"))
    assert code == 2
    assert "feltet 'score'" in err, err
    assert "er ikke et heltal (ulæselig)" in err, err
    assert "is not an integer" not in err


def test_danish_fair_reasons_are_danish() -> None:
    key = str(FAIR / "key.pem")
    _code, out, _err = verify_in("da", "--trust", key, str(FAIR / "unsigned.json"))
    assert "fair: ingen underskrift at kontrollere med den betroede nøgle" in out, out
    _code, out, _err = verify_in("da", "--trust", key, str(FAIR / "other-key.json"))
    assert "fair: underskrevet med nøglen" in out, out
    _code, out, _err = verify_in("da", "--trust", key, str(FAIR / "tampered-signature.json"))
    assert "underskriften holder ikke med den betroede nøgle" in out, out
    for english in ("signed by", "does not", "no signature"):
        assert english not in out


def test_danish_import_refusal_is_danish(tmp_path: Path) -> None:
    result = run_cli(
        "--lang",
        "da",
        "import",
        "--db",
        str(tmp_path / "games.db"),
        str(EXAMPLES / "tampered-score.json"),
    )
    assert result.returncode == 1
    assert "påstået point" in result.stderr, result.stderr
    assert "claimed score" not in result.stderr
