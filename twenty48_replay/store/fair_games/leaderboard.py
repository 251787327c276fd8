"""The leaderboard: each player's best finished fair game, ranked, paged by key."""

from __future__ import annotations

from typing import Any

import attrs
from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection

from twenty48_replay.store import players
from twenty48_replay.store.fair_games.bot_signals import DETAIL_COLUMNS, SignalDetail, signal_detail
from twenty48_replay.store.tables import (
    bot_signals,
    fair_games,
    game_players,
    games,
    player_bests,
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
    left out (an action counts from the next request); ``registered_only``
    ranks only games played under a registered name.  ``after``: the page
    that follows the entry with this key (keyset paging: stable while games
    finish), numbered on from its ``position``.

    Each player's best is kept in ``player_bests`` with every write that
    changes it (:mod:`twenty48_replay.store.bests`), so a page, the first or
    one after a cursor, is one range of ``player_bests_by_rank``: about
    ``limit`` rows, then those rows' games by id.  Banned names are left out
    here, as they are read (a ban covers all of a player's games, so it
    never changes which game is their best): the range is read on past them.
    """
    start = 0 if after is None else after.position
    place = None if after is None else (after.score, after.moves, after.finished_ms, after.fair_id)
    entries: list[BoardEntry] = []
    batch = limit + 8
    while len(entries) < limit:
        keys = _bests_after(connection, place, batch, registered_only)
        for row in _entries(connection, [int(key[3]) for key in keys]):
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
        if len(keys) < batch:
            break
        last = keys[-1]
        place = (int(last[0]), int(last[1]), int(last[2]), int(last[3]))
        batch = min(batch * 4, 4096)
    return entries


def _bests_after(
    connection: Connection,
    place: tuple[int, int, int, int] | None,
    batch: int,
    registered_only: bool,
) -> list[Any]:
    """The next ``batch`` players' bests after ``place`` (score, moves, end, id), in order."""
    query = select(
        player_bests.c.score,
        player_bests.c.moves,
        player_bests.c.finished_ms,
        player_bests.c.fair_id,
    ).where(player_bests.c.registered_only == registered_only)
    if place is not None:
        score, moves, finished_ms, fair_id = place
        query = query.where(
            # The range's start for the index; the rest of the key filters the ties.
            player_bests.c.score <= score,
            rows_after(
                (player_bests.c.score, score, False),
                (player_bests.c.moves, moves, True),
                (player_bests.c.finished_ms, finished_ms, True),
                (player_bests.c.fair_id, fair_id, True),
            ),
        )
    query = query.order_by(
        player_bests.c.score.desc(),
        player_bests.c.moves.asc(),
        player_bests.c.finished_ms.asc(),
        player_bests.c.fair_id.asc(),
    ).limit(batch)
    return list(connection.execute(query).all())


def _entries(connection: Connection, fair_ids: list[int]) -> list[Any]:
    """The games ``fair_ids`` with their leaderboard columns, banned names left out, in order."""
    if not fair_ids:
        return []
    query = (
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
            *DETAIL_COLUMNS,
        )
        .join(games, games.c.id == fair_games.c.game_id)
        .outerjoin(game_players, game_players.c.fair_id == fair_games.c.id)
        .outerjoin(bot_signals, bot_signals.c.fair_id == fair_games.c.id)
        .where(
            fair_games.c.id.in_(fair_ids),
            or_(
                game_players.c.name_key.is_(None),
                game_players.c.name_key.not_in(players.banned_keys()),
            ),
        )
    )
    order = {fair_id: number for number, fair_id in enumerate(fair_ids)}
    return sorted(connection.execute(query).all(), key=lambda row: order[int(row[0])])


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
