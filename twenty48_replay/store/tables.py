"""The database schema: games with their projection, and the append-only move log.

Portable SQLAlchemy Core; everything specific to one database (pragmas,
triggers, transaction modes) lives in :mod:`twenty48_replay.store.dialects`.
Times are integer milliseconds since the Unix epoch, which every backend
stores the same way.  This module is the one source of truth for the
schema: :mod:`twenty48_replay.store.schema` derives the exact schema a
database must have from ``metadata`` (plus the dialect's triggers), so a
table added here is checked on open without further work.

Schema history: version 1 had no ``log_digests``; version 2 adds it (the
SHA-256 of each game's move string, kept with the projection) and stores
``seed`` and ``player`` losslessly (see :class:`LosslessText`), with the
score server's ``fair_games`` and ``submitted_records``; version 3 adds
``fair_evidence`` (what a fair-play client keeps when a server breaks a
rule), ``bot_signals`` (the detail of each fair game's bot signals),
``key_events`` (the keys the server signed with, and revocations),
``players``, ``player_keys``, ``game_players`` and ``moderation_log``
(registered names and the keys they claim, who each fair game was played
as, and the append-only moderation log), and
the server's quotas and expiry (``rate_limits``, ``abandoned_games``,
``server_leases``); version 4 chains the moderation log and the key history
(each row's ``chain``, and ``log_heads``: see
:mod:`twenty48_replay.store.log_chain`); version 5 adds two indexes for the
leaderboard (``games_by_score``, ``fair_games_by_player``: see
:mod:`twenty48_replay.store.fair_games.leaderboard`) and one for a player's
games (``games_by_player``); version 6 adds ``player_bests`` (each player's best
ranked game, kept with every write that changes it: see
:mod:`twenty48_replay.store.bests`).  Earlier versions are
frozen in :mod:`twenty48_replay.store.legacy`.
"""

from __future__ import annotations

import re
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.types import TypeDecorator, TypeEngine

from twenty48_replay import __version__
from twenty48_replay.core.board import Board

#: Bumped whenever the schema changes; a newer database is refused.
SCHEMA_VERSION: Final = 6
APPLICATION: Final = "twenty48-replay"
#: The ``client`` of the records this program writes (exported games, signed fair records).
CLIENT: Final = f"{APPLICATION} {__version__}"

_ESCAPE: Final = "\x01"
_NEEDS_ESCAPE: Final = re.compile("[\x00\x01\ud800-\udfff]")
_ESCAPED: Final = re.compile("\x01(.)", re.DOTALL)
_SURROGATE_BASE: Final = 0xF0000  # plane 15 (private use) stands in for U+D800..U+DFFF


def escape_text(value: str) -> str:
    """``value`` in a form every backend stores: no NUL, no lone surrogate.

    PostgreSQL text cannot hold NUL and no UTF-8 database can hold a lone
    surrogate, yet both are valid in a record (SPEC 6.3).  Each such
    character, and the escape character U+0001 itself, becomes U+0001
    plus one stand-in character; every other string is stored unchanged,
    so ordinary values stay readable and comparable in SQL.
    """
    return _NEEDS_ESCAPE.sub(_escape_one, value)


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\x00":
        return _ESCAPE + "0"
    if char == _ESCAPE:
        return _ESCAPE + "1"
    return _ESCAPE + chr(_SURROGATE_BASE + ord(char) - 0xD800)


def unescape_text(stored: str) -> str:
    """The inverse of :func:`escape_text` (a malformed escape is kept as it is)."""
    if _ESCAPE not in stored:
        return stored
    return _ESCAPED.sub(_unescape_one, stored)


def _unescape_one(match: re.Match[str]) -> str:
    code = match.group(1)
    if code == "0":
        return "\x00"
    if code == "1":
        return _ESCAPE
    offset = ord(code) - _SURROGATE_BASE
    return chr(0xD800 + offset) if 0 <= offset < 0x800 else match.group()


