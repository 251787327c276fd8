"""Where the signed fair records kept here came from: their server and its game id.

A signed record names its game's id on the server and the server's signing
key (``fair.game_id``, ``fair.key_id``), but not the server's URL, and its
signature covers every key of it, so nothing may be added to the record.
The store therefore keeps, beside the records, the URL last used for each
signing key: one row of the meta table per key (``server-url:<key id>``),
written when ``play --server`` keeps a record.  A record imported from a
file has its key id only.

Finding the local game that holds a server's game ``108`` reads the
candidates a text match on the stored metadata finds (bounded), then checks
each one's parsed ``fair`` object, so a look-alike inside other text never
matches.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import attrs
from sqlalchemy import Connection, delete, func, insert, select

from twenty48_replay.core.record import loads_value
from twenty48_replay.store.reads import is_sealed
from twenty48_replay.store.tables import games, meta

#: Meta rows ``server-url:<16 hex digits>`` hold a signing key's server URL.
KEY_PREFIX: Final = "server-url:"
#: The meta table's value column holds this much; a longer URL is not remembered.
MAX_URL: Final = 256
#: How many stored games one lookup by server game id reads at most.
MAX_CANDIDATES: Final = 1_000
#: How many remembered servers are read at most.
MAX_SERVERS: Final = 1_000
_KEY_ID: Final = re.compile(r"[0-9a-f]{16}")

ServerGameId = int | str


@attrs.frozen
class FairOrigin:
    """A kept fair game's id on its server and the server's signing key id."""

    game_id: ServerGameId
    key_id: str


def fair_origin(extra: dict[str, Any] | None) -> FairOrigin | None:
    """The origin of a sealed game (its ``extra`` as stored), or None for any other."""
    if not is_sealed(extra):
        return None
    assert extra is not None
    fair = extra.get("fair")
    if not isinstance(fair, dict):
        return None
    game_id, key_id = fair.get("game_id"), fair.get("key_id")
    if isinstance(game_id, bool) or not isinstance(game_id, int | str):
        return None
    if not isinstance(key_id, str) or not _KEY_ID.fullmatch(key_id):
        return None
    return FairOrigin(game_id, key_id)


def remember_server(connection: Connection, key_id: str, url: str) -> bool:
    """Keep ``url`` as the server of ``key_id``; False (nothing written) if it cannot be kept."""
    if not _KEY_ID.fullmatch(key_id) or not url or len(url) > MAX_URL:
        return False
    key = KEY_PREFIX + key_id
    connection.execute(delete(meta).where(meta.c.key == key))
    connection.execute(insert(meta).values(key=key, value=url))
    return True


def server_urls(connection: Connection) -> dict[str, str]:
    """Key id -> the URL last remembered for it."""
    rows = connection.execute(
        select(meta.c.key, meta.c.value)
        .where(meta.c.key.startswith(KEY_PREFIX, autoescape=True))
        .where(func.length(meta.c.value) <= MAX_URL)
        .order_by(meta.c.key)
        .limit(MAX_SERVERS)
    )
    found: dict[str, str] = {}
    for key, value in rows:
        key_id = str(key).removeprefix(KEY_PREFIX)
        if _KEY_ID.fullmatch(key_id) and isinstance(value, str):
            found[key_id] = value
    return found


def games_from_server(
    connection: Connection, game_id: ServerGameId, key_id: str | None = None
) -> list[int]:
    """Local ids of the kept fair games with this server game id (of this key, if given)."""
    needle = '"game_id":' + json.dumps(game_id, ensure_ascii=True)
    query = (
        select(games.c.id, games.c.extra)
        .where(games.c.extra.contains(needle, autoescape=True))
        .where(games.c.extra.contains('"signature"', autoescape=True))
        .order_by(games.c.id)
        .limit(MAX_CANDIDATES)
    )
    found: list[int] = []
    for local_id, stored in connection.execute(query):
        origin = fair_origin(_parsed(stored))
        if origin is None or type(origin.game_id) is not type(game_id):
            continue
        if origin.game_id == game_id and (key_id is None or origin.key_id == key_id):
            found.append(int(local_id))
    return found


def _parsed(stored: object) -> dict[str, Any] | None:
    """A stored ``extra`` as a dict, or None (damaged rows are ``check``'s to report)."""
    try:
        value = loads_value(stored) if isinstance(stored, str) else None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
