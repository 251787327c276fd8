"""Clock readings as the store and the server keep them: integer milliseconds, RFC 3339 text.

Pure functions over the standard library, so a command that only shows a
time (``show``, ``list``, the server's answers) never loads the store's
SQL machinery to do it.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any, Final

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def now_ms() -> int:
    """Wall-clock time in integer milliseconds (how the store keeps time)."""
    return time.time_ns() // 1_000_000


def iso_ms(ms: int) -> str | None:
    """RFC 3339 UTC timestamp with milliseconds (None if no datetime can hold it)."""
    try:
        moment = _EPOCH + timedelta(milliseconds=ms)
    except (OverflowError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso_ms(text: object) -> int | None:
    """Milliseconds of an RFC 3339 timestamp, or None if it is not one."""
    if not isinstance(text, str):
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return (parsed - _EPOCH) // timedelta(milliseconds=1)
    except (OverflowError, ValueError):  # e.g. 0001-01-01T00:00:00+01:00 is in year 0
        return None


def record_times(extra: dict[str, Any]) -> tuple[int | None, int | None]:
    """A record's own (start, end) from its ``started`` / ``finished``, in milliseconds.

    An imported game keeps them as its created and last-move times, so
    ``list`` and ``show`` give when the game was played, not when it was
    imported (schema v2 has the columns; the metadata itself is kept in
    ``extra``).  One missing stands in for the other; None where the record
    has neither (or no timestamp the store can read): the import time.
    """
    started, finished = parse_iso_ms(extra.get("started")), parse_iso_ms(extra.get("finished"))
    return (
        started if started is not None else finished,
        finished if finished is not None else started,
    )
