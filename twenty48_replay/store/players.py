"""Registered player names and the moderation log: their SQL.

A registered name claims several keys
(:func:`twenty48_replay.fairplay.names.claim_keys`: its folded, written and glyph
skeletons); two names collide when they share one.  The claims are kept
hashed in ``player_keys``, whose primary key is the final word when two
registrations race: of two look-alikes registered at once by two
processes, the second insert fails.  Bans and ``game_players`` go by the
folded key (``name_key``); a new game or registration is refused under
any look-alike of a banned name too (:func:`is_banned_lookalike`), so a
ban is not undone by playing as "AIice".  The moderation log is append-only
(the database's triggers refuse UPDATE and DELETE) and hash-chained
(:mod:`.log_chain`: a rewrite shows even when the triggers were bypassed);
whether a game is hidden or a name banned is its latest hide/unhide or ban/unban row, read
by :func:`hidden_games` and :func:`banned_keys`.  Hiding or unhiding a game
computes its player's best again in the same transaction
(:mod:`.bests`, which the leaderboard reads), and the leaderboard leaves
banned names out as it reads, so that an action counts from the next
request on, in every server process.  Every function here runs inside a transaction its caller
owns.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import TYPE_CHECKING, Any, Final

import attrs
from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from twenty48_replay.fairplay.names import claim_keys, name_key
from twenty48_replay.store import bests, log_chain
from twenty48_replay.store.bests import HIDE as HIDE  # the moderation actions are named here
from twenty48_replay.store.bests import hidden_games as hidden_games  # one way in for moderation
from twenty48_replay.store.bests import is_hidden
from twenty48_replay.store.tables import (
    fair_games,
    game_players,
    moderation_log,
    player_keys,
    players,
)

if TYPE_CHECKING:
    from twenty48_replay.store.store import Store

UNHIDE: Final = "unhide"
BAN: Final = "ban"
UNBAN: Final = "unban"
ACTIONS: Final = (HIDE, UNHIDE, BAN, UNBAN)
#: The longest reason and actor kept (longer ones are refused by the caller).
MAX_REASON: Final = 2000
MAX_ACTOR: Final = 200


@attrs.frozen(slots=True)
class Player:
    """A registered name (the secret only as its hash: never send this as it is)."""

    id: int
    name: str
    secret_hash: str
    registered_ms: int


@attrs.frozen(slots=True)
class Action:
    """One row of the moderation log."""

    id: int
    acted_ms: int
    actor: str
    action: str
    fair_id: int | None
    player: str | None
    reason: str


def registered(connection: Connection, key: str) -> Player | None:
    """The registered name with this key, or None."""
    row = connection.execute(
        select(players.c.id, players.c.name, players.c.secret_hash, players.c.registered_ms).where(
            players.c.name_key == key
        )
    ).first()
    return None if row is None else Player(*row)


def key_hashes(name: str) -> list[str]:
    """The hashes of every key ``name`` claims, as ``player_keys`` keeps them (sorted)."""
    return sorted(hashlib.sha256(key.encode("utf-8")).hexdigest() for key in claim_keys(name))


def claimants(connection: Connection, name: str) -> list[Player]:
    """The registered names that ``name`` collides with (shares a claimed key with), by id.

    At most one is ``name`` itself; more than one is possible, as
    collisions need not be transitive ("AIice" and "ALlCE" both collide
    with "alice", not with each other).
    """
    rows = connection.execute(
        select(players.c.id, players.c.name, players.c.secret_hash, players.c.registered_ms)
        .where(
            players.c.id.in_(
                select(player_keys.c.player_id).where(player_keys.c.key_hash.in_(key_hashes(name)))
            )
        )
        .order_by(players.c.id)
    ).all()
    return [Player(*row) for row in rows]


def register(
    connection: Connection, name: str, key: str, secret_hash: str, now_ms: int
) -> int | None:
    """Register ``name`` (``key``: its :func:`name_key`); its id, or None when it collides.

    The player and every key it claims are inserted in one savepoint: a
    registration that collides with a registered name, or loses a race
    with another process registering a look-alike, fails on a unique
    index, leaves nothing behind and leaves the caller's transaction usable.
    """
    if registered(connection, key) is not None:
        return None
    try:
        with connection.begin_nested():
            result = connection.execute(
                players.insert().values(
                    name=name, name_key=key, secret_hash=secret_hash, registered_ms=now_ms
                )
            )
            primary = result.inserted_primary_key
            assert primary is not None
            player_id = int(primary[0])
            connection.execute(
                player_keys.insert(),
                [{"key_hash": digest, "player_id": player_id} for digest in key_hashes(name)],
            )
    except IntegrityError:
        return None
    return player_id


def note_game_player(
    connection: Connection, fair_id: int, key: str, *, is_registered: bool
) -> None:
    """Remember whom a new fair game was created for (its name's key, and whether registered)."""
    connection.execute(
        game_players.insert().values(fair_id=fair_id, name_key=key, registered=is_registered)
    )


# ------------------------------------------------------------- moderation


def banned_keys() -> Any:
    """A subquery of the name keys whose latest ban/unban action is ``ban``."""
    latest = (
        select(func.max(moderation_log.c.id))
        .where(moderation_log.c.name_key.is_not(None))
        .group_by(moderation_log.c.name_key)
    )
    return select(moderation_log.c.name_key).where(
        moderation_log.c.id.in_(latest), moderation_log.c.action == BAN
    )


def is_banned(connection: Connection, key: str) -> bool:
    """Whether the name with this key is banned now."""
    query = banned_keys().where(moderation_log.c.name_key == key).limit(1)
    return connection.execute(query).first() is not None


def banned_names(connection: Connection) -> list[str]:
    """The names banned now, as the operator wrote them in each one's latest ban."""
    latest = (
        select(func.max(moderation_log.c.id))
        .where(moderation_log.c.name_key.is_not(None))
        .group_by(moderation_log.c.name_key)
    )
    rows = connection.execute(
        select(moderation_log.c.player).where(
            moderation_log.c.id.in_(latest), moderation_log.c.action == BAN
        )
    ).all()
    return [row[0] for row in rows if row[0] is not None]


#: Per database (its engine, forgotten with it): the moderation log's size and newest id
#: when the keys that every banned name claims were last gathered, and those keys.
#: Gathered again only when the log has grown (it is append-only, so a new row changes
#: the size even when it commits after a row with a higher id): bans are rare, new
#: games are many.
_banned_claims: weakref.WeakKeyDictionary[Engine, tuple[tuple[int, int], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _banned_claim_keys(connection: Connection) -> frozenset[str]:
    size, newest = connection.execute(
        select(func.count(), func.coalesce(func.max(moderation_log.c.id), 0))
    ).one()
    version = (int(size), int(newest))
    cached = _banned_claims.get(connection.engine)
    if cached is not None and cached[0] == version:
        return cached[1]
    keys = frozenset(key for banned in banned_names(connection) for key in claim_keys(banned))
    _banned_claims[connection.engine] = (version, keys)
    return keys


def is_banned_lookalike(connection: Connection, name: str) -> bool:
    """Whether ``name`` is banned, or collides with a banned name (shares a claimed key).

    A ban names one player; without this, the same player could come back
    as a look-alike ("AIice" with a capital I) that nobody registered and so
    collides with nothing.  The keys of every banned name are gathered once
    per change of the moderation log (:func:`_banned_claim_keys`), so a new
    game costs one small query and a set look-up however many names are banned.
    """
    if is_banned(connection, name_key(name)):
        return True
    return not claim_keys(name).isdisjoint(_banned_claim_keys(connection))


def game_exists(connection: Connection, fair_id: int) -> bool:
    """Whether a fair game with this id exists."""
    query = select(fair_games.c.id).where(fair_games.c.id == fair_id)
    return connection.execute(query).first() is not None


def act(
    connection: Connection,
    *,
    action: str,
    actor: str,
    reason: str,
    now_ms: int,
    fair_id: int | None = None,
    player: str | None = None,
) -> int:
    """Append one action to the moderation log; returns its id.

    ``hide``/``unhide`` name a fair game, ``ban``/``unban`` a player (by
    name; the ban covers every name with the same key).
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown moderation action {action!r}")
    if action in (HIDE, UNHIDE) and fair_id is not None:
        bests.hold_game(connection, fair_id)  # a finish of this game waits, or is seen
    action_id = log_chain.append(
        connection,
        log_chain.MODERATION_LOG,
        {
            "acted_ms": now_ms,
            "actor": actor,
            "action": action,
            "fair_id": fair_id,
            "player": player,
            "name_key": None if player is None else name_key(player),
            "reason": reason,
        },
    )
    if action in (HIDE, UNHIDE) and fair_id is not None:
        # The player's best on the leaderboard may change (store.bests), in this transaction.
        bests.recompute_for_game(connection, fair_id)
    return action_id


def log(connection: Connection, limit: int) -> list[Action]:
    """The latest ``limit`` actions, newest first."""
    rows = connection.execute(
        select(
            moderation_log.c.id,
            moderation_log.c.acted_ms,
            moderation_log.c.actor,
            moderation_log.c.action,
            moderation_log.c.fair_id,
            moderation_log.c.player,
            moderation_log.c.reason,
        )
        .order_by(moderation_log.c.id.desc())
        .limit(limit)
    ).all()
    return [Action(*row) for row in rows]


# ----------------------------------------------- for ``twenty48 admin``

#: What :func:`moderate` did: the action was logged, or why not.
DONE: Final = "done"
NO_SUCH_GAME: Final = "no such game"
UNCHANGED: Final = "unchanged"


@attrs.frozen(slots=True)
class Moderated:
    """The outcome of :func:`moderate`: ``DONE`` with the log row's id, or why nothing changed."""

    outcome: str
    action_id: int | None = None


def moderate(
    store: Store,
    action: str,
    *,
    actor: str,
    reason: str,
    now_ms: int,
    fair_id: int | None = None,
    player: str | None = None,
) -> Moderated:
    """Hide, unhide, ban or unban in one transaction, checked against the current state.

    Hiding a hidden game (or banning a banned name, and so on) logs
    nothing: the log holds only actions that changed something.  A game
    must exist; any name can be banned (before it is ever played).
    """
    with store.transaction() as connection:
        if action in (HIDE, UNHIDE):
            assert fair_id is not None
            if not game_exists(connection, fair_id):
                return Moderated(NO_SUCH_GAME)
            if is_hidden(connection, fair_id) == (action == HIDE):
                return Moderated(UNCHANGED)
        else:
            assert player is not None
            if is_banned(connection, name_key(player)) == (action == BAN):
                return Moderated(UNCHANGED)
        action_id = act(
            connection,
            action=action,
            actor=actor,
            reason=reason,
            now_ms=now_ms,
            fair_id=fair_id,
            player=player,
        )
    return Moderated(DONE, action_id)


def read_log(store: Store, limit: int) -> list[Action]:
    """The newest ``limit`` moderation actions, newest first."""
    with store.reading() as connection:
        return log(connection, limit)
