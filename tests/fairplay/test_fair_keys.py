"""SPEC 11.4 and 11.6 without room to guess: strict Ed25519, key files, key sets, real times.

Every vector of ``schema/vectors/fair/ed25519.json``, ``key-files/``,
``keysets/`` and ``timestamps/`` through the library, the real CLI (as a
subprocess) and a real HTTP server on loopback: a key file and the same
bytes fetched from a URL give the same key or the same refusal.
"""

from __future__ import annotations

import calendar
import datetime
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.common import SCHEMA, VECTORS, load_json

from twenty48_replay.bulk.batch import verify_raw
from twenty48_replay.bulk.sources import RawRecord
from twenty48_replay.core.errors import KeyFileError, RecordError
from twenty48_replay.core.fair import TIMESTAMP_PATTERN, timestamp_instant
from twenty48_replay.fairplay import ed25519
from twenty48_replay.fairplay.keyset import KeyPeriod, key_set_document, read_key_set
from twenty48_replay.fairplay.signing import (
    ServerKey,
    TrustedKey,
    TrustedKeySet,
    load_trusted,
    read_key_file,
    verify_signature,
)

FAIR = VECTORS / "fair"
ED25519: dict[str, Any] = load_json(FAIR / "ed25519.json")
KEY_FILES: dict[str, Any] = load_json(FAIR / "key-files" / "expected.json")
KEYSETS: dict[str, Any] = load_json(FAIR / "keysets" / "expected.json")
TIMESTAMPS: dict[str, Any] = load_json(FAIR / "timestamps" / "expected.json")
SCHEMA_JSON: dict[str, Any] = load_json(SCHEMA / "record.schema.json")
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA_JSON)
KEY: dict[str, Any] = load_json(FAIR / "key.json")
OTHER: dict[str, Any] = load_json(FAIR / "other-key-pair.json")


def verdict(data: bytes, trusted: TrustedKey | TrustedKeySet | None) -> dict[str, Any]:
    result = verify_raw(RawRecord("-", 1, data), trusted)
    if result["valid"] is None:
        return {"valid": None, "error": str(result["error"]).removeprefix("-:1: ")}
    return {k: result[k] for k in ("valid", "fair", "signature", "reasons")}


# ---------------------------------------------------------------- Ed25519


@pytest.mark.parametrize("case", ED25519["cases"], ids=lambda c: c["why"][:60])
def test_ed25519_cases(case: dict[str, Any]) -> None:
    public = bytes.fromhex(case["public_key"])
    signature = bytes.fromhex(case["signature"])
    message = bytes.fromhex(case["message"])
    assert (verify_signature(public, signature, message) is None) == case["valid"]
    if case["key"] == "accepted":
        assert TrustedKey(public).public_key == public
    else:
        with pytest.raises(KeyFileError, match="public key"):
            TrustedKey(public)


def test_the_identity_key_and_its_one_signature_fit_no_record() -> None:
    """The attack of issue 19: identity point as trusted key, R = identity, S = 0."""
    identity = ed25519.encode_point(ed25519.IDENTITY)
    assert identity == bytes([1]) + bytes(31)
    assert verify_signature(identity, identity + bytes(32), b"any record at all") is not None
    with pytest.raises(KeyFileError, match="small order"):
        load_trusted(str(FAIR / "key-files" / "pem-identity.pem"))
    with pytest.raises(KeyFileError, match="small order"):
        TrustedKey.from_well_known(
            json.loads((FAIR / "key-files" / "well-known-identity.json").read_text())
        )


def test_the_eight_small_order_points_are_all_refused_and_nothing_else_of_order_8() -> None:
    small = {
        c["public_key"] for c in ED25519["cases"] if c["why"].startswith("public key of order")
    }
    assert len(small) == 8
    for hex_key in small:
        point = ed25519.decode_point(bytes.fromhex(hex_key))
        assert point is not None
        assert ed25519.is_small_order(point)
    base = ed25519.BASE
    assert not ed25519.is_small_order(base)
    assert ed25519.is_identity(ed25519.scalar_mult(ed25519.L, base))


