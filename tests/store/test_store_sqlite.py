"""The store contract on SQLite files, plus what only SQLite files can get wrong."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.store_contract import IntegrityContract, StoreContract

from twenty48_replay import Direction
from twenty48_replay.core.errors import StoreError
from twenty48_replay.store import Store


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.sqlite3'}"


@pytest.fixture
def db_url_2(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'other.sqlite3'}"


class TestSQLiteStore(StoreContract):
    """Every contract test, on a real SQLite file."""


class TestSQLiteIntegrity(IntegrityContract):
    """Every integrity contract test (issue 9), on a real SQLite file."""


def test_a_plain_path_creates_a_wal_database(tmp_path: Path) -> None:
    path = tmp_path / "plain.sqlite3"
    with Store(str(path)) as store:
        store.new_game("wal")
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.close()


def test_a_new_database_is_for_its_owner_only(tmp_path: Path) -> None:
    # A server's database holds the secret seeds of unfinished games: a server run by
    # hand (umask 022, no systemd UMask) must not leave them readable by every local user.
    import os
    import stat

    path = tmp_path / "server.sqlite3"
    old_umask = os.umask(0o022)
    try:
        with Store(str(path)) as store:
            store.new_game(seed="modes")
            files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
            modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in files if f.exists()}
    finally:
        os.umask(old_umask)
    assert modes[path.name] == 0o600
    assert set(modes.values()) == {0o600}, modes


def test_tamper_through_plain_sqlite3_fails(tmp_path: Path) -> None:
    path = tmp_path / "tamper.sqlite3"
    with Store(str(path)) as store:
        session = store.new_game("null-1")
        session.play(Direction.DOWN)
    connection = sqlite3.connect(path)
    for statement in ("UPDATE moves SET direction = 'U'", "DELETE FROM moves"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute(statement)
    connection.close()


def test_refuses_files_that_are_not_ours(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not an SQLite database"):
        Store(str(garbage))
    other = tmp_path / "other.sqlite3"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY)")
    connection.commit()
    connection.close()
    with pytest.raises(StoreError, match="not a twenty48-replay database"):
        Store(str(other))
    assert other.read_bytes()[:15] == b"SQLite format 3"  # left as it was


def test_unusable_paths(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        Store(str(tmp_path))
    with pytest.raises(StoreError, match="does not exist"):
        Store(str(tmp_path / "missing" / "db.sqlite3"))
    with pytest.raises(StoreError, match="unsupported database"):
        Store("mysql://localhost/x")


def test_locked_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.sqlite3"
    with Store(str(path)) as store:
        session = store.new_game("null-1")  # DOWN is a valid first move for this seed
        locker = sqlite3.connect(path, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(StoreError, match="locked by another process"):
                session.play(Direction.DOWN)
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        assert store.moves(session.id) == ""
        assert session.state.moves == 0


def test_untrusted_files_with_extra_schema_objects_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.sqlite3"
    with Store(str(path)) as store:
        store.new_game("evil")
    connection = sqlite3.connect(path)
    connection.execute("CREATE TRIGGER steal AFTER INSERT ON moves BEGIN DELETE FROM games; END")
    connection.commit()
    connection.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="trigger steal"):
        Store(str(path))
    assert path.read_bytes() == before


def test_connections_run_with_trusted_schema_off(tmp_path: Path) -> None:
    with Store(str(tmp_path / "t.sqlite3")) as store, store.reading() as connection:
        assert connection.exec_driver_sql("PRAGMA trusted_schema").scalar() == 0
