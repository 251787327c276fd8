"""Options and helpers shared by the commands that use the store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from twenty48_replay.store import Store

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="TWENTY48_DB",
        help="Database file path or SQLAlchemy URL (default: twenty48.sqlite3 in the user "
        "data folder; see 'twenty48 where').",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


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
