"""The database schema: games with their projection, and the append-only move log.

Portable SQLAlchemy Core; everything specific to one database (pragmas,
triggers, transaction modes) lives in :mod:`twenty48_replay.store.dialects`.
Times are integer milliseconds since the Unix epoch, which every backend
stores the same way.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

#: Bumped whenever the schema changes; a newer database is refused.
SCHEMA_VERSION: Final = 1
APPLICATION: Final = "twenty48-replay"

metadata = MetaData()

meta = Table(
    "twenty48_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", String(256), nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("seed", String(512), nullable=False),
    Column("rules_version", Integer, nullable=False),
    Column("player", String(200), nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    # Projection of the log, updated in the same transaction as each append.
    Column("move_count", Integer, nullable=False, default=0),
    Column("score", BigInteger, nullable=False, default=0),
    Column("max_tile", Integer, nullable=False),
    Column("board", String(20), nullable=False),  # packed board, hex (see rows.py)
    Column("won", Boolean, nullable=False, default=False),
    Column("over", Boolean, nullable=False, default=False),
    Column("assisted", Boolean, nullable=False, default=False),
    # Other top-level record keys (imported records), JSON, kept for export.
    Column("extra", Text, nullable=True),
    Index("games_by_seed", "seed"),
    Index("games_by_updated", "updated_ms"),
)

moves = Table(
    "moves",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("direction", String(1), nullable=False),
    Column("played_ms", BigInteger, nullable=True),
    sqlite_with_rowid=False,
)
