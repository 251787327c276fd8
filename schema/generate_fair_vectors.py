"""Generate the fair-play test vectors in schema/vectors/fair/ (checked in; the tests check them).

Run from the project root:  python schema/generate_fair_vectors.py

Everything here is deterministic (fixed seeds; Ed25519 signatures are
deterministic), so regenerating gives byte-identical files.  The keys are
the secret keys of RFC 8032's test vectors 1 and 2: public, TEST ONLY,
never to be used by a real server.

Files (schema/SPEC.md, section 11.9):
  key.json, other-key-pair.json  the test key pairs (private seed, public key, key id)
  key.pem, well-known.json  the test public key as ``verify --trust`` reads it
  other-key.pem             the other test key (RFC 8032 test 2) as a key file
  record.json               a signed fair record of a real game
  record.canonical          its canonical bytes, exactly (no trailing newline)
  canonical.json            small canonical-form cases (sorting, escapes, refusals)
  expected.json             derivation values, signature, and every case's verdict
  tampered-*.json, ...      changed copies of record.json with their expected reasons
                            (other-key.json: the record signed with the other key)
  ed25519.json, key-files/, keysets/, timestamps/   see generate_key_vectors.py
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from generate_key_vectors import (
    ed25519_cases,
    key_file_cases,
    key_set_vectors,
    pem_of,
    timestamp_vectors,
    verdict_of,
)
from generate_vectors import lookahead_moves

from twenty48_replay.bulk.batch import verify_raw
from twenty48_replay.bulk.sources import RawRecord
from twenty48_replay.core.board import Direction
from twenty48_replay.core.engine import run
from twenty48_replay.core.fair import canonical_bytes, commitment, game_seed
from twenty48_replay.core.game import GameState
from twenty48_replay.fairplay.ed25519 import L as ED25519_L
from twenty48_replay.fairplay.signing import ServerKey, TrustedKey

FAIR = Path(__file__).resolve().parent / "vectors" / "fair"
TEST_ONLY = "TEST ONLY: RFC 8032 test vector key, public; never use it to sign real records"
#: RFC 8032, section 7.1, TEST 1 and TEST 2 secret keys.
KEY_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
OTHER_SEED = bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
SERVER_SEED = hashlib.sha256(b"twenty48-replay fair vector server seed").hexdigest()
CLIENT_SEED = 'Zoë\'s seed "🎲"'
MOVES = 120


KEY = ServerKey.from_private_bytes(KEY_SEED)
OTHER = ServerKey.from_private_bytes(OTHER_SEED)


def key_json(seed: bytes) -> dict[str, Any]:
    key = ServerKey.from_private_bytes(seed)
    return {
        "test_only": TEST_ONLY,
        "private_key_seed": seed.hex(),
        "public_key": key.public_key_hex,
        "key_id": key.key_id,
    }


def fair_record() -> dict[str, Any]:
    """A real game: its seed derived from the server and client seeds, 120 moves played."""
    seed = game_seed(SERVER_SEED, CLIENT_SEED)
    moves = lookahead_moves(seed, MOVES)
    outcome = run(seed, moves)
    assert outcome.null_move is None
    state = GameState.new(seed)
    for letter in moves:
        state = state.play(Direction(letter))[0]
    record = {
        "format": "twenty48-record",
        "version": 1,
        "seed": seed,
        "moves": moves,
        "score": outcome.score,
        "max_tile": state.max_tile,
        "final_board": state.board.to_rows(),
        "player": "Zoë",
        "client": "twenty48-replay 0.1.0",
        "notes": 'line 1\nline "2"\t\\ é\u001f\u007f',
        "fair": {
            "commitment": commitment(SERVER_SEED),
            "server_seed": SERVER_SEED,
            "client_seed": CLIENT_SEED,
            "key_id": KEY.key_id,
            "game_id": 42,
            "started": "2026-11-30T12:00:00Z",
            "ended": "2026-11-30T12:04:31.250Z",
        },
    }
    return KEY.sign_record(record)


def flip_hex(text: str, index: int) -> str:
    """``text`` with the hex digit at ``index`` changed (0<->1, else -> 0)."""
    digit = text[index]
    new = "1" if digit == "0" else "0"
    return text[:index] + new + text[index + 1 :]


def variants(signed: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Changed copies of the signed record: name -> (what changed, record)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}

    def change(name: str, what: str, edit: Any) -> None:
        obj = copy.deepcopy(signed)
        edit(obj)
        out[name] = (what, obj)

    def move(obj: dict[str, Any]) -> None:
        moves = obj["moves"]
        i = 10
        other = next(c for c in "LDRU" if c != moves[i])
        obj["moves"] = moves[:i] + other + moves[i + 1 :]

    def score(obj: dict[str, Any]) -> None:
        obj["score"] += 4

    def server_seed(obj: dict[str, Any]) -> None:
        obj["fair"]["server_seed"] = flip_hex(obj["fair"]["server_seed"], 5)

    def client_seed(obj: dict[str, Any]) -> None:
        obj["fair"]["client_seed"] = obj["fair"]["client_seed"].replace("Zoë", "Zoe")

    def seed(obj: dict[str, Any]) -> None:
        obj["seed"] = flip_hex(obj["seed"], 0)

    def commit(obj: dict[str, Any]) -> None:
        obj["fair"]["commitment"] = flip_hex(obj["fair"]["commitment"], 63)

    def signature(obj: dict[str, Any]) -> None:
        obj["signature"] = flip_hex(obj["signature"], 20)

    def ended(obj: dict[str, Any]) -> None:
        obj["fair"]["ended"] = "2026-11-30T12:04:32.250Z"

    def player(obj: dict[str, Any]) -> None:
        obj["player"] = "Zoé"

    def unsigned(obj: dict[str, Any]) -> None:
        del obj["signature"]

    def other_key(obj: dict[str, Any]) -> None:
        obj["fair"]["key_id"] = OTHER.key_id
        obj.update(OTHER.sign_record(obj))

    def other_key_same_id(obj: dict[str, Any]) -> None:
        body = {k: v for k, v in obj.items() if k != "signature"}
        obj["signature"] = OTHER.sign(canonical_bytes(body)).hex()

    def signature_s_plus_l(obj: dict[str, Any]) -> None:
        raw = bytes.fromhex(obj["signature"])
        s = int.from_bytes(raw[32:], "little") + ED25519_L
        obj["signature"] = (raw[:32] + s.to_bytes(32, "little")).hex()

    change("tampered-move", "move 11 replaced by another letter", move)
    change("tampered-score", "score raised by 4", score)
    change("tampered-seed", "the v1 seed's first hex digit changed", seed)
    change("tampered-server-seed", "fair.server_seed's 6th hex digit changed", server_seed)
    change("tampered-client-seed", "fair.client_seed: ë replaced by e", client_seed)
    change("tampered-commitment", "fair.commitment's last hex digit changed", commit)
    change("tampered-signature", "the signature's 21st hex digit changed", signature)
    change("tampered-ended", "fair.ended one second later (signed metadata)", ended)
    change("tampered-player", "player é instead of ë (signed metadata)", player)
    change("unsigned", "the signature removed", unsigned)
    change("other-key", "fair.key_id and signature of the other test key", other_key)
    change(
        "other-key-same-id",
        "signed by the other test key, fair.key_id left as the test key's",
        other_key_same_id,
    )
    change(
        "tampered-signature-s",
        "S + L instead of S: the equation still holds, but S is not below L",
        signature_s_plus_l,
    )
    return out


CANONICAL_CASES: list[tuple[str, str]] = [
    ("sorted keys, no whitespace", '{ "b": 1, "a": [true, false, null], "c": {"z": 0, "y": -5} }'),
    ("UTF-16 code unit order: U+1F600 (D83D DE00) before U+E000", '{"\\ue000": 1, "😀": 2}'),
    ("code point order would differ: U+FFFF after U+10000", '{"\\uffff": 1, "\\ud800\\udc00": 2}'),
    ("prefix sorts first; uppercase before lowercase", '{"ab": 1, "a": 2, "B": 3, "b": 4}'),
    (
        "escapes: short forms, lowercase \\u00xx, nothing else",
        '{"s": ["\\"\\\\\\/\\b\\f\\n\\r\\t", "\\u0000\\u001f\\u007f\\u00e9é€😀"]}',
    ),
    (
        "integers: no fraction, no exponent, bounds ±2^53",
        '{"n": [0, -0, 9007199254740992, -9007199254740992]}',
    ),
    ("nested objects sorted at every level", '{"x": {"b": {"d": 1, "c": 2}, "a": []}}'),
    ("the top-level signature key is dropped", '{"signature": "ab", "a": {"signature": 1}}'),
]
REFUSED_CASES: list[tuple[str, str]] = [
    ("a number with a fraction", '{"a": 1.5}'),
    ("an integral number written with a fraction", '{"a": 1.0}'),
    ("a number with an exponent", '{"a": 1e3}'),
    ("an integer beyond 2^53", '{"a": 9007199254740993}'),
    ("a lone surrogate in a string", '{"a": "\\ud800"}'),
    ("a lone surrogate in a key", '{"\\udc00": 1}'),
]


def canonical_cases() -> dict[str, Any]:
    from twenty48_replay.core.errors import RecordError
    from twenty48_replay.core.record import loads_strict

    ok = []
    for why, text in CANONICAL_CASES:
        data = canonical_bytes(loads_strict(text))
        ok.append({"why": why, "input": text, "canonical_hex": data.hex()})
    refused = []
    for why, text in REFUSED_CASES:
        try:
            canonical_bytes(loads_strict(text))
        except RecordError:
            refused.append({"why": why, "input": text})
        else:
            raise AssertionError(f"canonical form accepted {text}")
    return {"canonical": ok, "refused": refused}


def verdict(data: bytes, trusted: TrustedKey | None) -> dict[str, Any]:
    result = verify_raw(RawRecord("-", 1, data), trusted)
    if result["valid"] is None:
        return {"valid": None, "error": result["error"]}
    return {k: result[k] for k in ("valid", "fair", "signature", "reasons")}


def dump_json(path: Path, obj: Any) -> bytes:
    data = (json.dumps(obj, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    path.write_bytes(data)
    return data


def main() -> int:
    FAIR.mkdir(parents=True, exist_ok=True)
    for sub in ("key-files", "keysets", "timestamps"):
        if (FAIR / sub).is_dir():
            for old in (FAIR / sub).iterdir():
                old.unlink()
            (FAIR / sub).rmdir()
    for old in FAIR.glob("*"):
        old.unlink()
    dump_json(FAIR / "key.json", key_json(KEY_SEED))
    dump_json(FAIR / "other-key-pair.json", key_json(OTHER_SEED))
    (FAIR / "key.pem").write_bytes(KEY.public_pem())
    assert KEY.public_pem().decode("ascii") == pem_of(KEY.public_key)
    (FAIR / "other-key.pem").write_bytes(OTHER.public_pem())
    dump_json(FAIR / "well-known.json", KEY.well_known())
    signed = fair_record()
    canonical = canonical_bytes(signed)
    (FAIR / "record.canonical").write_bytes(canonical)
    trusted = KEY.trusted()
    cases = []
    record_bytes = dump_json(FAIR / "record.json", signed)
    cases.append(
        {
            "file": "record.json",
            "changed": "nothing",
            "without_key": verdict(record_bytes, None),
            "with_key": verdict(record_bytes, trusted),
        }
    )
    for name, (what, obj) in variants(signed).items():
        data = dump_json(FAIR / f"{name}.json", obj)
        cases.append(
            {
                "file": f"{name}.json",
                "changed": what,
                "without_key": verdict(data, None),
                "with_key": verdict(data, trusted),
            }
        )
    fair = signed["fair"]
    expected = {
        "version": 1,
        "test_only": TEST_ONLY,
        "key_id": KEY.key_id,
        "server_seed": fair["server_seed"],
        "commitment": fair["commitment"],
        "client_seed": fair["client_seed"],
        "client_seed_utf8_hex": fair["client_seed"].encode("utf-8").hex(),
        "seed": signed["seed"],
        "canonical_sha256": hashlib.sha256(canonical).hexdigest(),
        "canonical_length": len(canonical),
        "signature": signed["signature"],
        "cases": cases,
    }
    dump_json(FAIR / "expected.json", expected)
    dump_json(FAIR / "canonical.json", canonical_cases())
    dump_json(FAIR / "ed25519.json", ed25519_cases(KEY_SEED, OTHER_SEED))
    key_file_cases(FAIR / "key-files", KEY_SEED, OTHER_SEED)
    key_set_vectors(FAIR / "keysets", signed, KEY_SEED, OTHER_SEED, verdict_of)
    timestamp_vectors(FAIR / "timestamps", signed, KEY_SEED, verdict_of)
    count = sum(1 for path in FAIR.rglob("*") if path.is_file())
    print(f"wrote {count} files to {FAIR}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
