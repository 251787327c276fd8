"""The leaderboard: each player's best finished fair game, ranked, paged by key."""

from __future__ import annotations

from typing import Any

import attrs
from sqlalchemy import Select, and_, func, or_, select
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
        return BoardKey(self.score, self.moves, self.finished_ms, self.fair_id, self.position)


@attrs.frozen(slots=True)
class BoardKey:
    """A place in the leaderboard's order: score, then fewer moves, then earlier end, then id.

    ``position``: the rank of the entry at this place, so that the page after
    it is numbered on from there without counting every entry above it.
    """

    score: int
    moves: int
    finished_ms: int
    fair_id: int
    position: int = 0


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
    entry with this key (keyset paging: stable while games finish), numbered
    on from its ``position``.

    The games are read best first (``games_by_score``) and a game is kept
    when its player has no better visible game (``fair_games_by_player``),
    so a page costs its own length, not the number of games: ranking every
    player's games with a window function sorted the whole table on each
    request (about 1 s at 100,000 games).
    """
    candidate = _ranked_games(fair_games, games, game_players, registered_only)
    mine, my_game, my_player = (
        fair_games.alias("mine"),
        games.alias("my_game"),
        game_players.alias("my_player"),
    )
    better = (
        _ranked_games(mine, my_game, my_player, registered_only)
        .with_only_columns(mine.c.id)
        .where(
            mine.c.player == fair_games.c.player,
            rows_after(
                (my_game.c.score, games.c.score, True),
                (my_game.c.move_count, games.c.move_count, False),
                (mine.c.finished_ms, fair_games.c.finished_ms, False),
                (mine.c.id, fair_games.c.id, False),
            ),
        )
        .exists()
    )
    query = candidate.add_columns(*DETAIL_COLUMNS).outerjoin(
        bot_signals, bot_signals.c.fair_id == fair_games.c.id
    )
    query = query.where(~better)
    if after is not None:
        query = query.where(
            rows_after(
                (games.c.score, after.score, False),
                (games.c.move_count, after.moves, True),
                (fair_games.c.finished_ms, after.finished_ms, True),
                (fair_games.c.id, after.fair_id, True),
            )
        )
    query = query.order_by(
        games.c.score.desc(),
        games.c.move_count.asc(),
        fair_games.c.finished_ms.asc(),
        fair_games.c.id.asc(),
    ).limit(limit)
    start = 0 if after is None else after.position
    rows = connection.execute(query).all()
    return [
        BoardEntry(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            row[6],
            row[7],
            row[8],
            detail=signal_detail(row[10:]),
            registered=bool(row[9]),
            position=start + number,
        )
        for number, row in enumerate(rows, 1)
    ]


def _ranked_games(fair: Any, game: Any, player: Any, registered_only: bool) -> Select[Any]:
    """The visible finished fair games of the tables (or aliases) given, with their columns."""
    visible = [
        fair.c.finished_ms.is_not(None),
        expiry.not_abandoned(fair),
        fair.c.id.not_in(players.hidden_games()),
        or_(player.c.name_key.is_(None), player.c.name_key.not_in(players.banned_keys())),
    ]
    if registered_only:
        visible.append(player.c.registered.is_(True))
    return (
        select(
            fair.c.id,
            fair.c.player,
            game.c.score,
            game.c.move_count,
            game.c.max_tile,
            fair.c.finished_ms,
            fair.c.engine_matches,
            fair.c.engine_checked,
            fair.c.median_interval_ms,
            func.coalesce(player.c.registered, False).label("registered"),
        )
        .join(game, game.c.id == fair.c.game_id)
        .outerjoin(player, player.c.fair_id == fair.c.id)
        .where(*visible)
    )


def rows_after(*keys: tuple[Any, Any, bool]) -> Any:
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
