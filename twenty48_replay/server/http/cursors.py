"""Opaque page cursors of the list endpoints: where the next page starts.

Every list (``/api/leaderboard``, ``/api/records``) is read a page at a
time in a fixed order, and a page's ``next_cursor`` names the place after
its last entry (keyset paging: a page never repeats or skips an entry
because others were added meanwhile).  The cursor is the place's sort key
as a small JSON array in unpadded base64url, tagged with its list; a
client must treat it as opaque.  A cursor is read as strictly as any
input: bounded length, exact alphabet, exact shape, integers in range,
else a 400 with the reason; a cursor changed by hand can only choose
another place in the same list.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Final

from twenty48_replay.server.api_errors import ApiError

#: Longest cursor accepted (a real one is well under 100 characters).
MAX_CURSOR: Final = 200
#: Largest integer a cursor may hold (every stored number is below it).
MAX_VALUE: Final = 2**62
_ALPHABET: Final = re.compile(r"[A-Za-z0-9_-]{1,200}")


def encode(kind: str, values: tuple[int, ...]) -> str:
    """The cursor of list ``kind`` at the place ``values``."""
    text = json.dumps([kind, *values], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode("ascii")).rstrip(b"=").decode("ascii")


def decode(kind: str, cursor: str, count: int) -> tuple[int, ...]:
    """The place a cursor of list ``kind`` names (``count`` integers), or 400."""
    refused = ApiError(400, f"cursor is not one this server gave for {kind}")
    if len(cursor) > MAX_CURSOR or _ALPHABET.fullmatch(cursor) is None:
        raise refused
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = json.loads(raw.decode("ascii"))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        raise refused from None
    if not (isinstance(value, list) and len(value) == count + 1 and value[0] == kind):
        raise refused
    numbers = value[1:]
    if not all(type(n) is int and 0 <= n <= MAX_VALUE for n in numbers):
        raise refused
    return tuple(numbers)
