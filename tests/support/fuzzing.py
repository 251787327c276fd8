"""Mutations of record files for the fuzz tests (tests/core/test_fuzz.py and the long run,
tests/support/fuzz_records.py).

The seed corpus is tests/fuzz_corpus/: valid, tampered and hostile records.
A mutation is chosen by a ``random.Random`` so a failing case is
reproducible from its seed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from twenty48_replay import Record, RecordError, verify
from twenty48_replay.core.errors import ImportRejectedError
from twenty48_replay.store import Store

CORPUS_DIR = Path(__file__).resolve().parents[1] / "fuzz_corpus"
CORPUS = [p.read_bytes() for p in sorted(CORPUS_DIR.glob("*.json"))]

NASTY_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**53,
    2**53 + 1,
    2**64,
    10**30,
    1.5,
    12.0,
    1e308,
    "",
    "x" * 129,
    "UDLRX",
    "L" * 1000,
    [],
    {},
    [[0] * 4] * 4,
    [[3] * 4] * 4,
    "\u0000",
    "\ud7ff",
    "é" * 128,
]
FIELDS = [
    "format",
    "version",
    "seed",
    "moves",
    "score",
    "max_tile",
    "final_board",
    "player",
    "assisted",
    "started",
    "other",
]


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Byte-level damage: flips, insertions, deletions, truncation, splices."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(7)
        at = rng.randrange(len(out) + 1)
        if choice == 0 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif choice == 1:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif choice == 2:
            del out[at : at + rng.randint(1, 16)]
        elif choice == 3:
            del out[at:]
        elif choice == 4:
            out[at:at] = rng.choice([b'"', b"{", b"[", b"\\", b"\\u", b"\n", b",", b":", b"\xc3"])
        elif choice == 5:
            other = rng.choice(CORPUS)
            start = rng.randrange(len(other) + 1)
            out[at:at] = other[start : start + rng.randint(1, 40)]
        else:
            out[at:at] = rng.choice([b"1e999", b"-0", b"NaN", b"Infinity", b"true", b"null"])
    return bytes(out)


def mutate_json(data: bytes, rng: random.Random) -> bytes:
    """Structure-level damage: wrong types, huge numbers, duplicate keys, deep nesting."""
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        obj = {}
    if not isinstance(obj, dict):
        obj = {"value": obj}
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(FIELDS)
        action = rng.randrange(5)
        if action == 0:
            obj[key] = rng.choice(NASTY_VALUES)
        elif action == 1:
            obj.pop(key, None)
        elif action == 2:
            depth = rng.randint(1, 3000)
            obj[key] = json.loads("[" * min(depth, 500) + "]" * min(depth, 500))
        elif action == 3 and isinstance(obj.get("moves"), str):
            moves = obj["moves"]
            i = rng.randrange(len(moves) + 1)
            obj["moves"] = moves[:i] + rng.choice("UDLR") + moves[i + 1 :]
        else:
            obj[key] = rng.choice(NASTY_VALUES)
    text = json.dumps(obj, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.2 and text.endswith("}"):
        key = rng.choice(FIELDS)
        text = text[:-1] + f', "{key}": 1}}'  # a duplicate key, maybe
    if rng.random() < 0.05:
        text = text[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}"
    return text.encode("utf-8", "surrogatepass")


def mutant(rng: random.Random) -> bytes:
    """One fuzz input."""
    base = rng.choice(CORPUS)
    if rng.random() < 0.5:
        return mutate_bytes(base, rng)
    return mutate_json(base, rng)


def check_library(data: bytes, store: Store) -> str:
    """Read, verify and import one input; returns what happened."""
    record: Record | None = None
    error: RecordError | None = None
    try:
        record = Record.from_json(data)
    except RecordError as exc:
        error = exc
    if error is not None:
        assert error.exit_code == 2
        assert "\n" not in error.message
        return "unreadable"
    assert record is not None
    result = verify(record)
    before = [(g.id, g.move_count, g.score) for g in store.list_games(limit=None)]
    try:
        store.import_record(record)
    except ImportRejectedError:
        assert not result.valid
        assert [(g.id, g.move_count, g.score) for g in store.list_games(limit=None)] == before
        return "invalid"
    assert result.valid
    return "valid"
