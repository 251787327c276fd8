"""A consistent copy of a live SQLite database (``twenty48 backup``), while it is in use.

SQLite's online backup API copies every page of the database as one read
transaction sees it, so the copy is one moment of the database even while
``twenty48 serve`` keeps committing moves (in WAL mode a reader does not
stop the writer, and the writer does not disturb the reader's snapshot).
The copy is written under a temporary name in the target's folder with
mode 0600 (the database holds the secret server seeds of unfinished games),
checked with SQLite's ``integrity_check``, synced, and only then renamed to
the target: an interrupted backup leaves no partial file under that name.

The target is never a live database: a ``-wal``, ``-shm`` or ``-journal``
file beside it means that a program (a running ``serve``) has it open, or
stopped without closing it, and renaming a copy over it would leave that
program's log beside another database: a malformed database, and the
games it acknowledged lost.  Restoring a copy is a separate step, with the
server stopped (docs/operating.md, "Restoring").

PostgreSQL has its own tools for this (``pg_dump``; see docs/operating.md).
The server's signing key is a separate file and never part of the copy.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from pathlib import Path
from typing import Final

import attrs
from sqlalchemy import Engine

from twenty48_replay.core.errors import StoreError, os_problem
from twenty48_replay.core.i18n import N_
from twenty48_replay.store import dialects


@attrs.frozen(slots=True)
class BackupReport:
    """What was copied: the database's size in bytes and its games.

    ``fair_games`` counts the fair games this database served (``serve``'s
    table); ``signed_records`` the signed fair-play records kept locally from
    a server (``play --server``, an imported signed record): both are among
    ``games``, and they are different things, so a report names each.
    """

    bytes: int
    games: int
    fair_games: int
    signed_records: int = 0


def sqlite_backup(engine: Engine, shown: str, target: Path) -> BackupReport:
    """Copy the SQLite database behind ``engine`` to ``target`` (replaced if it exists).

    The caller has checked that ``target`` is not one of the database's own
    files.  Raises :class:`StoreError` when the copy cannot be made; then
    ``target`` is as it was.
    """
    if engine.dialect.name != "sqlite":
        raise StoreError(
            N_(
                "{db}: twenty48 backup copies SQLite databases; back up PostgreSQL with "
                "pg_dump (see docs/operating.md)"
            ),
            db=shown,
        )
    refuse_live(target)
    folder = target.parent
    temporary = folder / f".{target.name[:100]}.{os.getpid()}.{secrets.token_hex(4)}.part"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    os.close(fd)
    try:
        report = _copy(engine, shown, temporary)
        _sync_file(temporary)
        refuse_live(target)  # again: a server may have opened it during the copy
        os.replace(temporary, target)
        _sync_folder(folder)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    finally:
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{temporary}{suffix}")
    return report


#: The files SQLite keeps beside a database while it is open or being written.
_LIVE_SIDES: Final = ("-wal", "-shm", "-journal")


def live_sides(target: Path) -> list[Path]:
    """The ``-wal``/``-shm``/``-journal`` files beside ``target`` (or the file it links to).

    Empty for anything but a live database: ours are in WAL mode, and SQLite
    removes both side files when the last connection closes cleanly.
    """
    found: list[Path] = []
    for base in dict.fromkeys((str(target), os.path.realpath(target))):
        for suffix in _LIVE_SIDES:
            side = Path(base + suffix)
            if os.path.lexists(side) and side not in found:
                found.append(side)
    return found


def refuse_live(target: Path) -> None:
    """Raise :class:`StoreError` when ``target`` is a live database (see :func:`live_sides`)."""
    sides = live_sides(target)
    if sides:
        raise StoreError(
            N_(
                "{file} is a live database ({side} is beside it: a server has it open, or "
                "stopped without closing it); backup never writes over a live database, not "
                "even with --force: write the copy to a new name, and restore a copy only "
                'with the server stopped (the operator\'s guide, "Restoring")'
            ),
            file=target,
            side=sides[0],
        )


#: Games kept as signed fair-play records: their ``extra`` is an object with a
#: ``signature`` (as :func:`twenty48_replay.store.reads.is_sealed` reads it).
_SIGNED_RECORDS: Final = (
    "SELECT count(*) FROM games WHERE json_valid(extra) "
    "AND json_type(extra) = 'object' AND json_type(extra, '$.signature') IS NOT NULL"
)


def _copy(engine: Engine, shown: str, temporary: Path) -> BackupReport:
    """The backup itself, into the empty file ``temporary``, checked; what it holds."""
    raw = engine.raw_connection()
    try:
        source = raw.driver_connection
        assert isinstance(source, sqlite3.Connection)
        copy = sqlite3.connect(temporary, isolation_level=None)
        try:
            dialects.limit_value_size(copy)
            source.backup(copy)  # all pages in one step: one snapshot of the database
            problems = [str(row[0]) for row in copy.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise StoreError(N_("{db}: the copy failed SQLite's integrity check"), db=shown)
            # A copy of a WAL database is a WAL database: fold its log in and close it,
            # so that the one file holds everything.
            copy.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pages = int(copy.execute("PRAGMA page_count").fetchone()[0])
            size = int(copy.execute("PRAGMA page_size").fetchone()[0])
            games = int(copy.execute("SELECT count(*) FROM games").fetchone()[0])
            fair = int(copy.execute("SELECT count(*) FROM fair_games").fetchone()[0])
            signed = int(copy.execute(_SIGNED_RECORDS).fetchone()[0])
        finally:
            copy.close()
    except sqlite3.Error as exc:
        raise StoreError(N_("{db}: the backup failed: {error}"), db=shown, error=exc) from None
    finally:
        raw.close()
    return BackupReport(pages * size, games, fair, signed)


def _cannot_write(target: Path, exc: OSError) -> StoreError:
    """The backup's file cannot be made or put in place; the OS's reason in words that translate."""
    return StoreError(N_("{file}: cannot write ({reason})"), file=target, reason=os_problem(exc))


def _sync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
