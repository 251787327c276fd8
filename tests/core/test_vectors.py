"""The checked-in test vectors of schema/vectors/, replayed by every path we have."""

from __future__ import annotations

import hmac
from typing import Any

import pytest
from support import reference_impl as ref
from support.common import VECTORS, load_json

from twenty48_replay import Board, Record, SpawnRng, replay, verify
from twenty48_replay.bulk.batch import verify_raw
from twenty48_replay.bulk.sources import read_raw, read_records
from twenty48_replay.core.engine import run

GAMES: list[dict[str, Any]] = load_json(VECTORS / "games.json")["games"]
SPAWNS: list[dict[str, Any]] = load_json(VECTORS / "spawns.json")["spawns"]


def test_vector_set_covers_the_contract() -> None:
    seeds = [g["seed"] for g in GAMES]
    assert len(seeds) >= 5
    assert any(not s.isascii() for s in seeds)
    assert any(len(s) == 128 for s in seeds)
    assert all(len(g["moves"]) >= 300 for g in GAMES)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g["seed"][:12])
def test_library_replay_matches_every_step(game: dict[str, Any]) -> None:
    record = Record(game["seed"], game["moves"], game["final"]["score"])
    steps = [s.to_json() for s in replay(record)]
    assert steps == game["steps"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g["seed"][:12])
def test_reference_replay_matches_every_step(game: dict[str, Any]) -> None:
    steps, null_move = ref.replay(game["seed"], game["moves"])
    assert null_move is None
    opening = game["opening"]
    assert ref.spawn(game["seed"], 0, [[0] * 4 for _ in range(4)]) == (
        opening[0]["cell"],
        opening[0]["value"],
    )
    for mine, theirs in zip(steps, game["steps"], strict=True):
        assert [list(r) for r in mine.board] == theirs["board"]
        assert mine.score == theirs["score"]
        assert mine.gained == theirs["gained"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g["seed"][:12])
def test_fast_engine_and_verify_match_the_final_step(game: dict[str, Any]) -> None:
    last = game["steps"][-1]
    outcome = run(game["seed"], game["moves"])
    assert outcome.null_move is None
    assert outcome.moves == len(game["moves"])
    assert outcome.score == last["score"]
    assert Board(outcome.state & (2**80 - 1)).to_rows() == last["board"]
    result = verify(
        Record(
            game["seed"],
            game["moves"],
            last["score"],
            max_tile=game["final"]["max_tile"],
            final_board=last["board"],
        )
    )
    assert result.valid, result.reasons
    assert (result.won, result.over) == (game["final"]["won"], game["final"]["over"])


@pytest.mark.parametrize("vector", SPAWNS, ids=lambda v: f"{v['seed'][:8]}-{v['k']}")
def test_single_spawns(vector: dict[str, Any]) -> None:
    key = vector["seed"].encode("utf-8")
    digest = hmac.digest(key, vector["k"].to_bytes(8, "big"), "sha256")
    assert digest.hex() == vector["hmac"]
    rng = SpawnRng(vector["seed"])
    assert rng.digest(vector["k"]) == digest
    board = Board.from_rows(vector["board"])
    assert rng.spawn(vector["k"], board.empty_cells()) == (vector["cell"], vector["value"])
    assert ref.spawn(vector["seed"], vector["k"], vector["board"]) == (
        vector["cell"],
        vector["value"],
    )


RECORDS = VECTORS / "records"
EXPECTED_RECORDS: dict[str, str] = load_json(RECORDS / "expected.json")
EXPECTED_INPUTS: dict[str, dict[str, Any]] = load_json(RECORDS / "inputs.json")["inputs"]
EXPECTED_CODES: dict[str, list[dict[str, Any]]] = load_json(RECORDS / "codes.json")["codes"]


def test_every_record_vector_has_its_expected_outcome() -> None:
    """SPEC 9.3: each sample is described once, in expected.json or inputs.json."""
    files = {p.name for p in RECORDS.iterdir()} - {"expected.json", "inputs.json", "codes.json"}
    assert files == set(EXPECTED_RECORDS) | set(EXPECTED_INPUTS)
    assert not set(EXPECTED_RECORDS) & set(EXPECTED_INPUTS)
    assert all(name.endswith(".json") for name in EXPECTED_RECORDS)


@pytest.mark.parametrize("name", sorted(EXPECTED_RECORDS))
def test_record_vectors_through_the_library(name: str) -> None:
    items = list(read_records(str(RECORDS / name)))
    assert len(items) == 1
    item = items[0]
    assert item.index == 1
    if item.record is None:
        assert EXPECTED_RECORDS[name] == "unreadable", item.error
    else:
        assert EXPECTED_RECORDS[name] == ("valid" if verify(item.record).valid else "invalid")


def test_codes_json_lists_every_invalid_sample_with_its_reason_codes() -> None:
    """SPEC 8.8 and 9.3: the codes are what ``verify --json`` gives, in order."""
    invalid = {name for name, outcome in EXPECTED_RECORDS.items() if outcome == "invalid"}
    assert set(EXPECTED_CODES) == invalid
    for name, codes in EXPECTED_CODES.items():
        (raw,) = read_raw(str(RECORDS / name))
        assert verify_raw(raw, None)["reason_codes"] == codes, name


def test_final_board_rows_and_columns_count_from_one() -> None:
    """SPEC 8.8: row 1 is final_board[0]; the vectors change [2][3], then [1][2] and [3][0]."""
    (one,) = EXPECTED_CODES["tampered-final-board-cell.json"]
    assert one["code"] == "claim.final_board_cell"
    assert (one["params"]["row"], one["params"]["column"]) == (3, 4)
    (two,) = EXPECTED_CODES["tampered-final-board.json"]
    assert two["code"] == "claim.final_board"
    assert (two["params"]["cells"], two["params"]["row"], two["params"]["column"]) == (2, 2, 3)
    claimed = load_json(RECORDS / "tampered-final-board-cell.json")["final_board"]
    assert claimed[2][3] == one["params"]["claimed"]