class LosslessText(TypeDecorator[str]):
    """A string column that stores any Python ``str`` exactly, on every backend.

    SQLite keeps ``VARCHAR(n)`` (it never enforces the length); PostgreSQL
    gets ``TEXT``, so a spec-valid value is never too long for one backend
    only.  Values go through :func:`escape_text` / :func:`unescape_text`.
    """

    impl = String
    cache_ok = True

    def __init__(self, length: int) -> None:
        super().__init__(length)
        self.length = length

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return Text()
        return String(self.length)

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else escape_text(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        # A damaged row may hold another type here; store.reads reports it.
        return unescape_text(value) if isinstance(value, str) else value


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
    Column("seed", LosslessText(512), nullable=False),
    Column("rules_version", Integer, nullable=False),
    Column("player", LosslessText(200), nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    # Projection of the log, updated in the same transaction as each append.
    Column("move_count", Integer, nullable=False, default=0),
    Column("score", BigInteger, nullable=False, default=0),
    Column("max_tile", Integer, nullable=False),
    Column("board", String(20), nullable=False),  # packed board, hex: see board_text
    Column("won", Boolean, nullable=False, default=False),
    Column("over", Boolean, nullable=False, default=False),
    Column("assisted", Boolean, nullable=False, default=False),
    # Other top-level record keys (imported records), JSON, kept for export.
    Column("extra", Text, nullable=True),
    Index("games_by_seed", "seed"),
    Index("games_by_updated", "updated_ms"),
    # The leaderboard reads games best score first and stops after a page.
    Index("games_by_score", "score"),
    # A player's games, newest first (``twenty48 list --player``), without reading everyone's.
    Index("games_by_player", "player", "updated_ms"),
)


def board_text(board: Board) -> str:
    """How the ``board`` column holds a board: its packed integer as 20 lowercase hex digits.

    The one place that writes the encoding (local moves, imports, the
    server's appends); :mod:`twenty48_replay.store.reads` checks it on the
    way back, as it checks every stored field.
    """
    return f"{board.packed:020x}"


moves = Table(
    "moves",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("direction", String(1), nullable=False),
    Column("played_ms", BigInteger, nullable=True),
    sqlite_with_rowid=False,
)

# Part of the projection: SHA-256 (hex) of the game's whole move string,
# written in the same transaction as each append.  Every read of a game
# compares it (and the other projection columns) with the log, so a log
# changed behind the store's back is reported, never served.  A table of
# its own, so upgrading a version 1 database only adds a table.
log_digests = Table(
    "log_digests",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("digest", String(64), nullable=False),
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
    Column("client_seed", LosslessText(512), nullable=True),
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
    # Whether a player has a better game than this one (the leaderboard ranks each player once).
    Index("fair_games_by_player", "player"),
)

# Self-seeded records submitted to a server (POST /api/records): stored as
# ordinary games, listed apart from the fair leaderboard.
submitted_records = Table(
    "submitted_records",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("submitted_ms", BigInteger, nullable=False),
)

# What ``play --server`` keeps when a score server breaks a rule of the game or of
# fair play (twenty48_replay.fairplay.witness): one row per broken game, holding the one-line
# verdict and the evidence document (every answer received, in order, as JSON; the
# bearer token only as its SHA-256).  ``twenty48 evidence`` lists and prints them.
fair_evidence = Table(
    "fair_evidence",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("saved_ms", BigInteger, nullable=False),
    Column("server", LosslessText(2048), nullable=False),
    Column("fair_game_id", BigInteger, nullable=True),
    Column("verdict", LosslessText(2048), nullable=False),
    Column("document", Text, nullable=False),
)

# ---------------------------------------------------------------- bot signals
# (read and written by store.fair_games.bot_signals)
#
# The detail of a finished fair game's bot signals, one row per analysed
# game, beside the summary in ``fair_games`` (``engine_matches`` /
# ``engine_checked``: the search rung the game agrees with most;
# ``median_interval_ms``).  ``rungs`` is JSON: every rung's name, matches
# and positions checked.  Fractions are kept in thousandths, as integers,
# so that every backend stores them exactly.
bot_signals = Table(
    "bot_signals",
    metadata,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("analysed_ms", BigInteger, nullable=False),
    # Moves replayed, and how many of them had more than one valid move.
    Column("moves", Integer, nullable=False),
    Column("choices", Integer, nullable=False),
    Column("best_rung", String(16), nullable=True),
    Column("rungs", Text, nullable=False),
    # Timed intervals between consecutive moves and their shape.
    Column("intervals", Integer, nullable=False),
    Column("dispersion_milli", Integer, nullable=True),  # interquartile range / median
    Column("variation_milli", Integer, nullable=True),  # standard deviation / mean
    Column("autocorrelation_milli", Integer, nullable=True),  # lag 1, of log intervals
)

# ---------------------------------------------------------------- server keys
# (read and written by store.server_keys only)
#
# The history of the keys the score server signs with, append-only (triggers in
# store.dialects refuse UPDATE and DELETE): a "current" row when a key becomes
# the one the server signs with (its public key, and since when), a "revoked"
# row when an operator revokes a key (why).  A key's period of use runs from
# its "current" row to the next one.  ``seq`` is numbered by the writer (the
# next after the last), so two processes recording at once conflict on the
# primary key instead of both making a key current; the unique index lets a
# key become current once and be revoked once.  ``actor`` is the operating
# system user who ran the command.
key_events = Table(
    "key_events",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("at_ms", BigInteger, nullable=False),
    Column("event", String(16), nullable=False),
    Column("key_id", String(16), nullable=False),
    Column("public_key", String(64), nullable=True),
    Column("reason", LosslessText(2000), nullable=True),
    Column("actor", LosslessText(200), nullable=False),
    # SHA-256 (hex) of the previous row's chain and this row's content (store.log_chain).
    Column("chain", String(64), nullable=False),
    Index("key_events_by_key", "key_id", "event", unique=True),
)

# ------------------------------------------------------------- player names
# (read and written by store.players)
#
# A registered name belongs to whoever holds its secret.  ``name_key`` is
# the name's confusable skeleton (twenty48_replay.fairplay.names.name_key): two names
# that look alike have the same key, so the unique index refuses the second.
# The secret is kept only as its SHA-256 (it is 256 random bits: a slow hash
# would add nothing).
players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", LosslessText(200), nullable=False),
    Column("name_key", LosslessText(2048), nullable=False, unique=True),
    Column("secret_hash", String(64), nullable=False),
    Column("registered_ms", BigInteger, nullable=False),
)

