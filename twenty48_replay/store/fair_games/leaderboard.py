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

    Games are read best first from ``games_by_score`` alone, a batch at a
    time (whole groups of equal score and moves, so the later keys can be
    sorted here), then those that are visible fair games are read by id;
    a player's first game in that order is their best.  A page costs the
    games read down to its last entry, not the whole table: ranking every
    game with window functions sorted it all on each request (p50 3.4 s at
    100,000 games), and one query joining games to fair games in this order
    was planned by SQLite as a read of every fair game.  After a cursor, a
    player whose best is above it has a visible game at or above it; one
    query per batch asks that of the batch's players (``fair_games_by_player``).
    """
    start = 0 if after is None else after.position
    entries: list[BoardEntry] = []
    seen: set[str] = set()
    group = None if after is None else (after.score, after.moves)
    inclusive = after is not None
    batch = max(4 * limit, 64)
    while len(entries) < limit:
        ids, group, more = _games_by_rank(connection, group, inclusive, batch)
        inclusive = False
        rows = _visible(connection, ids, registered_only)
        if after is not None:
            rows = [row for row in rows if _key(row) > _key_of(after)]
        asked: set[str] = set()
        ask = 2 * (limit - len(entries)) + 8
        for number, row in enumerate(rows):
            if after is not None and str(row[1]) not in seen | asked:
                # Ask about the next few new players at once, as many as the page still needs.
                fresh: list[str] = []
                for later in rows[number:]:
                    name = str(later[1])
                    if name not in seen and name not in asked and name not in fresh:
                        fresh.append(name)
                        if len(fresh) == ask:
                            break
                asked |= set(fresh)
                ask *= 2  # most of them ranked above: ask about more at once next time
                seen |= _ranked_above(connection, set(fresh), after, registered_only)
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
        if not more:
            break
        batch = min(batch * 2, 4096)
    return entries


def _key(row: Any) -> tuple[int, int, int, int]:
    """Where a row of :func:`_visible` sorts: score (descending), moves, end, id."""
    return (-int(row[2]), int(row[3]), int(row[5]), int(row[0]))


def _key_of(place: BoardKey) -> tuple[int, int, int, int]:
    return (-place.score, place.moves, place.finished_ms, place.fair_id)


def _games_by_rank(
    connection: Connection, group: tuple[int, int] | None, inclusive: bool, batch: int
) -> tuple[list[int], tuple[int, int] | None, bool]:
    """Ids of about ``batch`` games after (or from, ``inclusive``) the (score, moves) ``group``,
    best first, ending with a whole group; that last group; whether there are more."""
    rank = select(games.c.id, games.c.score, games.c.move_count)
    if group is not None:
        score, moves = group
        later = or_(games.c.score < score, and_(games.c.score == score, games.c.move_count > moves))
        if inclusive:
            later = or_(later, and_(games.c.score == score, games.c.move_count == moves))
        rank = rank.where(later)
    rows = connection.execute(
        rank.order_by(games.c.score.desc(), games.c.move_count.asc()).limit(batch)
    ).all()
    if not rows:
        return [], group, False
    last = (int(rows[-1][1]), int(rows[-1][2]))
    if len(rows) < batch:
        return [int(row[0]) for row in rows], last, False
    whole = connection.execute(
        select(games.c.id).where(games.c.score == last[0], games.c.move_count == last[1])
    ).scalars()
    ids = [int(row[0]) for row in rows if (row[1], row[2]) != last]
    return ids + [int(i) for i in whole], last, True


def _visible(connection: Connection, ids: list[int], registered_only: bool) -> list[Any]:
    """The visible finished fair games among the games ``ids``, in the leaderboard's order."""
    found: list[Any] = []
    for low in range(0, len(ids), 500):
        query = (
            _ranked_games(fair_games, games, game_players, registered_only)
            .add_columns(*DETAIL_COLUMNS)
            .outerjoin(bot_signals, bot_signals.c.fair_id == fair_games.c.id)
            .where(games.c.id.in_(ids[low : low + 500]))
        )
        found.extend(connection.execute(query).all())
    return sorted(found, key=_key)


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
