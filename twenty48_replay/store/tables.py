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

# Provably fair games played through ``twenty48 serve`` (see twenty48_replay.server).
# The moves themselves live in ``moves``/``games`` like every other game; this
# row holds what only a fair game has.  ``server_seed`` is secret until
# ``finished_ms`` is set; the bearer token is kept only as its SHA-256.
fair_games = Table(
    "fair_games",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player", String(200), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("server_seed", String(64), nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("key_id", String(200), nullable=False),
    Column("client_seed", Text, nullable=True),
    Column("game_id", Integer, ForeignKey("games.id"), nullable=True, unique=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("started_ms", BigInteger, nullable=True),
    Column("finished_ms", BigInteger, nullable=True),
    # The signed record, exactly as served by GET /api/games/{id}/record.
    Column("record", Text, nullable=True),
    # Bot signals, computed off the request path after the game finished:
    # "pending" -> "running" -> "done" (or "failed").
    Column("analysis", String(16), nullable=True),
    Column("analysis_ms", BigInteger, nullable=True),
    Column("engine_matches", Integer, nullable=True),
    Column("engine_checked", Integer, nullable=True),
    Column("median_interval_ms", Integer, nullable=True),
    Index("fair_games_by_finished", "finished_ms"),
    Index("fair_games_by_analysis", "analysis"),
)

# Self-seeded records submitted to a server (POST /api/records): stored as
# ordinary games, listed apart from the fair leaderboard.
submitted_records = Table(
    "submitted_records",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("submitted_ms", BigInteger, nullable=False),
)
