"""Checkpoints off the commit path (issue 18): a thread copies SQLite's log into the database.

A real SQLite file and a real checkpointer thread: :meth:`Store.checkpoint`
copies all of the log without waiting for anyone; a failing checkpoint is
said once in the log and the thread goes on (commits still checkpoint).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from pathlib import Path

import pytest

from twenty48_replay import Direction
from twenty48_replay.core.errors import NullMoveError, StoreError
from twenty48_replay.server.writes.checkpoints import Checkpointer
from twenty48_replay.store import Store


def play_some(store: Store, games: int = 20) -> None:
    for i in range(games):
        session = store.new_game(seed=f"checkpoint-{i}")
        for direction in (Direction.LEFT, Direction.UP, Direction.RIGHT, Direction.DOWN) * 5:
            with contextlib.suppress(NullMoveError):
                session.play(direction)


def frames_left(path: Path) -> tuple[int, int]:
    """(frames in the log, frames of it in the database file) seen by a connection of our own."""
    with sqlite3.connect(path) as raw:
        _busy, log, done = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(log), int(done)


def test_checkpoint_copies_the_whole_log(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = Store(str(path))
    try:
        assert store.can_checkpoint()
        play_some(store)
        assert os.path.getsize(str(path) + "-wal") > 0
        store.checkpoint()
        log, done = frames_left(path)
        assert log == done  # our own checkpoint found nothing left to copy
        assert store.game_info(1).move_count > 0
    finally:
        store.close()
    reopened = Store(str(path))
    try:
        assert reopened.check().healthy
    finally:
        reopened.close()


def test_a_database_in_memory_keeps_sqlites_own_checkpoints() -> None:
    store = Store(":memory:")
    try:
        assert not store.can_checkpoint()
        store.checkpoint()  # nothing to do, no error
    finally:
        store.close()


def test_postgresql_needs_no_checkpointer() -> None:
    url = os.environ.get("TWENTY48_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("no PostgreSQL (TWENTY48_TEST_POSTGRES_URL)")
    store = Store(url)
    try:
        assert not store.can_checkpoint()
        store.checkpoint()
    finally:
        store.close()


def test_the_checkpointer_thread_copies_while_games_are_played(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = Store(str(path))
    try:
        assert store.can_checkpoint()
        checkpointer = Checkpointer(store, interval_s=0.05)
        checkpointer.start()
        play_some(store, games=10)
        deadline = time.monotonic() + 10
        while checkpointer.checkpoints < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        checkpointer.stop()
        assert checkpointer.checkpoints >= 2
        assert not checkpointer._thread.is_alive()
        log, done = frames_left(path)
        assert log == done  # the last checkpoint ran after the last commit
    finally:
        store.close()


class FailingStore:
    """A store whose database refuses checkpoints (a disk gone away)."""

    def __init__(self) -> None:
        self.calls = 0

    def checkpoint(self) -> None:
        self.calls += 1
        raise StoreError("games.sqlite3: disk I/O error")


def test_a_failing_checkpoint_is_said_once_and_the_thread_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    failing = FailingStore()
    checkpointer = Checkpointer(failing, interval_s=0.01)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="twenty48.server"):
        checkpointer.start()
        deadline = time.monotonic() + 10
        while failing.calls < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        checkpointer.stop()
    assert failing.calls >= 5
    said = [r.getMessage() for r in caplog.records if "checkpoint failed" in r.getMessage()]
    assert said == ["checkpoint failed (commits still checkpoint): games.sqlite3: disk I/O error"]
