"""Fair play (SPEC section 11): vectors, an independent canonical form, the reader, key files."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key
from hypothesis import given
from hypothesis import strategies as st
from support.common import SCHEMA, VECTORS, load_json

from twenty48_replay import Record, RecordError
from twenty48_replay.bulk.batch import verify_raw
from twenty48_replay.bulk.sources import RawRecord
from twenty48_replay.core.errors import KeyFileError
from twenty48_replay.core.fair import (
    FairInfo,
    canonical_bytes,
    commitment,
    game_seed,
    new_client_seed,
    new_server_seed,
    validate_client_seed,
)
from twenty48_replay.core.fair_check import check_fair
from twenty48_replay.fairplay.signing import ServerKey, TrustedKey

FAIR = VECTORS / "fair"
EXPECTED: dict[str, Any] = load_json(FAIR / "expected.json")
KEY: dict[str, Any] = load_json(FAIR / "key.json")
RECORD: dict[str, Any] = load_json(FAIR / "record.json")
CANONICAL: dict[str, Any] = load_json(FAIR / "canonical.json")
VALIDATOR = jsonschema.Draft202012Validator(load_json(SCHEMA / "record.schema.json"))
TRUSTED = TrustedKey(bytes.fromhex(KEY["public_key"]))


# ---------------------------------------------------------------- an independent canonical form
# Written from the words of SPEC section 11.5 only: no json.dumps, explicit UTF-16 units.


class NoCanonicalFormError(ValueError):
    pass


def utf16_units(text: str) -> list[int]:
    units = []
    for ch in text:
        point = ord(ch)
        if point > 0xFFFF:
            point -= 0x10000
            units += [0xD800 + (point >> 10), 0xDC00 + (point & 0x3FF)]
        else:
            units.append(point)
    return units


SHORT = {0x22: '\\"', 0x5C: "\\\\", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"}


def spec_string(text: str) -> str:
    out = ['"']
    for ch in text:
        point = ord(ch)
        if 0xD800 <= point <= 0xDFFF:
            raise NoCanonicalFormError("lone surrogate")
        if point in SHORT:
            out.append(SHORT[point])
        elif point < 0x20:
            out.append("\\u00" + "0123456789abcdef"[point >> 4] + "0123456789abcdef"[point & 15])
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def spec_c(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if abs(value) > 2**53:
            raise NoCanonicalFormError("integer beyond 2^53")
        return ("-" if value < 0 else "") + str(abs(value))
    if isinstance(value, float):
        raise NoCanonicalFormError("not an integer")
    if isinstance(value, str):
        return spec_string(value)
    if isinstance(value, list):
        return "[" + ",".join(spec_c(v) for v in value) + "]"
    keys = sorted(value, key=utf16_units)
    return "{" + ",".join(spec_string(k) + ":" + spec_c(value[k]) for k in keys) + "}"


def spec_canonical_bytes(record: dict[str, Any]) -> bytes:
    return spec_c({k: v for k, v in record.items() if k != "signature"}).encode("utf-8")


# ---------------------------------------------------------------- the vectors


def test_seed_derivation_matches_the_vectors_with_only_sha256_and_hmac() -> None:
    server_seed = EXPECTED["server_seed"]
    assert hashlib.sha256(server_seed.encode("ascii")).hexdigest() == EXPECTED["commitment"]
    client = EXPECTED["client_seed"]
    assert client.encode("utf-8").hex() == EXPECTED["client_seed_utf8_hex"]
    seed = hmac.digest(server_seed.encode("ascii"), client.encode("utf-8"), "sha256").hex()
    assert seed == EXPECTED["seed"] == RECORD["seed"]
    assert commitment(server_seed) == EXPECTED["commitment"]
    assert game_seed(server_seed, client) == seed
    assert RECORD["fair"]["commitment"] == EXPECTED["commitment"]


def test_canonical_bytes_of_the_vector_record() -> None:
    data = (FAIR / "record.canonical").read_bytes()
    assert canonical_bytes(RECORD) == data
    assert spec_canonical_bytes(RECORD) == data
    assert hashlib.sha256(data).hexdigest() == EXPECTED["canonical_sha256"]
    assert len(data) == EXPECTED["canonical_length"]
    # The record exercises the escapes, and its own file is not canonical.
    for escape in (b"\\n", b"\\t", b"\\u001f", b"\x7f"):
        assert escape in data
    assert (FAIR / "record.json").read_bytes() != data


@pytest.mark.parametrize("case", CANONICAL["canonical"], ids=lambda c: c["why"][:30])
def test_canonical_cases(case: dict[str, Any]) -> None:
    value = json.loads(case["input"])
    assert canonical_bytes(value).hex() == case["canonical_hex"]
    assert spec_canonical_bytes(value).hex() == case["canonical_hex"]


@pytest.mark.parametrize("case", CANONICAL["refused"], ids=lambda c: c["why"][:30])
def test_canonical_refusals(case: dict[str, Any]) -> None:
    from twenty48_replay.core.record import loads_strict

    with pytest.raises(RecordError):
        canonical_bytes(loads_strict(case["input"]))
    with pytest.raises(NoCanonicalFormError):
        spec_canonical_bytes(json.loads(case["input"]))


def test_utf16_order_differs_from_code_point_order() -> None:
    value = {"\ue000": 1, "\U0001f600": 2}
    assert canonical_bytes(value) == '{"\U0001f600":2,"\ue000":1}'.encode()
    assert sorted(value) == ["\ue000", "\U0001f600"]  # what a code point sort would give


def test_signature_checks_with_only_the_raw_public_key() -> None:
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(KEY["public_key"]))
    signature = bytes.fromhex(RECORD["signature"])
    assert RECORD["signature"] == EXPECTED["signature"]
    public.verify(signature, (FAIR / "record.canonical").read_bytes())
    with pytest.raises(InvalidSignature):
        public.verify(signature, (FAIR / "record.canonical").read_bytes() + b" ")
    assert hashlib.sha256(bytes.fromhex(KEY["public_key"])).hexdigest()[:16] == KEY["key_id"]
    assert RECORD["fair"]["key_id"] == KEY["key_id"] == EXPECTED["key_id"]


def test_key_files_of_the_vectors() -> None:
    raw = bytes.fromhex(KEY["public_key"])
    pem = load_pem_public_key((FAIR / "key.pem").read_bytes())
    assert pem.public_bytes(Encoding.Raw, PublicFormat.Raw) == raw
    assert TrustedKey.from_file(FAIR / "key.pem") == TRUSTED
    assert TrustedKey.from_file(FAIR / "well-known.json") == TRUSTED
    assert load_json(FAIR / "well-known.json") == {
        "algorithm": "Ed25519",
        "key_id": KEY["key_id"],
        "public_key": KEY["public_key"],
    }
    assert "TEST ONLY" in KEY["test_only"]


def test_signing_is_deterministic_and_reproduces_the_vector() -> None:
    key = ServerKey.from_private_bytes(bytes.fromhex(KEY["private_key_seed"]))
    assert key.key_id == KEY["key_id"]
    unsigned = {k: v for k, v in RECORD.items() if k != "signature"}
    assert key.sign_record(unsigned) == RECORD
    assert key.sign_record(RECORD)["signature"] == RECORD["signature"]  # old signature dropped


@pytest.mark.parametrize("case", EXPECTED["cases"], ids=lambda c: c["file"])
def test_every_case_gives_its_expected_verdict(case: dict[str, Any]) -> None:
    data = (FAIR / case["file"]).read_bytes()
    for trusted, expected in ((None, case["without_key"]), (TRUSTED, case["with_key"])):
        result = verify_raw(RawRecord("-", 1, data), trusted)
        assert {k: result[k] for k in expected} == expected


def test_the_cases_cover_the_issue() -> None:
    files = {c["file"] for c in EXPECTED["cases"]}
    for name in (
        "tampered-move",
        "tampered-score",
        "tampered-server-seed",
        "tampered-client-seed",
        "tampered-commitment",
        "tampered-signature",
        "other-key",
    ):
        assert f"{name}.json" in files
    verdicts = {c["file"]: c["with_key"] for c in EXPECTED["cases"]}
    assert verdicts.pop("record.json")["fair"] == "fair"
    assert all(v["valid"] is False and v["fair"] == "not fair" for v in verdicts.values())


def same_value(data: bytes) -> bool:
    try:
        return bool(json.loads(data) == RECORD)
    except ValueError:
        return False


def test_changing_any_byte_of_a_signed_record_fails() -> None:
    """Every one-byte change that changes the record's meaning fails verify --trust.

    (Changes of form only, such as ``\u001f`` written ``\u001f``, are the
    same record: the signature covers values, not their spelling.)
    """
    data = json.dumps(RECORD, ensure_ascii=False, separators=(",", ":")).encode()
    assert verify_raw(RawRecord("-", 1, data), TRUSTED)["fair"] == "fair"
    same = 0
    for i in range(len(data)):
        for flip in (0x01, 0x20):
            changed = data[:i] + bytes([data[i] ^ flip]) + data[i + 1 :]
            result = verify_raw(RawRecord("-", 1, changed), TRUSTED)
            if same_value(changed):
                same += 1
                assert result["fair"] == "fair"
                continue
            assert result["valid"] is not True, (i, changed[max(0, i - 20) : i + 20])
    assert same <= 2


def test_fair_checks_without_a_key_are_unchecked_and_self_seeded_records_are_labelled() -> None:
    record = Record.from_dict(RECORD)
    check = check_fair(record)
    assert (check.status, check.signature, check.reasons) == ("unchecked", "unchecked", ())
    assert check_fair(record, TRUSTED).status == "fair"
    plain = Record("seed", "", 0)
    assert check_fair(plain).to_json() == {"fair": "self-seeded", "signature": None}
    assert check_fair(plain, TRUSTED).to_json() == {"fair": "self-seeded", "signature": None}


# ---------------------------------------------------------------- the reader and the schema


def with_fair(**changes: Any) -> dict[str, Any]:
    record = copy.deepcopy(RECORD)
    del record["signature"]
    for key, value in changes.items():
        if value is None:
            del record["fair"][key]
        else:
            record["fair"][key] = value
    return record


MALFORMED = [
    ("fair.commitment", with_fair(commitment="A" * 64)),
    ("fair.server_seed", with_fair(server_seed="0" * 63)),
    ("fair.client_seed", with_fair(client_seed="")),
    ("fair.client_seed", with_fair(client_seed="x" * 129)),
    ("fair.key_id", with_fair(key_id="0" * 15)),
    ("fair.game_id", with_fair(game_id=True)),
    ("fair.game_id", with_fair(game_id=-1)),
    ("fair.started", with_fair(started="2026-11-30 12:00:00")),
    ("fair.ended", with_fair(ended="2026-11-30T12:00:00\u0663Z")),
    ("fair.ended", with_fair(ended=None)),
    ("fair.extra", with_fair(extra=1)),
    ("fair", {**with_fair(), "fair": [1]}),
    ("signature", {**RECORD, "signature": RECORD["signature"].upper()}),
    ("signature", {k: v for k, v in RECORD.items() if k != "fair"}),
]


@pytest.mark.parametrize(("field", "data"), MALFORMED, ids=[f for f, _ in MALFORMED])
def test_malformed_fair_fields_are_unreadable_and_schema_invalid(
    field: str, data: dict[str, Any]
) -> None:
    with pytest.raises(RecordError) as info:
        Record.from_json(json.dumps(data))
    assert info.value.field == field
    assert not VALIDATOR.is_valid(data)


def test_signed_records_hold_integers_only() -> None:
    text = json.dumps({**RECORD, "notes2": 1.5})
    with pytest.raises(RecordError, match="not an integer"):
        Record.from_json(text)
    unsigned = {k: v for k, v in RECORD.items() if k != "signature"}
    assert Record.from_json(json.dumps({**unsigned, "x": 1.5})).extra["x"] == 1.5
    key = ServerKey.from_private_bytes(bytes.fromhex(KEY["private_key_seed"]))
    with pytest.raises(RecordError, match="not an integer"):
        key.sign_record({**unsigned, "x": 1.0})
    with pytest.raises(RecordError, match="key_id"):
        ServerKey.generate().sign_record(unsigned)


def test_the_vector_records_are_schema_valid() -> None:
    for case in EXPECTED["cases"]:
        assert VALIDATOR.is_valid(load_json(FAIR / case["file"])), case["file"]


def test_fair_info_round_trip_and_seeds() -> None:
    info = FairInfo.from_dict(RECORD["fair"])
    assert info.to_dict() == RECORD["fair"]
    server = new_server_seed()
    assert len(server) == 64
    assert server == server.lower()
    assert int(server, 16) >= 0
    assert new_server_seed() != server
    assert validate_client_seed(new_client_seed())
    with pytest.raises(RecordError):
        validate_client_seed("\ud800")
    with pytest.raises(RecordError):
        commitment("0" * 64 + "\n")


# ---------------------------------------------------------------- key files


def test_private_key_file_is_made_0600_even_with_a_permissive_umask(tmp_path: Path) -> None:
    path = tmp_path / "server.key"
    old = os.umask(0)
    try:
        key = ServerKey.load_or_create(path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert ServerKey.load_or_create(path).key_id == key.key_id
    assert os.listdir(tmp_path) == ["server.key"]


def test_private_key_file_open_to_others_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "server.key"
    ServerKey.load_or_create(path)
    path.chmod(0o640)
    with pytest.raises(KeyFileError, match="chmod 600"):
        ServerKey.load_or_create(path)


def test_unusable_key_files_are_one_clear_error(tmp_path: Path) -> None:
    private = tmp_path / "server.key"
    ServerKey.load_or_create(private)
    with pytest.raises(KeyFileError, match="private key"):
        TrustedKey.from_file(private)
    junk = tmp_path / "junk.pem"
    junk.write_bytes(b"hello")
    with pytest.raises(KeyFileError, match="not a PEM public key"):
        TrustedKey.from_file(junk)
    junk.chmod(0o600)
    with pytest.raises(KeyFileError, match="not an unencrypted PEM private key"):
        ServerKey.load(junk)
    wrong_id = tmp_path / "wrong.json"
    wrong_id.write_text(json.dumps({**load_json(FAIR / "well-known.json"), "key_id": "0" * 16}))
    with pytest.raises(KeyFileError, match="does not match"):
        TrustedKey.from_file(wrong_id)
    with pytest.raises(KeyFileError, match="cannot read"):
        TrustedKey.from_file(tmp_path / "missing.pem")


def test_processes_racing_to_make_the_key_all_get_the_same_key(tmp_path: Path) -> None:
    path = tmp_path / "server.key"
    code = (
        "import sys; from pathlib import Path; "
        "from twenty48_replay.fairplay.signing import ServerKey; "
        "print(ServerKey.load_or_create(Path(sys.argv[1])).key_id)"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    ids = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert ids == {ServerKey.load(path).key_id}
    assert os.listdir(tmp_path) == ["server.key"]


def test_verify_includes_the_fair_checks() -> None:
    from twenty48_replay import verify

    record = Record.from_dict(RECORD)
    assert (verify(record).fair, verify(record).signature) == ("unchecked", "unchecked")
    assert verify(record).valid
    checked = verify(record, TRUSTED)
    assert (checked.valid, checked.fair, checked.signature) == (True, "fair", "checked")
    bad = verify(Record.from_dict(load_json(FAIR / "tampered-commitment.json")))
    assert (bad.valid, bad.fair) == (False, "not fair")
    assert bad.reasons[0].startswith("fair: commitment ")
    plain = verify(Record("seed", "", 0))
    assert (plain.valid, plain.fair, plain.signature) == (True, "self-seeded", None)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=4), json_values, max_size=5))
def test_canonical_bytes_agree_with_the_spec_implementation(value: dict[str, Any]) -> None:
    try:
        expected = spec_canonical_bytes(value)
    except NoCanonicalFormError:
        with pytest.raises(RecordError):
            canonical_bytes(value)
        return
    assert canonical_bytes(value) == expected
    assert json.loads(expected) == {k: v for k, v in value.items() if k != "signature"}
