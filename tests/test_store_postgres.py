"""The store contract on a real PostgreSQL server, and eight writers at once."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, wait_for_ready_drivers
from pg import fresh_database
from sqlalchemy import create_engine, text
from store_contract import StoreContract

from twenty48_replay import Record
from twenty48_replay.store import Store


@pytest.fixture
def db_url() -> Iterator[str]:
    yield from fresh_database()


@pytest.fixture
def db_url_2() -> Iterator[str]:
    yield from fresh_database()


class TestPostgreSQLStore(StoreContract):
    """Every contract test, on PostgreSQL."""


def test_eight_processes_append_to_twenty_games(db_url: str, tmp_path: Path) -> None:
    long = Record.from_json((ROOT / "tests" / "data" / "long-2000.json").read_text())
    moves = long.moves[:60]
    with Store(db_url) as store:
        ids = [store.new_game(long.seed).id for _ in range(20)]
    go = tmp_path / "go"
    driver = ROOT / "tests" / "race_driver.py"
    processes = [
        subprocess.Popen(
            [sys.executable, str(driver), db_url, ",".join(map(str, ids)), moves, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    wait_for_ready_drivers(tmp_path, 8)  # every driver holds the games at move 0
    go.touch()
    results = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        results.append(json.loads(out))
    assert sum(r["appended"] for r in results) == 20 * len(moves)
    conflicts = sum(r["conflicts"] for r in results)
    assert conflicts >= 1
    assert all("changed by another process" in r["message"] for r in results if r["conflicts"])
    engine = create_engine(db_url)
    with engine.connect() as connection:
        for game_id in ids:
            seqs = (
                connection.execute(
                    text("SELECT seq FROM moves WHERE game_id = :g ORDER BY seq"), {"g": game_id}
                )
                .scalars()
                .all()
            )
            assert list(seqs) == list(range(1, len(moves) + 1))
    engine.dispose()
    with Store(db_url) as store:
        report = store.check()
        assert report.healthy, report.problems
        assert all(store.moves(game_id) == moves for game_id in ids)
