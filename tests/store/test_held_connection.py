"""The connection the server's writer keeps between transactions, and SQLite's sync setting.

Real SQLite files: the kept connection is the same driver connection from one
transaction to the next, a driver error gives it up (the next transaction checks
one out again), and every write transaction is durable at commit (``synchronous=FULL``)
whatever a bulk import set on the same pooled connection before.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Connection

from twenty48_replay.core.errors import StoreError
from twenty48_replay.store import Store

FULL = 2  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL


def driver(connection: Connection) -> Any:
    return connection.connection.driver_connection


def synchronous(connection: Connection) -> int:
    return int(connection.exec_driver_sql("PRAGMA synchronous").scalar_one())


def test_the_kept_connection_is_the_same_from_one_transaction_to_the_next(
    tmp_path: Path,
) -> None:
    with Store(str(tmp_path / "kept.sqlite3")) as store:
        held = store.held_connection()
        try:
            with held.transaction() as connection:
                first = driver(connection)
                assert synchronous(connection) == FULL
            with held.transaction() as connection:
                assert driver(connection) is first
                assert synchronous(connection) == FULL
        finally:
            held.close()


def test_a_driver_error_gives_the_connection_back_and_the_next_transaction_takes_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "busy.sqlite3"
    with Store(str(path)) as store:
        held = store.held_connection()
        try:
            with held.transaction() as connection:
                first = connection
                connection.exec_driver_sql("PRAGMA busy_timeout = 50")  # fail fast below
            blocker = sqlite3.connect(path, isolation_level=None)
            blocker.execute("BEGIN EXCLUSIVE")
            try:
                with pytest.raises(StoreError, match="locked"), held.transaction():
                    pass
            finally:
                blocker.execute("ROLLBACK")
                blocker.close()
            assert first.closed  # given back to the pool (which drops it if it was broken)
            with held.transaction() as connection:
                assert connection is not first
                assert synchronous(connection) == FULL
        finally:
            held.close()


def test_a_write_after_a_bulk_import_on_the_same_pooled_connection_is_durable(
    tmp_path: Path,
) -> None:
    """store.batch() relaxes the sync of its transactions; the pool's next user gets FULL back
    (the setting is stated only when it changes, from what the pool's record of it says)."""
    with Store(str(tmp_path / "pool.sqlite3")) as store:
        with store.batch(), store.transaction() as connection:
            relaxed = driver(connection)
            assert synchronous(connection) == 1
        with store.transaction() as connection:
            assert driver(connection) is relaxed  # the pool gave the same one back
            assert synchronous(connection) == FULL
        with store.batch(), store.transaction() as connection:
            assert synchronous(connection) == 1
        held = store.held_connection()
        try:
            with held.transaction() as connection:
                assert synchronous(connection) == FULL
        finally:
            held.close()
