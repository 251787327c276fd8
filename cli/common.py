"""Options and helpers shared by the commands that use the store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
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
def open_store(db: str | None) -> Iterator[Store]:
    """The store named by ``--db`` / ``TWENTY48_DB`` / the default, closed afterwards.

    SQLAlchemy is imported here, not at start-up, so commands that do not
    touch the database (verify) never pay for it.
    """
    from twenty48_replay.store import Store

    store = Store(db)
    try:
        yield store
    finally:
        store.close()


def local_time(ms: int) -> str:
    """A stored timestamp as local 'YYYY-MM-DD HH:MM'."""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")
