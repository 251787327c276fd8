"""Reading from the store: games, their logs, listings and statistics."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

import attrs
from sqlalchemy import Row, func, select
from sqlalchemy.engine import Connection

from twenty48_replay.board import Board
from twenty48_replay.errors import GameNotFoundError
from twenty48_replay.record import loads_value
from twenty48_replay.store.tables import games, moves

GameFilter = Literal["all", "unfinished", "over", "won"]


@attrs.frozen(slots=True)
class GameInfo:
    """One game row: identity, metadata and the projection of its log."""

    id: int
    seed: str
    rules_version: int
    player: str | None
    created_ms: int
    updated_ms: int
    move_count: int
    score: int
    max_tile: int
    board: Board
    won: bool
    over: bool
    assisted: bool
    extra: dict[str, Any] | None

    @property
    def state_label(self) -> str:
        """``over``, ``won`` (still playable), or ``playing``."""
        return "over" if self.over else "won" if self.won else "playing"


def _info(row: Row[Any]) -> GameInfo:
    return GameInfo(
        id=row.id,
        seed=row.seed,
        rules_version=row.rules_version,
        player=row.player,
        created_ms=row.created_ms,
        updated_ms=row.updated_ms,
        move_count=row.move_count,
        score=row.score,
        max_tile=row.max_tile,
        board=Board(int(row.board, 16)),
        won=bool(row.won),
        over=bool(row.over),
        assisted=bool(row.assisted),
        extra=None if row.extra is None else loads_value(row.extra),
    )


def get_game(connection: Connection, game_id: int) -> GameInfo:
    """The game with this id, or :class:`GameNotFoundError`."""
    row = connection.execute(select(games).where(games.c.id == game_id)).first()
    if row is None:
        raise GameNotFoundError(game_id)
    return _info(row)


def move_letters(connection: Connection, game_id: int) -> str:
    """The whole log of a game as a move string, in sequence order."""
    result = connection.execute(
        select(moves.c.direction).where(moves.c.game_id == game_id).order_by(moves.c.seq)
    )
    return "".join(result.scalars().all())


def latest_unfinished(connection: Connection) -> int | None:
    """Id of the most recently played game that is not over (what ``play`` resumes)."""
    return connection.execute(
        select(games.c.id)
        .where(games.c.over.is_(False))
        .order_by(games.c.updated_ms.desc(), games.c.id.desc())
        .limit(1)
    ).scalar_one_or_none()


def list_games(
    connection: Connection,
    *,
    limit: int | None = 20,
    state: GameFilter = "all",
    player: str | None = None,
    seed: str | None = None,
) -> list[GameInfo]:
    """Games, most recently played first, filtered."""
    query = select(games).order_by(games.c.updated_ms.desc(), games.c.id.desc())
    if state == "unfinished":
        query = query.where(games.c.over.is_(False))
    elif state == "over":
        query = query.where(games.c.over.is_(True))
    elif state == "won":
        query = query.where(games.c.won.is_(True))
    if player is not None:
        query = query.where(games.c.player == player)
    if seed is not None:
        query = query.where(games.c.seed == seed)
    if limit is not None:
        query = query.limit(limit)
    return [_info(row) for row in connection.execute(query)]


def find_duplicate(connection: Connection, seed: str, letters: str) -> int | None:
    """Id of a stored game with exactly this seed and move string, if any."""
    candidates = connection.execute(
        select(games.c.id).where(games.c.seed == seed, games.c.move_count == len(letters))
    ).scalars()
    for game_id in list(candidates):
        if move_letters(connection, game_id) == letters:
            return int(game_id)
    return None


def all_game_ids(connection: Connection) -> list[int]:
    """Every game id, ascending."""
    return [int(i) for i in connection.execute(select(games.c.id).order_by(games.c.id)).scalars()]


@attrs.frozen(slots=True)
class Stats:
    """Totals over the whole store."""

    games: int
    finished: int
    wins: int
    best_score: int
    average_score: float
    total_moves: int
    max_tiles: dict[int, int]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (tile distribution keys as strings, highest first)."""
        return {
            "games": self.games,
            "finished": self.finished,
            "wins": self.wins,
            "best_score": self.best_score,
            "average_score": round(self.average_score, 1),
            "total_moves": self.total_moves,
            "max_tiles": {str(k): v for k, v in sorted(self.max_tiles.items(), reverse=True)},
        }


def stats(connection: Connection, player: str | None = None) -> Stats:
    """Best score, games, wins, average score and the highest-tile distribution."""
    where = [] if player is None else [games.c.player == player]
    totals = connection.execute(
        select(
            func.count(),
            func.coalesce(func.sum(games.c.over.cast(games.c.move_count.type)), 0),
            func.coalesce(func.sum(games.c.won.cast(games.c.move_count.type)), 0),
            func.coalesce(func.max(games.c.score), 0),
            func.coalesce(func.avg(games.c.score), 0),
            func.coalesce(func.sum(games.c.move_count), 0),
        ).where(*where)
    ).one()
    tiles = Counter(
        {
            int(tile): int(count)
            for tile, count in connection.execute(
                select(games.c.max_tile, func.count()).where(*where).group_by(games.c.max_tile)
            )
        }
    )
    return Stats(
        games=int(totals[0]),
        finished=int(totals[1]),
        wins=int(totals[2]),
        best_score=int(totals[3]),
        average_score=float(totals[4]),
        total_moves=int(totals[5]),
        max_tiles=dict(tiles),
    )


def best_score(connection: Connection) -> int:
    """The highest score of any game."""
    return int(connection.execute(select(func.coalesce(func.max(games.c.score), 0))).scalar_one())