# Every key a registered name claims (twenty48_replay.fairplay.names.claim_keys: its
# folded skeleton, its written skeleton, its glyph skeletons), as the SHA-256
# of the key: fixed-size, so the primary key's index takes any name on every
# backend.  Two names that share a key collide; the primary key refuses the
# second registration even when two processes register at once (the
# ``players.name_key`` unique index alone would miss "AIice" against "alice").
player_keys = Table(
    "player_keys",
    metadata,
    Column("key_hash", String(64), primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Index("player_keys_by_player", "player_id"),
)

# Who each fair game was created for: its name's key (so that a ban covers
# every look-alike spelling, and look-ups need no recomputation) and whether
# the game was created with the secret of a registered name.
game_players = Table(
    "game_players",
    metadata,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("name_key", LosslessText(2048), nullable=False),
    Column("registered", Boolean, nullable=False),
    Index("game_players_by_key", "name_key"),
)

# The moderation log: one row per ``twenty48 admin`` action, never changed
# or removed (triggers refuse UPDATE and DELETE, as on ``moves``).  Whether
# a game is hidden or a player banned is the latest hide/unhide or
# ban/unban row for it; the leaderboard reads that on every request.
moderation_log = Table(
    "moderation_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("acted_ms", BigInteger, nullable=False),
    Column("actor", LosslessText(200), nullable=False),
    Column("action", String(16), nullable=False),  # hide, unhide, ban, unban
    Column("fair_id", Integer, nullable=True),  # hide, unhide
    Column("player", LosslessText(200), nullable=True),  # ban, unban: the name as given
    Column("name_key", LosslessText(2048), nullable=True),  # ban, unban
    Column("reason", LosslessText(2048), nullable=False),
    # SHA-256 (hex) of the previous row's chain and this row's content (store.log_chain).
    Column("chain", String(64), nullable=False),
    Index("moderation_by_game", "fair_id"),
    Index("moderation_by_key", "name_key"),
)
# --------------------------------------------------------- end player names

# ---------------------------------------------------------- the chains' heads
# (read and written by store.log_chain only)
#
# Per chained log (``key_events``, ``moderation_log``): how many rows it has
# and the newest row's ``chain``, written in the same transaction as each
# row.  A log cut short at its end still chains; this row, and the heads an
# operator wrote down elsewhere, say that rows are missing.
log_heads = Table(
    "log_heads",
    metadata,
    Column("log", String(32), primary_key=True),
    Column("length", BigInteger, nullable=False),
    Column("head", String(64), nullable=False),
)

# ---------------------------------------------------------- quotas and expiry
# (read and written by store.quotas and store.expiry,
# which the server reaches through store.fair_games)
#
# One rate limit's state per key ("<limit>:<subject>": an address, a game):
# the generic cell rate algorithm keeps a single time per key, the
# theoretical arrival time of the next request (``tat_ms``); a key whose
# ``tat_ms`` has passed is a full bucket, the same as no row, and is swept.
# ``granted`` is how many requests the last charge let through (a charge
# computes it from the old ``tat_ms`` in the same UPDATE, so no second read
# is needed).  In the database, not in a process, so that every server
# process on one database shares the limits.
rate_limits = Table(
    "rate_limits",
    metadata,
    Column("key", String(300), primary_key=True),
    Column("tat_ms", BigInteger, nullable=False),
    Column("granted", Integer, nullable=False),
    Index("rate_limits_by_tat", "tat_ms"),
)

# Fair games the server finished because no move came for too long: their
# record is signed like any other (and says ``"abandoned": true``), they are
# never ranked.  ``last_move_ms`` is when the game last changed.
abandoned_games = Table(
    "abandoned_games",
    metadata,
    Column("fair_id", Integer, ForeignKey("fair_games.id"), primary_key=True, autoincrement=False),
    Column("abandoned_ms", BigInteger, nullable=False),
    Column("last_move_ms", BigInteger, nullable=False),
)

# Work that one server process does for the whole database (the expiry
# sweeper): whoever holds the named lease until ``until_ms`` does it, the
# others wait; a lease that runs out (its process died) is taken over.
server_leases = Table(
    "server_leases",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("holder", String(128), nullable=False),
    Column("until_ms", BigInteger, nullable=False),
)

# ------------------------------------------------------------ players' bests
# (read and written by store.bests, read by store.fair_games.leaderboard)
#
# Each player's best visible ranked fair game (finished, not abandoned, not
# hidden), once over all their games (``registered_only`` false) and once
# over the games played with a registered name's secret (true), with the
# columns the leaderboard sorts by copied from ``games`` and ``fair_games``
# (a finished game's never change).  Derived data, kept in the same
# transaction as every write that changes it, so that any page of the
# leaderboard is one range of ``player_bests_by_rank``.  Banned names are
# left out when it is read.  ``twenty48 check`` compares it with the games.
player_bests = Table(
    "player_bests",
    metadata,
    Column("registered_only", Boolean, primary_key=True, autoincrement=False),
    Column("player", String(200), primary_key=True),
    Column("fair_id", Integer, ForeignKey("fair_games.id"), nullable=False),
    Column("score", BigInteger, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("finished_ms", BigInteger, nullable=False),
)
Index(
    "player_bests_by_rank",
    player_bests.c.registered_only,
    player_bests.c.score.desc(),
    player_bests.c.moves,
    player_bests.c.finished_ms,
    player_bests.c.fair_id,
)
