"""The store contract on a real PostgreSQL server, and eight writers at once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from support.common import ROOT, run_race
from support.pg import fresh_database
from support.store_contract import IntegrityContract, StoreContract

from twenty48_replay import Record
from twenty48_replay.core.errors import StoreError
from twenty48_replay.store import Store
from twenty48_replay.store.connection import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_STATEMENT_TIMEOUT,
    postgresql_connect_args,
)


@pytest.fixture
def db_url() -> Iterator[str]:
    yield from fresh_database()


@pytest.fixture
def db_url_2() -> Iterator[str]:
    yield from fresh_database()


class TestPostgreSQLStore(StoreContract):
    """Every contract test, on PostgreSQL."""


class TestPostgreSQLIntegrity(IntegrityContract):
    """Every integrity contract test (issue 9), on PostgreSQL."""


def test_eight_processes_append_to_twenty_games(db_url: str, tmp_path: Path) -> None:
    long = Record.from_json((ROOT / "tests" / "data" / "long-2000.json").read_text())
    moves = long.moves[:60]
    with Store(db_url) as store:
        ids = [store.new_game(long.seed).id for _ in range(20)]
    results = run_race(db_url, ids, moves, 8, tmp_path)
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


def test_a_statement_that_waits_too_long_is_a_one_line_error(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    Store(db_url).close()
    monkeypatch.setenv("TWENTY48_DB_STATEMENT_TIMEOUT", "1")
    locker = create_engine(db_url)
    with locker.connect() as connection, connection.begin():
        connection.execute(text("LOCK TABLE games IN ACCESS EXCLUSIVE MODE"))
        started = time.monotonic()
        with pytest.raises(StoreError, match="statement timeout"), Store(db_url) as store:
            store.list_games()  # (reading the schema's definitions may already wait)
        assert time.monotonic() - started < 20
    locker.dispose()


def test_timeouts_in_the_url_take_precedence(db_url: str) -> None:
    url = make_url(db_url)
    assert postgresql_connect_args(url) == {
        "connect_timeout": DEFAULT_CONNECT_TIMEOUT,
        "options": f"-c statement_timeout={DEFAULT_STATEMENT_TIMEOUT * 1000}",
    }
    custom = url.update_query_dict({"connect_timeout": "3", "options": "-c statement_timeout=5000"})
    assert postgresql_connect_args(custom) == {}
    with Store(custom.render_as_string(hide_password=False)) as store:
        assert store.list_games() == []


@pytest.mark.parametrize(
    ("statement", "named"),
    [
        (
            "CREATE RULE hide AS ON INSERT TO moves DO ALSO "
            "UPDATE games SET seed = 'gone' WHERE id <> NEW.game_id",
            "unexpected rule moves.hide",
        ),
        ("ALTER TABLE games ENABLE ROW LEVEL SECURITY", "altered table games"),
        ("CREATE VIEW peek AS SELECT seed FROM games", "unexpected view peek"),
        ("ALTER TABLE games ALTER COLUMN score DROP NOT NULL", "altered column games.score"),
    ],
)
def test_postgresql_schema_additions_are_refused(db_url: str, statement: str, named: str) -> None:
    with Store(db_url) as store:
        store.new_game("kept")
    engine = create_engine(db_url)
    with engine.begin() as connection:
        connection.execute(text(statement))
    engine.dispose()
    with pytest.raises(StoreError, match=named):
        Store(db_url)
    with Store(db_url, read_only=True) as inspector:
        report = inspector.check()
    assert f"schema: {named}" in report.problems
