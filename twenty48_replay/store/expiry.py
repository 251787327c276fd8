"""Expiry of fair games: unstarted games removed, idle games found, one sweeper per database.

A fair game asked for and never started holds nothing but its secret row;
after a while it is deleted.  A started game that has had no move for a
long time is finished by the server as *abandoned*: its record is signed
like any other (the server does that, through :mod:`.fair_games`'
``finish``), and a row here says it was abandoned, which keeps it off the
leaderboard.  The sweeper that does this runs in every server process, but
only the holder of a lease in the database works, so several processes on
one database sweep once.

Every query is bounded (``limit``) and reads the unfinished games through
the ``finished_ms`` index: that set is small by design (games end, expire
or are abandoned), however many finished games the database holds.  Every
function here runs inside a transaction its caller owns.
"""

from __future__ import annotations

import attrs
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from twenty48_replay.store import bests
from twenty48_replay.store.bests import not_abandoned as not_abandoned  # for rankings
from twenty48_replay.store.tables import (
    abandoned_games,
    fair_games,
    game_players,
    games,
    server_leases,
)


def claim_lease(
    connection: Connection, name: str, holder: str, now_ms: int, duration_ms: int
) -> bool:
    """Take or renew the lease ``name`` for ``holder`` until ``now + duration``.

    True if ``holder`` has it now: it was free, ran out, or was already
    ``holder``'s.  Compare-and-set, so two processes never both hold it.
    """
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    connection.execute(
        dialect.insert(server_leases)
        .values(name=name, holder=holder, until_ms=0)
        .on_conflict_do_nothing(index_elements=["name"])
    )
    taken = connection.execute(
        update(server_leases)
        .where(
            server_leases.c.name == name,
            (server_leases.c.holder == holder) | (server_leases.c.until_ms < now_ms),
        )
        .values(holder=holder, until_ms=now_ms + duration_ms)
    ).rowcount
    return bool(taken == 1)


def release_lease(connection: Connection, name: str, holder: str) -> None:
    """Give the lease up now (a process that stops), if ``holder`` has it."""
    connection.execute(
        update(server_leases)
        .where(server_leases.c.name == name, server_leases.c.holder == holder)
        .values(until_ms=0)
    )


def expire_unstarted(connection: Connection, created_before_ms: int, limit: int) -> list[int]:
    """Delete up to ``limit`` fair games created before the cutoff and never started; their ids.

    The delete repeats the condition, so a game started meanwhile (by any
    process) is kept.  The newest game is kept even when it expired: SQLite
    gives a new row the highest id plus one, so deleting the newest rows
    would hand their ids to the next games, and an old id (in a client, in
    another process's memory) would name someone else's game.  The server
    refuses to start an expired game whether or not its row is still there.
    """
    newest = select(func.max(fair_games.c.id)).scalar_subquery()
    unstarted = (
        fair_games.c.finished_ms.is_(None),
        fair_games.c.game_id.is_(None),
        fair_games.c.client_seed.is_(None),
        fair_games.c.created_ms < created_before_ms,
        fair_games.c.id < newest,
    )
    # Locked (PostgreSQL; SQLite's write transaction is the lock): a start by another
    # process waits for this transaction, then finds its game gone.
    ids = list(
        connection.execute(
            select(fair_games.c.id)
            .where(*unstarted)
            .order_by(fair_games.c.id)
            .limit(limit)
            .with_for_update()
        ).scalars()
    )
    if not ids:
        return []
    # Who the game was made for (names and moderation) goes with it.
    connection.execute(delete(game_players).where(game_players.c.fair_id.in_(ids)))
    removed = connection.execute(
        delete(fair_games).where(fair_games.c.id.in_(ids), *unstarted).returning(fair_games.c.id)
    )
    return sorted(int(i) for i in removed.scalars())


@attrs.frozen(slots=True)
class IdleGame:
    """A started, unfinished fair game with no move since ``last_move_ms``."""

    fair_id: int
    moves: int
    last_move_ms: int


def idle_games(connection: Connection, idle_before_ms: int, limit: int) -> list[IdleGame]:
    """Up to ``limit`` started, unfinished fair games unchanged since before the cutoff.

    Oldest first.  ``games.updated_ms`` is the time of the last move (or of
    the start, for a game without moves).
    """
    rows = connection.execute(
        select(fair_games.c.id, games.c.move_count, games.c.updated_ms)
        .join(games, games.c.id == fair_games.c.game_id)
        .where(
            fair_games.c.finished_ms.is_(None),
            games.c.extra.is_(None),
            games.c.updated_ms < idle_before_ms,
        )
        .order_by(games.c.updated_ms, fair_games.c.id)
        .limit(limit)
    ).all()
    return [IdleGame(int(fair_id), int(moves), int(updated)) for fair_id, moves, updated in rows]


def mark_abandoned(
    connection: Connection, fair_id: int, abandoned_ms: int, last_move_ms: int
) -> None:
    """Say that the server finished ``fair_id`` because nobody played it (after ``finish``)."""
    connection.execute(
        abandoned_games.insert().values(
            fair_id=fair_id, abandoned_ms=abandoned_ms, last_move_ms=last_move_ms
        )
    )
    bests.forget_abandoned(connection, fair_id)  # never ranked


def is_abandoned(connection: Connection, fair_id: int) -> bool:
    """Whether the server finished ``fair_id`` as abandoned."""
    found = connection.execute(
        select(abandoned_games.c.fair_id).where(abandoned_games.c.fair_id == fair_id)
    ).first()
    return found is not None
