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
version 2 was abandoned, no limit was kept).  Each step creates its tables
as that version had them (:mod:`.legacy`), so a version 2 database goes
through version 3 on its way.
Version 4 chains the moderation log and the key history
(:mod:`~twenty48_replay.store.log_chain`): each existing row gets its
``chain``, computed in order, and ``log_heads`` each log's head.  SQLite
cannot add a column in the form a new table has it (the schema check
compares the text SQLite keeps), so there each of the two tables is
rebuilt: renamed aside, made anew, its rows copied in order with their
``chain``, the old one dropped; PostgreSQL adds the column and fills it.
Their triggers are dropped for the step and made again after it, with
SQLite's new no-REPLACE triggers.
Version 5 adds the leaderboard's two indexes (``games_by_score``,
``fair_games_by_player``) and ``games_by_player``; building them reads
each table once.
Version 6 adds ``player_bests`` (each player's best ranked game, which the
leaderboard reads), built from the games: one read of the ranked games per
board, sorted by player.
"""

from __future__ import annotations

import hashlib
from itertools import groupby

from sqlalchemy import MetaData, select, text, update
from sqlalchemy.engine import Connection

from twenty48_replay.fairplay.names import name_key
from twenty48_replay.store import bests, dialects, log_chain
from twenty48_replay.store.legacy import V3, metadata_v3
from twenty48_replay.store.tables import (
    SCHEMA_VERSION,
    escape_text,
    fair_games,
    log_digests,
    log_heads,
    meta,
    metadata,
    player_bests,
    submitted_records,
)

#: The tables as version 3 made them.
_V3 = metadata_v3.tables


def upgrade(connection: Connection, version: int) -> None:
    """Take a database of schema ``version`` (1 to 5) to the current one, step by step."""
    if version < 2:
        to_v2(connection)
    if version < 3:
        to_v3(connection)
    if version < 4:
        to_v4(connection)
    if version < 5:
        to_v5(connection)
    to_v6(connection)
    _set_version(connection, SCHEMA_VERSION)


def to_v6(connection: Connection) -> None:
    """Version 5 to 6: each player's best ranked game, built from the games (:mod:`.bests`)."""
    player_bests.create(connection)
    bests.rebuild(connection)
    _set_version(connection, 6)


#: The indexes version 5 adds.
V5_INDEXES = (
    ("games", "games_by_score"),
    ("games", "games_by_player"),
    ("fair_games", "fair_games_by_player"),
)


def to_v5(connection: Connection) -> None:
    """Version 4 to 5: the leaderboard's indexes and a player's games'.

    A database coming from version 1 already has ``fair_games_by_player``:
    the step to version 2 makes ``fair_games`` as it is now.
    """
    for table, name in V5_INDEXES:
        (index,) = (i for i in metadata.tables[table].indexes if i.name == name)
        index.create(connection, checkfirst=True)
    _set_version(connection, 5)


def _set_version(connection: Connection, version: int) -> None:
    connection.execute(
        update(meta).where(meta.c.key == "schema_version").values(value=str(version))
    )


def to_v3(connection: Connection) -> None:
    """Version 2 to 3: fair-play evidence; bot-signal detail (every fair game
    analysed again); the server's key history, append-only like the move log;
    player names and the moderation log; the server's quotas and expiry."""
    _V3["fair_evidence"].create(connection)
    _V3["bot_signals"].create(connection)
    _V3["key_events"].create(connection)
    # every table's: CREATE ... IF NOT EXISTS / REPLACE
    dialects.install_triggers(connection, V3)
    connection.execute(
        update(fair_games)
        .where(fair_games.c.analysis.in_(("done", "failed", "running")))
        .values(analysis="pending", analysis_ms=None)
    )
    # ---- quotas and expiry
    _V3["rate_limits"].create(connection)
    _V3["abandoned_games"].create(connection)
    _V3["server_leases"].create(connection)
    # ---- end of quotas and expiry
    _names_to_v3(connection)
    _set_version(connection, 3)


def _names_to_v3(connection: Connection) -> None:
    """Player names and moderation: four tables, the log's triggers.

    Every existing fair game gets its name's key; none was played with a
    registered name (there were none).
    """
    _V3["players"].create(connection)
    _V3["player_keys"].create(connection)
    _V3["game_players"].create(connection)
    _V3["moderation_log"].create(connection)
    dialects.install_triggers(connection, V3)  # idempotent; adds the moderation log's
    rows = connection.execute(select(fair_games.c.id, fair_games.c.player)).all()
    entries = [
        {"fair_id": fair_id, "name_key": name_key(str(player)), "registered": False}
        for fair_id, player in rows
    ]
    if entries:
        connection.execute(_V3["game_players"].insert(), entries)


def to_v4(connection: Connection) -> None:
    """Version 3 to 4: the moderation log and the key history chained, their heads kept."""
    for log in log_chain.LOGS:
        if connection.dialect.name == "postgresql":
            _chain_in_place(connection, log)
        else:
            _chain_by_rebuilding(connection, log)
    log_heads.create(connection)
    log_chain.start(connection)
    dialects.install_triggers(connection)
    _set_version(connection, 4)


def _chain_by_rebuilding(connection: Connection, log: log_chain.ChainedLog) -> None:
    """SQLite: the table renamed aside, made anew, its rows copied in order with their chain."""
    name = log.name
    aside = f"{name}_v3"
    attached = connection.exec_driver_sql(
        "SELECT type, name FROM sqlite_master WHERE tbl_name = ? "
        "AND type IN ('trigger', 'index') AND sql IS NOT NULL",
        (name,),
    ).all()
    for kind, object_name in attached:  # the new table makes its own
        connection.exec_driver_sql(f'DROP {str(kind).upper()} "{object_name}"')
    connection.exec_driver_sql(f'ALTER TABLE "{name}" RENAME TO "{aside}"')
    old = _V3[name].to_metadata(MetaData(), name=aside)
    log.table.create(connection)
    previous = log_chain.GENESIS
    for row in log_chain.rows(connection, log_chain.ChainedLog(old, old.c[log.order.name])):
        previous = log_chain.link(previous, log, row)
        connection.execute(log.table.insert().values(**row, chain=previous))
    connection.exec_driver_sql(f'DROP TABLE "{aside}"')


def _chain_in_place(connection: Connection, log: log_chain.ChainedLog) -> None:
    """PostgreSQL: the column added, filled in order, then made NOT NULL."""
    name = log.name
    triggers = connection.exec_driver_sql(
        "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", (name,)
    ).all()
    for (trigger,) in triggers:  # they refuse the UPDATE; install_triggers makes them again
        connection.exec_driver_sql(f'DROP TRIGGER "{trigger}" ON "{name}"')
    connection.exec_driver_sql(f'ALTER TABLE "{name}" ADD COLUMN chain VARCHAR(64)')
    old = _V3[name]  # the same table without the column: its rows as they were
    previous = log_chain.GENESIS
    for row in log_chain.rows(connection, log_chain.ChainedLog(old, old.c[log.order.name])):
        previous = log_chain.link(previous, log, row)
        position = row[log.order.name]
        connection.execute(update(log.table).where(log.order == position).values(chain=previous))
    connection.exec_driver_sql(f'ALTER TABLE "{name}" ALTER COLUMN chain SET NOT NULL')


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
