"""Writing ``export``'s output without ever destroying a database.

``export 1 --db g.db -o g.db`` used to replace the whole database with one
record, and ``-o -`` wrote a file named ``-``.  Now:

* ``-o -`` is standard output;
* the target is refused (usage error, exit 2) when it is the open database
  or one of its ``-wal``, ``-shm`` or ``-journal`` files (compared with
  :func:`os.path.samefile`, so links and other spellings count; by the
  resolved path when one does not exist yet), or when it
  starts like an SQLite database or an SQLite WAL file, ours or not;
* a regular file is written through a temporary file in the same folder,
  synced and renamed over the target, so an error or an interrupt leaves
  either the old file or the whole new one, never a partial file.  Other
  existing targets (``/dev/stdout``, a pipe) are written in place: renaming
  over them would replace the device node itself.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Final

import typer

from twenty48_replay.core.errors import StoreError, os_problem
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.text import printable

SQLITE_HEADER: Final = b"SQLite format 3\x00"
#: The two magic numbers an SQLite write-ahead log starts with.
WAL_MAGIC: Final = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
#: The files SQLite keeps next to a database.
COMPANIONS: Final = ("", "-wal", "-shm", "-journal")


def is_stdout(output: Path | None) -> bool:
    """No ``-o``, or ``-o -``: the data goes to standard output."""
    return output is None or str(output) == "-"


def database_files(database: str | None) -> list[Path]:
    """The files of an SQLite database path (None: no database involved)."""
    if not database or database == ":memory:":
        return []
    return [Path(database + suffix) for suffix in COMPANIONS]


def check_output(output: Path, protected: Iterable[Path]) -> None:
    """Refuse a target that is a database file (see the module docstring)."""
    shown = printable(str(output))
    real = os.path.realpath(output)
    for path in protected:
        try:
            same = os.path.samefile(output, path)
        except OSError:  # either does not exist: a -wal or -shm may appear any time
            same = real == os.path.realpath(path)
        if same:
            raise typer.BadParameter(
                _(
                    "--output {file} is the database's own file ({path}); refusing to write over it"
                ).format(file=shown, path=printable(str(path)))
            )
    try:
        if not stat.S_ISREG(os.stat(output).st_mode):
            # Only a regular file can be a database; opening a pipe to look
            # at it blocked for ever ('-o >(gzip > f)', '-o FIFO': no writer
            # but ourselves, and we had not started writing).
            return
        with open(output, "rb") as existing:
            head = existing.read(len(SQLITE_HEADER))
    except OSError:
        return
    if head == SQLITE_HEADER:
        raise typer.BadParameter(
            _("--output {file} is an SQLite database; refusing to write over it").format(file=shown)
        )
    if head[:4] in WAL_MAGIC:
        raise typer.BadParameter(
            _("--output {file} is an SQLite write-ahead log; refusing to write over it").format(
                file=shown
            )
        )


def write_output(output: Path | None, data: bytes, protected: Iterable[Path] = ()) -> bool:
    """Write ``data`` to ``output`` or stdout; True when it went to a file.

    Raises StoreError (exit 2) when the file cannot be written.
    """
    if output is None or is_stdout(output):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return False
    check_output(output, protected)
    shown = printable(str(output))
    try:
        mode = os.stat(output).st_mode
    except OSError:
        mode = None
    try:
        if mode is not None and stat.S_ISDIR(mode):
            raise StoreError(N_("{file}: is a directory"), file=shown)
        if mode is not None and not stat.S_ISREG(mode):
            with open(output, "wb") as target:
                target.write(data)
        else:
            _replace(output, data, None if mode is None else stat.S_IMODE(mode))
    except OSError as exc:
        raise StoreError(
            N_("{file}: cannot write ({reason})"), file=shown, reason=os_problem(exc)
        ) from None
    return True


def _replace(output: Path, data: bytes, mode: int | None) -> None:
    """Write a temporary file next to ``output``, sync it and rename it over ``output``."""
    import tempfile

    folder = output.parent
    descriptor, temporary = tempfile.mkstemp(
        dir=folder, prefix=f".{output.name[:100]}.", suffix=".part"
    )
    try:
        with os.fdopen(descriptor, "wb") as part:
            part.write(data)
            part.flush()
            os.fsync(part.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        os.replace(temporary, output)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
