"""Options and helpers shared by the commands that use the store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import typer

from twenty48_replay.core.i18n import N_, _, number
from twenty48_replay.core.text import printable

from .limits import MAX_MOVES

if TYPE_CHECKING:
    from twenty48_replay.store import Store

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="TWENTY48_DB",
        help=N_(
            "Database file path or SQLAlchemy URL (default: twenty48.sqlite3 in the user "
            "data folder; see 'twenty48 where')."
        ),
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help=N_("Machine-readable JSON on stdout."))]


@contextmanager
def open_store(db: str | None, *, read_only: bool = False) -> Iterator[Store]:
    """The store named by ``--db`` / ``TWENTY48_DB`` / the default, closed afterwards.

    SQLAlchemy is imported here, not at start-up, so commands that do not
    touch the database (verify) never pay for it.
    """
    from twenty48_replay.store import Store

    store = Store(db, read_only=read_only)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def open_server_store(db: str | None) -> Iterator[Store]:
    """Like :func:`open_store`, for commands that act on a score server's database.

    ``twenty48 admin`` run without the server's ``--db`` (or with a typo in
    it) would otherwise create a new, empty database and report success in
    it: a ban or a revocation the server never sees.  An SQLite file that
    does not exist is therefore a usage error naming it; nothing is made.
    """
    from sqlalchemy.exc import ArgumentError

    from twenty48_replay.store import Store

    try:
        path = Store.sqlite_file(db)
    except (ArgumentError, ValueError):
        path = None  # not a URL: opening the store reports it
    if path is not None and not path.exists():
        raise typer.BadParameter(
            _(
                "no database at {path}: give the score server's own --db "
                "(its SQLite file or PostgreSQL URL)"
            ).format(path=printable(str(path)))
        )
    with open_store(db) as store:
        yield store


def checked_player(player: str | None) -> str | None:
    """``--player`` as given, or a usage error when it is not text a record can hold.

    Bytes in the command line that are not UTF-8 arrive as lone surrogates,
    which no database driver can encode (a traceback, before this check).
    """
    if player is None:
        return None
    try:
        player.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise typer.BadParameter(
            _("--player {player}: not UTF-8 text (character {position})").format(
                player=printable(player), position=exc.start + 1
            )
        ) from None
    return player


def checked_moves(moves: str) -> str:
    """``--moves`` as upper-case letters (spaces dropped), or a usage error naming a bad one.

    Checked before anything is stored, so a refused move string leaves no
    new game behind; the error quotes the character as it was typed.
    """
    typed = "".join(moves.split())
    if len(typed) > MAX_MOVES:
        raise typer.BadParameter(
            _("--moves: {count} letters, at most {limit}").format(
                count=number(len(typed)), limit=number(MAX_MOVES)
            )
        )
    bad = next((i for i, ch in enumerate(typed) if ch not in "UDLRudlr"), None)
    if bad is not None:
        raise typer.BadParameter(
            _("--moves: letter {letter} at position {position} is not U, D, L or R").format(
                letter=repr(typed[bad]), position=bad + 1
            )
        )
    return typed.upper()


def local_time(ms: int) -> str:
    """A stored timestamp as local 'YYYY-MM-DD HH:MM', whatever the stored value.

    Timestamps come from records (``started``) and may be anything a
    datetime can hold, or not: 0001-01-01 has no local time west of UTC's
    year 1 and 9999-12-31 none east of it.  Such a time is shown in UTC
    with a 'UTC' suffix; one outside years 1-9999 altogether is shown as
    '?' (never an error, so a listing always works).
    """
    try:
        moment = _EPOCH + timedelta(milliseconds=ms)
    except (OverflowError, ValueError, TypeError):
        return "?"
    try:
        return moment.astimezone().strftime("%Y-%m-%d %H:%M")
    except (OverflowError, ValueError, OSError):
        return moment.strftime("%Y-%m-%d %H:%M UTC")


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