def test_decoding_round_trips_and_refuses_every_non_canonical_form() -> None:
    for n in range(0, 2**255, 2**255 // 997):
        data = n.to_bytes(32, "little")
        for raw in (data, bytes(data[:31]) + bytes([data[31] | 0x80])):
            point = ed25519.decode_point(raw)
            if point is not None:
                assert ed25519.encode_point(point) == raw
    p = ed25519.P
    for y in range(p, 2**255):
        assert ed25519.decode_point(y.to_bytes(32, "little")) is None
    assert ed25519.decode_point((1 | 1 << 255).to_bytes(32, "little")) is None


def test_the_vector_signatures_check_the_rfc_8032_equation() -> None:
    assert "cofactorless" in ED25519["equation"]
    valid = [c for c in ED25519["cases"] if c["valid"]]
    assert len(valid) >= 4
    mixed = [c for c in ED25519["cases"] if c["why"].startswith("mixed-order key")]
    assert [c["valid"] for c in mixed] == [False, True]


def test_a_signature_with_s_plus_l_is_refused_in_a_record() -> None:
    data = (FAIR / "tampered-signature-s.json").read_bytes()
    result = verdict(data, TrustedKey(bytes.fromhex(KEY["public_key"])))
    assert result["fair"] == "not fair"
    assert "S is not below the group order L" in result["reasons"][0]


# ---------------------------------------------------------------- key files


def read_outcome(data: bytes) -> tuple[str | None, str | None]:
    try:
        found = read_key_file(data, "FILE")
    except KeyFileError as exc:
        return None, str(exc).removeprefix("FILE: ")
    return found.key_id, None


@pytest.mark.parametrize("case", KEY_FILES["cases"], ids=lambda c: c["file"])
def test_key_file_cases(case: dict[str, Any]) -> None:
    path = FAIR / "key-files" / case["file"]
    assert read_outcome(path.read_bytes()) == (case["key_id"], case["error"])
    if case["error"] is None:
        assert load_trusted(str(path)).key_id == case["key_id"]
    else:
        with pytest.raises(KeyFileError) as info:
            load_trusted(str(path))
        assert str(path) in str(info.value)
        assert str(info.value).endswith(case["error"])


def test_key_files_cover_the_issue() -> None:
    outcome = {c["file"]: c["error"] is None for c in KEY_FILES["cases"]}
    for accepted in ("pem-bom.pem", "well-known-bom.json", "pem-text-around.pem", "pem-64kib.pem"):
        assert outcome[accepted], accepted
    for refused in (
        "pem-two-blocks.pem",
        "pem-over-64kib.pem",
        "well-known-over-64kib.json",
        "well-known-duplicate-key.json",
        "well-known-nan.json",
        "pem-identity.pem",
    ):
        assert not outcome[refused], refused
    assert (FAIR / "key-files" / "pem-64kib.pem").stat().st_size == 65536


def test_a_url_and_a_file_with_the_same_bytes_give_the_same_outcome(
    key_server: tuple[str, dict[str, Any]],
) -> None:
    url, routes = key_server
    files = [FAIR / "key-files" / c["file"] for c in KEY_FILES["cases"]]
    files += [FAIR / "keysets" / d["file"] for d in KEYSETS["documents"]]
    for path in files:
        target = f"{url}/{path.name}/.well-known/twenty48-key"
        routes[f"/{path.name}/.well-known/twenty48-key"] = (200, path.read_bytes())
        outcomes: list[object] = []
        for trust in (str(path), target):
            try:
                outcomes.append(load_trusted(trust))
            except KeyFileError as exc:
                outcomes.append(str(exc).removeprefix(f"{trust}: "))
        assert outcomes[0] == outcomes[1], path.name


def test_cli_trust_key_files(cli: Any) -> None:
    record = str(FAIR / "record.json")
    good = cli(
        "verify", "--json", "--trust", str(FAIR / "key-files" / "pem-text-around.pem"), record
    )
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["fair"] == "fair"
    for name in ("pem-two-blocks.pem", "pem-identity.pem", "well-known-nan.json"):
        bad = cli("verify", "--trust", str(FAIR / "key-files" / name), record)
        assert bad.returncode == 2, name
        lines = bad.stderr.splitlines()
        assert len(lines) == 1
        assert lines[0].startswith("twenty48: error: "), bad.stderr


def test_the_other_test_key_is_a_key_file() -> None:
    other = load_trusted(str(FAIR / "other-key.pem"))
    assert other.key_id == OTHER["key_id"]
    assert other == TrustedKey(bytes.fromhex(OTHER["public_key"]))
    assert OTHER["private_key_seed"].startswith("4ccd089b")  # RFC 8032 section 7.1, TEST 2
    signed_by_other = verdict((FAIR / "other-key.json").read_bytes(), other)  # the record
    assert signed_by_other["fair"] == "fair"


# ---------------------------------------------------------------- key sets


@pytest.mark.parametrize("doc", KEYSETS["documents"], ids=lambda d: d["file"])
def test_key_set_documents(doc: dict[str, Any]) -> None:
    data = (FAIR / "keysets" / doc["file"]).read_bytes()
    if doc["error"] is None:
        found = read_key_file(data, "FILE")
        assert isinstance(found, TrustedKeySet)
        assert found.keys.to_json() == json.loads(data)
    else:
        assert read_outcome(data) == (None, doc["error"])


TRUSTED_SET = load_trusted(str(FAIR / "keysets" / KEYSETS["key_set"]))
TRUSTED_KEY = load_trusted(str(FAIR / "key.pem"))


@pytest.mark.parametrize("case", KEYSETS["cases"], ids=lambda c: c["file"])
def test_key_set_cases(case: dict[str, Any]) -> None:
    data = (FAIR / "keysets" / case["file"]).read_bytes()
    assert verdict(data, TRUSTED_SET) == case["with_key_set"]
    assert verdict(data, TRUSTED_KEY) == case["with_current_key"]


def test_key_set_cases_cover_rotation_and_revocation() -> None:
    by_file = {c["file"]: c for c in KEYSETS["cases"]}
    assert by_file["old-key.json"]["with_key_set"]["fair"] == "fair"
    assert by_file["old-key.json"]["with_current_key"]["fair"] == "not fair"
    assert by_file["old-key-at-rotation.json"]["with_key_set"]["fair"] == "fair"
    assert by_file["old-key-after.json"]["with_key_set"]["fair"] == "not fair"
    revoked = by_file["revoked-key.json"]["with_key_set"]
    assert revoked["fair"] == "not fair"
    assert "revoked: the key file was copied" in revoked["reasons"][0]


@pytest.mark.slow
def test_cli_verify_trust_key_set_from_a_file_and_a_url(
    cli: Any, key_server: tuple[str, dict[str, Any]]
) -> None:
    url, routes = key_server
    keyset = FAIR / "keysets" / KEYSETS["key_set"]
    routes["/.well-known/twenty48-key"] = (200, keyset.read_bytes())
    files = [str(FAIR / "keysets" / c["file"]) for c in KEYSETS["cases"]]
    for trust in (str(keyset), url):
        result = cli("verify", "--json", "--trust", trust, *files)
        assert result.returncode == 1, result.stderr
        got = [json.loads(line) for line in result.stdout.splitlines()]
        want = [c["with_key_set"] for c in KEYSETS["cases"]]
        assert [{k: g[k] for k in w} for g, w in zip(got, want, strict=True)] == want
    human = cli("verify", "--trust", str(keyset), str(FAIR / "keysets" / "revoked-key.json"))
    assert human.returncode == 1
    assert "marks revoked: the key file was copied off the old host" in human.stdout


def test_a_revocation_reason_with_control_characters_is_read_and_carried_as_it_is() -> None:
    """SPEC 11.6: control characters do not make a document unusable; ``reasons`` and the
    ``why`` of ``key.revoked`` hold the reason as the document holds it (escaped only when
    shown to a person: see the next test)."""
    control = KEYSETS["control_reason"]
    assert any(ch in control["reason"] for ch in "\t\n\x1b\x07\x7f\x85\u2028\u202e")
    trusted = load_trusted(str(FAIR / "keysets" / control["key_set"]))
    assert isinstance(trusted, TrustedKeySet)
    data = (FAIR / "keysets" / control["file"]).read_bytes()
    assert verdict(data, trusted) == control["with_key_set"]
    result = verify_raw(RawRecord("-", 1, data), trusted)
    assert result["reason_codes"] == control["reason_codes"]
    (code,) = result["reason_codes"]
    assert code["params"]["problem"]["params"]["why"] == control["reason"]
    assert result["reasons"][0].endswith(": " + control["reason"])


def test_keys_null_is_a_key_set_that_lists_nothing() -> None:
    """SPEC 11.6: ``"keys": null`` is refused, never read as a document without ``keys``."""
    document = load_json(FAIR / "well-known.json")
    with pytest.raises(KeyFileError, match="keys must be a non-empty array"):
        read_key_set({**document, "keys": None})
    (doc,) = [d for d in KEYSETS["documents"] if d["file"] == "bad-keys-null.json"]
    assert doc["error"] == "keys must be a non-empty array of key entries"


def test_a_document_deeper_than_100_levels_is_refused_parsed_or_as_text() -> None:
    """The play client reads the server's key as parsed JSON (``TrustedKey.from_well_known``):
    the same limit and words as a key file's text, and as a text deeper than the parser goes."""
    document: dict[str, Any] = load_json(FAIR / "well-known.json")

    def nested(levels: int) -> Any:
        value: Any = []
        for _ in range(levels - 1):
            value = [value]
        return value

    words = "not a well-known key document: not JSON this reader accepts: nested too deeply"
    assert TrustedKey.from_well_known({**document, "x": nested(99)}).key_id == KEY["key_id"]
    for deep in (nested(100), {"y": nested(99)}, nested(5000)):
        with pytest.raises(KeyFileError) as info:
            TrustedKey.from_well_known({**document, "x": deep})
        assert str(info.value) == words
    text = json.dumps(document)
    for levels in (100, 500, 5000):
        deep_text = text.replace("{", '{"x": ' + "[" * levels + "]" * levels + ",", 1)
        with pytest.raises(KeyFileError) as info:
            read_key_file(deep_text.encode(), "FILE")
        assert str(info.value) == f"FILE: {words}"


def test_key_set_document_builds_what_verifiers_read() -> None:
    key = ServerKey.from_private_bytes(bytes.fromhex(KEY["private_key_seed"]))
    other = ServerKey.from_private_bytes(bytes.fromhex(OTHER["private_key_seed"]))
    periods = [
        KeyPeriod(other.public_key, "2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z"),
        KeyPeriod(key.public_key, "2026-06-01T00:00:00Z"),
    ]
    document = key_set_document(periods)
    assert document["key_id"] == key.key_id
    assert [k["key_id"] for k in document["keys"]] == [key.key_id, other.key_id]
    keys = read_key_set(json.loads(json.dumps(document)))
    assert keys.refusal(other.key_id, "2026-03-01T00:00:00Z") is None
    assert keys.refusal(other.key_id, "2026-07-01T00:00:00Z") is not None
    # An old verifier reads the document as today's single key: the current one.
    assert TrustedKey.from_well_known(document) == key.trusted()


@pytest.mark.parametrize(
    ("periods", "words"),
    [
        ([], "exactly one key in use"),
        (["current", "current2"], "exactly one key in use"),
        (["current-revoked"], "exactly one key in use"),
        (["current", "revoked-without-reason"], "a revoked key says why"),
        (["current", "backwards"], "is after until"),
        (["current", "month-13"], "real date and time"),
        (["current", "current-again"], "listed twice"),
    ],
)
def test_key_set_document_refuses_what_a_verifier_would_refuse(
    periods: list[str], words: str
) -> None:
    key = ServerKey.from_private_bytes(bytes.fromhex(KEY["private_key_seed"])).public_key
    other = ServerKey.from_private_bytes(bytes.fromhex(OTHER["private_key_seed"])).public_key
    third = ServerKey.generate().public_key
    made = {
        "current": KeyPeriod(key, "2026-06-01T00:00:00Z"),
        "current2": KeyPeriod(other, "2026-06-01T00:00:00Z"),
        "current-revoked": KeyPeriod(
            key, "2026-06-01T00:00:00Z", "2026-07-01T00:00:00Z", True, "x"
        ),
        "revoked-without-reason": KeyPeriod(
            other, "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z", True
        ),
        "backwards": KeyPeriod(other, "2026-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
        "month-13": KeyPeriod(third, "2026-13-01T00:00:00Z", "2027-01-01T00:00:00Z"),
        "current-again": KeyPeriod(key, "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
    }
    with pytest.raises(KeyFileError, match=words):
        key_set_document([made[name] for name in periods])


# ---------------------------------------------------------------- timestamps


@pytest.mark.parametrize("case", TIMESTAMPS["cases"], ids=lambda c: c["file"])
def test_timestamp_cases(case: dict[str, Any]) -> None:
    data = (FAIR / "timestamps" / case["file"]).read_bytes()
    assert verdict(data, TRUSTED_KEY) == case["with_key"]
    assert (case["with_key"]["valid"] is not None) == case["real"]
    assert VALIDATOR.is_valid(json.loads(data)) == case["real"]


def test_the_schema_pattern_is_the_readers_pattern() -> None:
    assert SCHEMA_JSON["$defs"]["time"]["pattern"] == f"^{TIMESTAMP_PATTERN}$"
    js = (Path(__file__).parents[2] / "twenty48_replay" / "web" / "js" / "record.js").read_text()
    start = js.index("export const RECORD_TIMESTAMP = new RegExp(")
    body = js[start : js.index(");", start)]
    parts = [
        json.loads(f'"{part}"') for part in __import__("re").findall(r'"((?:[^"\\]|\\.)*)"', body)
    ]
    assert "".join(parts) == f"^{TIMESTAMP_PATTERN}$"


def test_every_pattern_of_the_schema_refuses_line_breaks() -> None:
    """A pattern's ``$`` matches before a final newline in Python's ``re`` (which jsonschema
    uses), PCRE, Java and .NET: each pattern carries ``one_line`` beside it."""
    patterns: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "pattern" in node and node is not SCHEMA_JSON["$defs"]["one_line"]["not"]:
                patterns.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(SCHEMA_JSON)
    assert len(patterns) == 5
    assert all(node.get("$ref") == "#/$defs/one_line" for node in patterns)
    record = load_json(FAIR / "record.json")
    assert VALIDATOR.is_valid(record)
    fields = [("fair", "ended"), ("fair", "started"), ("fair", "key_id"), ("fair", "server_seed")]
    for where, name in [*fields, (None, "signature"), (None, "moves")]:
        for end in ("\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"):
            for before in (False, True):
                changed = json.loads(json.dumps(record))
                holder = changed if where is None else changed[where]
                holder[name] = end + holder[name] if before else holder[name] + end
                assert not VALIDATOR.is_valid(changed), (name, end)
                assert verdict(json.dumps(changed).encode(), None)["valid"] is None, (name, end)


def test_every_day_from_1599_to_2401_is_accepted_exactly_when_it_exists() -> None:
    for year in (*range(1599, 1605), *range(1896, 1906), *range(1996, 2106), 2396, 2400, 2401):
        for month in range(1, 14):
            for day in range(0, 33):
                text = f"{year:04}-{month:02}-{day:02}T00:00:00Z"
                real = 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]
                try:
                    instant = timestamp_instant(text)
                except RecordError:
                    assert not real, text
                    continue
                assert real, text
                when = datetime.datetime(year, month, day, tzinfo=datetime.UTC)
                assert instant == (int(when.timestamp()), 0)


@given(
    st.datetimes(
        min_value=datetime.datetime(1, 1, 2),
        max_value=datetime.datetime(9999, 12, 30),
    ),
    st.integers(-(23 * 60 + 59), 23 * 60 + 59),
    st.integers(0, 999_999),
)
def test_timestamp_instants_agree_with_datetime(
    when: datetime.datetime, offset_minutes: int, micros: int
) -> None:
    zone = datetime.timezone(datetime.timedelta(minutes=offset_minutes))
    local = when.replace(microsecond=micros, tzinfo=zone)
    sign = "+" if offset_minutes >= 0 else "-"
    text = (
        f"{local.year:04}-{local.month:02}-{local.day:02}T"
        f"{local.hour:02}:{local.minute:02}:{local.second:02}"
        + f".{micros:06}{sign}{abs(offset_minutes) // 60:02}:{abs(offset_minutes) % 60:02}"
    )
    delta = local - datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    seconds = delta.days * 86400 + delta.seconds
    assert timestamp_instant(text) == (seconds, micros * 1000)


def test_a_revocation_reason_reaches_the_terminal_escaped(cli: Any, tmp_path: Path) -> None:
    """The reason comes from a fetched document: control and bidi characters are shown escaped."""
    document = load_json(FAIR / "keysets" / KEYSETS["key_set"])
    revoked = next(k for k in document["keys"] if k["revoked"])
    revoked["reason"] = "stolen \x1b[2J\x1b]0;pwned\x07 \u202e"
    keyset = tmp_path / "keyset.json"
    keyset.write_text(json.dumps(document), encoding="utf-8")
    result = cli("verify", "--trust", str(keyset), str(FAIR / "keysets" / "revoked-key.json"))
    assert result.returncode == 1
    assert "marks revoked: stolen \\x1b[2J\\x1b]0;pwned\\x07 \\u202e [replayed" in result.stdout
    assert "\x1b" not in result.stdout
    as_json = cli(
        "verify", "--json", "--trust", str(keyset), str(FAIR / "keysets" / "revoked-key.json")
    )
    assert json.loads(as_json.stdout)["reasons"][0].endswith(revoked["reason"])
