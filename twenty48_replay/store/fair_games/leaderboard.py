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
    left out (read from the moderation log by these same queries, so an
    action counts from the next request); ``registered_only`` leaves out
    games not played under a registered name.  ``after``: the page that
    follows the entry with this key (keyset paging: stable while games
    finish), numbered on from its ``position``.

    Visible games are read best first (``games_by_score``), a batch at a
    time, and a player's first game in that order is their best: a page
    costs the games read down to its last entry, not the whole table.
    (Ranking every game with window functions sorted the whole table on
    each request: p50 3.4 s at 100,000 games.)  After a cursor, a player
    whose best is above it has a visible game at or above it; one query per
    batch asks that of the batch's players (``fair_games_by_player``).
    """
    order = (
        games.c.score.desc(),
        games.c.move_count.asc(),
        fair_games.c.finished_ms.asc(),
        fair_games.c.id.asc(),
    )
    base = (
        _ranked_games(fair_games, games, game_players, registered_only)
        .add_columns(*DETAIL_COLUMNS)
        .outerjoin(bot_signals, bot_signals.c.fair_id == fair_games.c.id)
        .order_by(*order)
    )
    start = 0 if after is None else after.position
    entries: list[BoardEntry] = []
    seen: set[str] = set()
    place = after
    batch = max(4 * limit, 64)
    while len(entries) < limit:
        query = base if place is None else base.where(_after(place))
        rows = connection.execute(query.limit(batch)).all()
        fresh = {str(row[1]) for row in rows} - seen
        if after is not None and fresh:
            seen |= _ranked_above(connection, fresh, after, registered_only)
        for row in rows:
            if str(row[1]) in seen:
                continue
            seen.add(str(row[1]))
            entries.append(
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
                    position=start + len(entries) + 1,
                )
            )
            if len(entries) == limit:
                break
        if len(rows) < batch:
            break
        last = rows[-1]
        place = BoardKey(last[2], last[3], last[5], last[0])
        batch = min(batch * 2, 4096)
    return entries


def _after(place: BoardKey) -> Any:
    """Games after ``place`` in the leaderboard's order."""
    return rows_after(
        (games.c.score, place.score, False),
        (games.c.move_count, place.moves, True),
        (fair_games.c.finished_ms, place.finished_ms, True),
        (fair_games.c.id, place.fair_id, True),
    )


def _ranked_above(
    connection: Connection, names: set[str], place: BoardKey, registered_only: bool
) -> set[str]:
    """Those of ``names`` with a visible game at or above ``place`` (ranked on earlier pages)."""
    query = (
        _ranked_games(fair_games, games, game_players, registered_only)
        .with_only_columns(fair_games.c.player)
        .where(fair_games.c.player.in_(sorted(names)), ~_after(place))
        .distinct()
    )
    return {str(name) for name in connection.execute(query).scalars()}


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
