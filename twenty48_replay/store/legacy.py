"""Schema versions 1 to 5, frozen: how an existing database of ours is recognised.

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
V3: int = 3
V4: int = 4
V5: int = 5

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

# Version 3: the score server's player names, moderation log, key history, quotas and
# expiry, before the moderation log and the key history were hash-chained (version 4).
metadata_v3 = MetaData()

Table(
    "twenty48_meta",
    metadata_v3,
    Column("key", String(64), primary_key=True),
    Column("value", String(256), nullable=False),
)

Table(
    "games",
    metadata_v3,
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
    metadata_v3,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("direction", String(1), nullable=False),
    Column("played_ms", BigInteger, nullable=True),
    sqlite_with_rowid=False,
)

Table(
    "log_digests",
    metadata_v3,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("digest", String(64), nullable=False),
)

Table(
    "fair_games",
    metadata_v3,
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
    metadata_v3,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("submitted_ms", BigInteger, nullable=False),
)

Table(
    "fair_evidence",
    metadata_v3,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("saved_ms", BigInteger, nullable=False),
    Column("server", LosslessText(2048), nullable=False),
    Column("fair_game_id", BigInteger, nullable=True),
    Column("verdict", LosslessText(2048), nullable=False),
    Column("document", Text, nullable=False),
)

Table(
    "bot_signals",
    metadata_v3,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("analysed_ms", BigInteger, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("choices", Integer, nullable=False),
    Column("best_rung", String(16), nullable=True),
    Column("rungs", Text, nullable=False),
    Column("intervals", Integer, nullable=False),
    Column("dispersion_milli", Integer, nullable=True),
    Column("variation_milli", Integer, nullable=True),
    Column("autocorrelation_milli", Integer, nullable=True),
)

Table(
    "key_events",
    metadata_v3,
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("at_ms", BigInteger, nullable=False),
    Column("event", String(16), nullable=False),
    Column("key_id", String(16), nullable=False),
    Column("public_key", String(64), nullable=True),
    Column("reason", LosslessText(2000), nullable=True),
    Column("actor", LosslessText(200), nullable=False),
    Index("key_events_by_key", "key_id", "event", unique=True),
)

Table(
    "players",
    metadata_v3,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", LosslessText(200), nullable=False),
    Column("name_key", LosslessText(2048), nullable=False, unique=True),
    Column("secret_hash", String(64), nullable=False),
    Column("registered_ms", BigInteger, nullable=False),
)

Table(
    "player_keys",
    metadata_v3,
    Column("key_hash", String(64), primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Index("player_keys_by_player", "player_id"),
)

Table(
    "game_players",
    metadata_v3,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("name_key", LosslessText(2048), nullable=False),
    Column("registered", Boolean, nullable=False),
    Index("game_players_by_key", "name_key"),
)

Table(
    "moderation_log",
    metadata_v3,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("acted_ms", BigInteger, nullable=False),
    Column("actor", LosslessText(200), nullable=False),
    Column("action", String(16), nullable=False),
    Column("fair_id", Integer, nullable=True),
    Column("player", LosslessText(200), nullable=True),
    Column("name_key", LosslessText(2048), nullable=True),
    Column("reason", LosslessText(2048), nullable=False),
    Index("moderation_by_game", "fair_id"),
    Index("moderation_by_key", "name_key"),
)

Table(
    "rate_limits",
    metadata_v3,
    Column("key", String(300), primary_key=True),
    Column("tat_ms", BigInteger, nullable=False),
    Column("granted", Integer, nullable=False),
    Index("rate_limits_by_tat", "tat_ms"),
)

Table(
    "abandoned_games",
    metadata_v3,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("abandoned_ms", BigInteger, nullable=False),
    Column("last_move_ms", BigInteger, nullable=False),
)

Table(
    "server_leases",
    metadata_v3,
    Column("name", String(64), primary_key=True),
    Column("holder", String(128), nullable=False),
    Column("until_ms", BigInteger, nullable=False),
)

metadata_v4 = MetaData()

Table(
    "twenty48_meta",
    metadata_v4,
    Column("key", String(64), primary_key=True),
    Column("value", String(256), nullable=False),
)

Table(
    "games",
    metadata_v4,
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
    metadata_v4,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("direction", String(1), nullable=False),
    Column("played_ms", BigInteger, nullable=True),
    sqlite_with_rowid=False,
)

Table(
    "log_digests",
    metadata_v4,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("digest", String(64), nullable=False),
)

Table(
    "fair_games",
    metadata_v4,
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
    metadata_v4,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("submitted_ms", BigInteger, nullable=False),
)

Table(
    "fair_evidence",
    metadata_v4,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("saved_ms", BigInteger, nullable=False),
    Column("server", LosslessText(2048), nullable=False),
    Column("fair_game_id", BigInteger, nullable=True),
    Column("verdict", LosslessText(2048), nullable=False),
    Column("document", Text, nullable=False),
)

Table(
    "bot_signals",
    metadata_v4,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("analysed_ms", BigInteger, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("choices", Integer, nullable=False),
    Column("best_rung", String(16), nullable=True),
    Column("rungs", Text, nullable=False),
    Column("intervals", Integer, nullable=False),
    Column("dispersion_milli", Integer, nullable=True),
    Column("variation_milli", Integer, nullable=True),
    Column("autocorrelation_milli", Integer, nullable=True),
)

Table(
    "key_events",
    metadata_v4,
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("at_ms", BigInteger, nullable=False),
    Column("event", String(16), nullable=False),
    Column("key_id", String(16), nullable=False),
    Column("public_key", String(64), nullable=True),
    Column("reason", LosslessText(2000), nullable=True),
    Column("actor", LosslessText(200), nullable=False),
    Column("chain", String(64), nullable=False),
    Index("key_events_by_key", "key_id", "event", unique=True),
)

Table(
    "players",
    metadata_v4,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", LosslessText(200), nullable=False),
    Column("name_key", LosslessText(2048), nullable=False, unique=True),
    Column("secret_hash", String(64), nullable=False),
    Column("registered_ms", BigInteger, nullable=False),
)

Table(
    "player_keys",
    metadata_v4,
    Column("key_hash", String(64), primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Index("player_keys_by_player", "player_id"),
)

Table(
    "game_players",
    metadata_v4,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("name_key", LosslessText(2048), nullable=False),
    Column("registered", Boolean, nullable=False),
    Index("game_players_by_key", "name_key"),
)

Table(
    "moderation_log",
    metadata_v4,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("acted_ms", BigInteger, nullable=False),
    Column("actor", LosslessText(200), nullable=False),
    Column("action", String(16), nullable=False),
    Column("fair_id", Integer, nullable=True),
    Column("player", LosslessText(200), nullable=True),
    Column("name_key", LosslessText(2048), nullable=True),
    Column("reason", LosslessText(2048), nullable=False),
    Column("chain", String(64), nullable=False),
    Index("moderation_by_game", "fair_id"),
    Index("moderation_by_key", "name_key"),
)

Table(
    "log_heads",
    metadata_v4,
    Column("log", String(32), primary_key=True),
    Column("length", BigInteger, nullable=False),
    Column("head", String(64), nullable=False),
)

Table(
    "rate_limits",
    metadata_v4,
    Column("key", String(300), primary_key=True),
    Column("tat_ms", BigInteger, nullable=False),
    Column("granted", Integer, nullable=False),
    Index("rate_limits_by_tat", "tat_ms"),
)

Table(
    "abandoned_games",
    metadata_v4,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("abandoned_ms", BigInteger, nullable=False),
    Column("last_move_ms", BigInteger, nullable=False),
)

Table(
    "server_leases",
    metadata_v4,
    Column("name", String(64), primary_key=True),
    Column("holder", String(128), nullable=False),
    Column("until_ms", BigInteger, nullable=False),
)

#: The frozen schema of each older version this program upgrades.
# Version 5: version 4's tables with three more indexes (the leaderboard's and a player's games').
metadata_v5 = MetaData()
for _table in metadata_v4.sorted_tables:
    _table.to_metadata(metadata_v5)
_v5 = metadata_v5.tables
Index("games_by_score", _v5["games"].c.score)
Index("games_by_player", _v5["games"].c.player, _v5["games"].c.updated_ms)
Index("fair_games_by_player", _v5["fair_games"].c.player)

OLDER: dict[int, MetaData] = {
    V1: metadata_v1,
    V2: metadata_v2,
    V3: metadata_v3,
    V4: metadata_v4,
    V5: metadata_v5,
}
