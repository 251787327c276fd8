"""Upgrading an older database of ours to the current schema, in one transaction.

Called only after the whole schema was found to be exactly an older version
(:mod:`twenty48_replay.store.legacy`), inside the caller's write
transaction: either every step lands or none.  Each step takes one version
to the next (:func:`upgrade` runs them in order).
Version 2 adds the score server's ``fair_games`` and ``submitted_records``,
and ``log_digests`` (the SHA-256 of each game's move string,
computed here from the log), stores ``seed`` and ``player`` escaped (see
:func:`~twenty48_replay.store.tables.escape_text`; only values holding
U+0000 or U+0001 change) and, on PostgreSQL, widens both to ``TEXT``.
Version 3 adds ``fair_evidence`` (kept by ``play --server`` when a server
breaks a rule), ``bot_signals`` (the detail of each fair game's bot
signals), ``key_events`` (the server's key history, with its append-only
triggers), ``players``, ``player_keys``, ``game_players`` (filled in for every existing fair
game) and the append-only ``moderation_log`` with its triggers, and has
every analysed fair game analysed again: the signals of version 2 came from
one shallow search only.  The key a version 2 server signed with is
recorded by the next ``twenty48 serve`` that starts with its key file
(:mod:`twenty48_replay.store.server_keys`), as only the key file holds it.
Version 3 also adds the score server's quotas and expiry: ``rate_limits``,
``abandoned_games`` and ``server_leases`` (all empty at first: no game of
version 2 was abandoned, no limit was kept).
"""

from __future__ import annotations

import hashlib
from itertools import groupby

from sqlalchemy import select, text, update
from sqlalchemy.engine import Connection

from twenty48_replay.fairplay.names import name_key
from twenty48_replay.store import dialects
from twenty48_replay.store.tables import (
    SCHEMA_VERSION,
    abandoned_games,
    bot_signals,
    escape_text,
    fair_evidence,
    fair_games,
    game_players,
    key_events,
    log_digests,
    meta,
    moderation_log,
    player_keys,
    players,
    rate_limits,
    server_leases,
    submitted_records,
)


def upgrade(connection: Connection, version: int) -> None:
    """Take a database of schema ``version`` (1 or 2) to the current one, step by step."""
    if version < 2:
        to_v2(connection)
    to_v3(connection)
    _set_version(connection, SCHEMA_VERSION)


def _set_version(connection: Connection, version: int) -> None:
    connection.execute(
        update(meta).where(meta.c.key == "schema_version").values(value=str(version))
    )


def to_v3(connection: Connection) -> None:
    """Version 2 to 3: fair-play evidence; bot-signal detail (every fair game
    analysed again); the server's key history, append-only like the move log;
    player names and the moderation log; the server's quotas and expiry."""
    fair_evidence.create(connection)
    bot_signals.create(connection)
    key_events.create(connection)
    dialects.install_triggers(connection)  # every table's: CREATE ... IF NOT EXISTS / REPLACE
    connection.execute(
        update(fair_games)
        .where(fair_games.c.analysis.in_(("done", "failed", "running")))
        .values(analysis="pending", analysis_ms=None)
    )
    # ---- quotas and expiry
    rate_limits.create(connection)
    abandoned_games.create(connection)
    server_leases.create(connection)
    # ---- end of quotas and expiry
    _names_to_v3(connection)
    _set_version(connection, 3)


def _names_to_v3(connection: Connection) -> None:
    """Player names and moderation: four tables, the log's triggers.

    Every existing fair game gets its name's key; none was played with a
    registered name (there were none).
    """
    players.create(connection)
    player_keys.create(connection)
    game_players.create(connection)
    moderation_log.create(connection)
    dialects.install_triggers(connection)  # idempotent; adds the moderation log's
    rows = connection.execute(select(fair_games.c.id, fair_games.c.player)).all()
    entries = [
        {"fair_id": fair_id, "name_key": name_key(str(player)), "registered": False}
        for fair_id, player in rows
    ]
    if entries:
        connection.execute(game_players.insert(), entries)


def to_v2(connection: Connection) -> None:
    """Turn a version 1 schema and its rows into version 2."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(
            "ALTER TABLE games ALTER COLUMN seed TYPE TEXT, ALTER COLUMN player TYPE TEXT"
        )
    log_digests.create(connection)
    fair_games.create(connection)  # the score server's tables (twenty48 serve)
    submitted_records.create(connection)
    rows = connection.exec_driver_sql("SELECT id, seed, player FROM games").fetchall()
    for game_id, seed, player in rows:
        values = {
            column: escape_text(value)
            for column, value in (("seed", seed), ("player", player))
            if isinstance(value, str) and escape_text(value) != value
        }
        if values:
            sets = ", ".join(f"{column} = :{column}" for column in values)
            connection.execute(
                text(f"UPDATE games SET {sets} WHERE id = :id"), {**values, "id": game_id}
            )
    logs = connection.exec_driver_sql(
        "SELECT game_id, direction FROM moves ORDER BY game_id, seq"
    ).fetchall()
    digests = {
        game_id: hashlib.sha256(
            "".join(str(row[1]) for row in group).encode("utf-8", "surrogatepass")
        ).hexdigest()
        for game_id, group in groupby(logs, key=lambda row: row[0])
    }
    empty = hashlib.sha256(b"").hexdigest()
    entries = [{"game_id": row[0], "digest": digests.get(row[0], empty)} for row in rows]
    if entries:
        connection.execute(log_digests.insert(), entries)
    _set_version(connection, 2)
