"""The leaderboard: each player's best finished fair game, ranked, paged by key."""

from __future__ import annotations

from typing import Any

import attrs
from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection

from twenty48_replay.store import expiry, players
from twenty48_replay.store.fair_games.bot_signals import DETAIL_COLUMNS, SignalDetail, signal_detail
from twenty48_replay.store.tables import (
    bot_signals,
    fair_games,
    game_players,
    games,
)


@attrs.frozen(slots=True)
class BoardEntry:
    """One line of the leaderboard (``position``: its rank, 1 for the best), with its
    bot signals (None until analysed)."""

    fair_id: int
    player: str
    score: int
    moves: int
    max_tile: int
    finished_ms: int
    engine_matches: int | None
    engine_checked: int | None
    median_interval_ms: int | None
    #: The detail of the signals (``bot_signals``), None before the game is analysed.
    detail: SignalDetail | None = None
    #: Played with the secret of a registered name.
    registered: bool = False
    #: Its rank (1 for the best); 0 where no rank is shown.
    position: int = 0

    def with_position(self, position: int) -> BoardEntry:
        """This entry at rank ``position``."""
        return attrs.evolve(self, position=position)

    @property
    def key(self) -> BoardKey:
        """Where this entry sorts (a page's cursor is its last entry's key)."""
        return BoardKey(self.score, self.moves, self.finished_ms, self.fair_id)


@attrs.frozen(slots=True)
class BoardKey:
    """A place in the leaderboard's order: score, then fewer moves, then earlier end, then id."""

    score: int
    moves: int
    finished_ms: int
    fair_id: int


def leaderboard(
    connection: Connection,
    limit: int,
    after: BoardKey | None = None,
    *,
    registered_only: bool = False,
) -> list[BoardEntry]:
    """Finished fair games, best per player: score, then fewer moves, then earlier end.

    Abandoned games are never ranked.  Hidden games and banned names are
    left out (read from the moderation log by this same query, so an action
    counts from the next request); ``registered_only`` leaves out games not
    played under a registered name.  ``after``: the page that follows the
    entry with this key (keyset paging: stable while games finish).
    """
    visible = [
        fair_games.c.finished_ms.is_not(None),
        expiry.not_abandoned(),
        fair_games.c.id.not_in(players.hidden_games()),
        or_(
            game_players.c.name_key.is_(None), game_players.c.name_key.not_in(players.banned_keys())
        ),
    ]
    if registered_only:
        visible.append(game_players.c.registered.is_(True))
    order = (
        games.c.score.desc(),
        games.c.move_count.asc(),
        fair_games.c.finished_ms.asc(),
        fair_games.c.id.asc(),
    )
    best = (
        select(
            fair_games.c.id,
            fair_games.c.player,
            games.c.score,
            games.c.move_count,
            games.c.max_tile,
            fair_games.c.finished_ms,
            fair_games.c.engine_matches,
            fair_games.c.engine_checked,
            fair_games.c.median_interval_ms,
            func.coalesce(game_players.c.registered, False).label("registered"),
            func.row_number().over(partition_by=fair_games.c.player, order_by=order).label("rank"),
        )
        .join(games, games.c.id == fair_games.c.game_id)
        .outerjoin(game_players, game_players.c.fair_id == fair_games.c.id)
        .where(*visible)
        .subquery()
    )
    board_order = (
        best.c.score.desc(),
        best.c.move_count.asc(),
        best.c.finished_ms.asc(),
        best.c.id.asc(),
    )
    ranked = (
        select(
            *(c for c in best.c if c.name != "rank"),
            func.row_number().over(order_by=board_order).label("position"),
        )
        .where(best.c.rank == 1)
        .subquery()
    )
    query = select(
        *(c for c in ranked.c if c.name not in ("registered", "position")),
        *DETAIL_COLUMNS,
        ranked.c.registered,
        ranked.c.position,
    ).outerjoin(bot_signals, bot_signals.c.fair_id == ranked.c.id)
    if after is not None:
        query = query.where(
            rows_after(
                (ranked.c.score, after.score, False),
                (ranked.c.move_count, after.moves, True),
                (ranked.c.finished_ms, after.finished_ms, True),
                (ranked.c.id, after.fair_id, True),
            )
        )
    query = query.order_by(ranked.c.position).limit(limit)
    return [
        BoardEntry(
            *row[:9],
            detail=signal_detail(row[9:-2]),
            registered=bool(row[-2]),
            position=int(row[-1]),
        )
        for row in connection.execute(query).all()
    ]


def rows_after(*keys: tuple[Any, int, bool]) -> Any:
    """Rows after a place in a many-column order: (column, value, ascending) per column."""
    (column, value, ascending), *rest = keys
    beyond = column > value if ascending else column < value
    if not rest:
        return beyond
    return or_(beyond, and_(column == value, rows_after(*rest)))


def by_signal(
    connection: Connection, limit: int, *, within: int = 1000, registered_only: bool = False
) -> list[BoardEntry]:
    """The leaderboard's games (its first ``within``), strongest bot signal first.

    For ``twenty48 admin suspects`` and other reviews: the highest
    engine-match rate first, then the shortest median time between moves;
    games not analysed yet come last, in leaderboard order.  Whether a game
    is *suspected* depends on the operator's thresholds:
    :func:`twenty48_replay.server.bots.judge` decides it.
    """
    entries = leaderboard(connection, within, registered_only=registered_only)

    def strength(entry: BoardEntry) -> tuple[int, float, float]:
        if entry.engine_checked is None:
            return (1, 0.0, 0.0)
        matches = entry.engine_matches or 0
        rate = matches / entry.engine_checked if entry.engine_checked else 0.0
        interval = entry.median_interval_ms
        return (0, -rate, float("inf") if interval is None else interval)

    return sorted(entries, key=strength)[:limit]
