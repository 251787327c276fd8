"""Schema version 1, frozen: how an existing database of ours is recognised.

A database is upgraded only if its schema is exactly what version 1
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

V1: int = 1

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
