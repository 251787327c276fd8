"""A database whose checkpoint was cut short by a crash still opens as ours.

A checkpoint copies pages from the write-ahead log into the main file in
page order.  A process killed half-way (``SIGKILL`` of ``serve``, whose
checkpointer runs every 0.25 s) leaves a main file that is consistent only
together with its log; the next normal open replays the log.  The marker
check that runs before that open read the main file alone and called such a
file "not a twenty48-replay database (database disk image is malformed)":
a server killed under load could not be started again
(tests/server/test_server_faults.py caught it once in CI).  Here the state is built
exactly: the log holds a new root page of the schema table whose leaves lie
past the main file's end, and only that root page was copied.
"""

from __future__ import annotations

import shutil
import sqlite3
import struct
from pathlib import Path

import pytest

from twenty48_replay.core.errors import StoreError
from twenty48_replay.store import Store
from twenty48_replay.store import connection as store_connection

WAL_HEADER = 32
FRAME_HEADER = 24


def last_frame_of_page(wal: Path, page: int) -> bytes:
    """The newest copy of ``page`` in a write-ahead log (SQLite's file format, section 4)."""
    data = wal.read_bytes()
    size = struct.unpack(">I", data[8:12])[0]
    found = b""
    at = WAL_HEADER
    while at + FRAME_HEADER + size <= len(data):
        number = struct.unpack(">I", data[at : at + 4])[0]
        if number == page:
            found = data[at + FRAME_HEADER : at + FRAME_HEADER + size]
        at += FRAME_HEADER + size
    assert found, f"page {page} is not in the log"
    return found


@pytest.fixture
def half_checkpointed(tmp_path: Path) -> Path:
    """A copy of a live database, its log and index, with only page 1 checkpointed."""
    live = tmp_path / "live.sqlite3"
    Store(str(live)).close()
    writer = sqlite3.connect(live)
    try:
        writer.execute("PRAGMA wal_autocheckpoint = 0")  # everything stays in the log
        for i in range(80):  # the schema table outgrows page 1: page 1 becomes its root
            writer.execute(f"CREATE TABLE filler_{i} (value TEXT)")
        writer.commit()
        crashed = tmp_path / "crashed"
        crashed.mkdir()
        for suffix in ("", "-wal", "-shm"):  # the files as a killed process leaves them
            shutil.copyfile(f"{live}{suffix}", crashed / f"games.sqlite3{suffix}")
    finally:
        writer.close()
    path = crashed / "games.sqlite3"
    page = last_frame_of_page(Path(f"{path}-wal"), 1)
    with path.open("r+b") as main:  # the checkpoint got as far as page 1
        main.write(page)
    return path


def test_the_main_file_alone_is_half_copied(half_checkpointed: Path) -> None:
    """The state under test: read alone, the main file is malformed."""
    alone = sqlite3.connect(f"file:{half_checkpointed}?mode=ro&immutable=1", uri=True)
    try:
        with pytest.raises(sqlite3.DatabaseError):
            alone.execute("SELECT count(*) FROM sqlite_master").fetchall()
    finally:
        alone.close()


def test_a_checkpoint_cut_short_is_read_through_the_log(half_checkpointed: Path) -> None:
    before = half_checkpointed.read_bytes()
    store_connection._require_marker(half_checkpointed, "games.sqlite3")  # ours: no error
    assert half_checkpointed.read_bytes() == before  # the main file was only read
    whole = sqlite3.connect(half_checkpointed)  # a normal open replays the log: all there
    try:
        assert whole.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        names = {row[0] for row in whole.execute("SELECT name FROM sqlite_master")}
        assert "filler_79" in names
    finally:
        whole.close()


def test_without_its_log_a_half_copied_file_is_still_refused(half_checkpointed: Path) -> None:
    """No log, nothing to replay: the file is what it is, and is refused in one line."""
    Path(f"{half_checkpointed}-wal").unlink()
    Path(f"{half_checkpointed}-shm").unlink()
    with pytest.raises(StoreError, match="not a twenty48-replay database"):
        store_connection._require_marker(half_checkpointed, "games.sqlite3")
