"""Schema versions 1 and 2, frozen: how an existing database of ours is recognised.

A database is upgraded only if its schema is exactly what an older version
created (compared the same way as the current schema), so nothing but our
own, unaltered files is ever changed by an upgrade.  Never edit these
definitions: they describe files that exist.
"""

from __future__ import annotations

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

from twenty48_replay.store.tables import LosslessText

V1: int = 1
V2: int = 2

metadata_v1 = MetaData()

Table(
    "twenty48_meta",
    metadata_v1,
    Column("key", String(64), primary_key=True),
    Column("value", String(256), nullable=False),
)

Table(
    "games",
    metadata_v1,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("seed", String(512), nullable=False),
    Column("rules_version", Integer, nullable=False),
    Column("player", String(200), nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    Column("move_count", Integer, nullable=False, default=0),
    Column("score", BigInteger, nullable=False, default=0),
    Column("max_tile", Integer, nullable=False),
    Column("board", String(20), nullable=False),
    Column("won", Boolean, nullable=False, default=False),
    Column("over", Boolean, nullable=False, default=False),
    Column("assisted", Boolean, nullable=False, default=False),
    Column("extra", Text, nullable=True),
    Index("games_by_seed", "seed"),
    Index("games_by_updated", "updated_ms"),
)

Table(
    "moves",
    metadata_v1,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("direction", String(1), nullable=False),
    Column("played_ms", BigInteger, nullable=True),
    sqlite_with_rowid=False,
)

metadata_v2 = MetaData()

Table(
    "twenty48_meta",
    metadata_v2,
    Column("key", String(64), primary_key=True),
    Column("value", String(256), nullable=False),
)

Table(
    "games",
    metadata_v2,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("seed", LosslessText(512), nullable=False),
    Column("rules_version", Integer, nullable=False),
    Column("player", LosslessText(200), nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    Column("move_count", Integer, nullable=False, default=0),
    Column("score", BigInteger, nullable=False, default=0),
    Column("max_tile", Integer, nullable=False),
    Column("board", String(20), nullable=False),
    Column("won", Boolean, nullable=False, default=False),
    Column("over", Boolean, nullable=False, default=False),
    Column("assisted", Boolean, nullable=False, default=False),
    Column("extra", Text, nullable=True),
    Index("games_by_seed", "seed"),
    Index("games_by_updated", "updated_ms"),
)

Table(
    "moves",
    metadata_v2,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("direction", String(1), nullable=False),
    Column("played_ms", BigInteger, nullable=True),
    sqlite_with_rowid=False,
)

Table(
    "log_digests",
    metadata_v2,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("digest", String(64), nullable=False),
)

Table(
    "fair_games",
    metadata_v2,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player", String(200), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("server_seed", String(64), nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("key_id", String(200), nullable=False),
    Column("client_seed", LosslessText(512), nullable=True),
    Column("game_id", Integer, ForeignKey("games.id"), nullable=True, unique=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("started_ms", BigInteger, nullable=True),
    Column("finished_ms", BigInteger, nullable=True),
    Column("record", Text, nullable=True),
    Column("analysis", String(16), nullable=True),
    Column("analysis_ms", BigInteger, nullable=True),
    Column("engine_matches", Integer, nullable=True),
    Column("engine_checked", Integer, nullable=True),
    Column("median_interval_ms", Integer, nullable=True),
    Index("fair_games_by_finished", "finished_ms"),
    Index("fair_games_by_analysis", "analysis"),
)

Table(
    "submitted_records",
    metadata_v2,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("submitted_ms", BigInteger, nullable=False),
)

#: The frozen schema of each older version this program upgrades.
OLDER: dict[int, MetaData] = {V1: metadata_v1, V2: metadata_v2}
