"""Reading from the store: games, their logs, listings and statistics."""

from __future__ import annotations

import enum
import hashlib
import itertools
from collections import Counter
from collections.abc import Iterator
from typing import Any, Final, Literal

import attrs
from sqlalchemy import Integer, Row, func, select, type_coerce
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeDecorator

from twenty48_replay.core.board import Board
from twenty48_replay.core.errors import GameNotFoundError, RecordError
from twenty48_replay.core.game import GameState
from twenty48_replay.core.record import Record, loads_value, only_move_letters
from twenty48_replay.core.replay import final_state
from twenty48_replay.core.rng import seed_key
from twenty48_replay.store.tables import games, log_digests, moves

GameFilter = Literal["all", "unfinished", "over", "won"]


@attrs.frozen(slots=True)
class GameInfo:
    """One game row: identity, metadata and the projection of its log.

    ``damage`` lists what is wrong with the row itself (a board that is not
    hex, ``extra`` that is not a JSON object, ...); a damaged field holds a
    harmless stand-in so listings still work, and every read of the game
    refuses it (see :func:`game_problems`).
    """

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
    damage: tuple[str, ...] = ()

    @property
    def sealed(self) -> bool:
        """A signed record (its metadata has a ``signature``): it takes no more moves.

        The signature covers the move string, so one more local move would
        make the record invalid; see :class:`~twenty48_replay.core.errors.SealedGameError`.
        """
        return is_sealed(self.extra)

    @property
    def state_label(self) -> str:
        """``damaged``, ``over``, ``won`` (still playable), or ``playing``."""
        if self.damage:
            return "damaged"
        return "over" if self.over else "won" if self.won else "playing"


def is_sealed(extra: dict[str, Any] | None) -> bool:
    """Whether a game's stored metadata makes it a sealed, signed record."""
    return extra is not None and "signature" in extra


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _info(row: Row[Any]) -> GameInfo:
    """A game row as read, every field checked: nothing stored is trusted."""
    damage: list[str] = []

    def whole(name: str) -> int:
        value = getattr(row, name)
        if isinstance(value, bool) or not isinstance(value, int):
            damage.append(f"{name} is {_shown(value)}, not a whole number")
            return 0
        return value

    def flag(name: str) -> bool:
        value = getattr(row, name)
        if value not in (0, 1) or isinstance(value, float):
            damage.append(f"{name} is {_shown(value)}, not a boolean")
            return False
        return bool(value)

    seed = row.seed
    if not isinstance(seed, str):
        damage.append(f"seed is {_shown(seed)}, not text")
        seed = ""
    else:
        try:
            seed_key(seed)
        except RecordError as exc:
            damage.append(exc.reason)
    player = row.player
    if player is not None and not isinstance(player, str):
        damage.append(f"player is {_shown(player)}, not text")
        player = None
    board = row.board
    if isinstance(board, str) and 0 < len(board) <= 20 and _HEX.issuperset(board):
        packed = Board(int(board, 16))
    else:
        damage.append(f"board {_shown(board)} is not a packed board in hex")
        packed = Board(0)
    return GameInfo(
        id=whole("id"),
        seed=seed,
        rules_version=whole("rules_version"),
        player=player,
        created_ms=whole("created_ms"),
        updated_ms=whole("updated_ms"),
        move_count=whole("move_count"),
        score=whole("score"),
        max_tile=whole("max_tile"),
        board=packed,
        won=flag("won"),
        over=flag("over"),
        assisted=flag("assisted"),
        extra=_extra(row.extra, damage),
        damage=tuple(damage),
    )


def _extra(stored: object, damage: list[str]) -> dict[str, Any] | None:
    if stored is None:
        return None
    try:
        value = loads_value(stored) if isinstance(stored, str) else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        damage.append("extra is not a JSON object")
        return None
    return value


_HEX: Final = frozenset("0123456789abcdef")


def _games_query() -> Any:
    """Every games column, read without conversions that could fail on a damaged row."""
    return select(*(type_coerce(c, _Raw) if c.name in _RAW else c for c in games.columns))


class _Raw(TypeDecorator[Any]):
    """A column read as the driver returns it (booleans checked by :func:`_info`)."""

    impl = Integer
    cache_ok = True


_RAW: Final = frozenset({"won", "over", "assisted"})


def get_game(connection: Connection, game_id: int) -> GameInfo:
    """The game with this id, or :class:`GameNotFoundError`."""
    row = connection.execute(_games_query().where(games.c.id == game_id)).first()
    if row is None:
        raise GameNotFoundError(game_id)
    return _info(row)


def move_log(
    connection: Connection, game_id: int, *, sequence: bool = False
) -> tuple[str, list[str]]:
    """A game's log as a move string, and what is wrong with its rows (empty if nothing).

    ``sequence``: also check that the sequence numbers are 1, 2, 3, ...
    (``check`` does; a read need not, since the digest covers the letters
    in their order and the move count their number).
    """
    if sequence:
        rows = connection.execute(
            select(moves.c.seq, moves.c.direction)
            .where(moves.c.game_id == game_id)
            .order_by(moves.c.seq)
        ).all()
        return _log([row[1] for row in rows], [row[0] for row in rows])
    directions = list(
        connection.execute(
            select(moves.c.direction).where(moves.c.game_id == game_id).order_by(moves.c.seq)
        ).scalars()
    )
    return _log(directions, None)


def _log(directions: list[Any], sequence: list[Any] | None) -> tuple[str, list[str]]:
    """A log's rows (directions, and sequence numbers to check) as a move string and problems."""
    problems = []
    try:  # fast path: every row one of U, D, L, R
        letters = "".join(directions)
        sound = len(letters) == len(directions) and only_move_letters(letters)
    except TypeError:
        sound = False
    if not sound:
        position = next(
            i for i, d in enumerate(directions, 1) if not (type(d) is str and d in _LETTERS)
        )
        problems.append(f"move {position} is {_shown(directions[position - 1])}, not U, D, L or R")
        directions = [d if type(d) is str and d in _LETTERS else "?" for d in directions]
        letters = "".join(directions)
    if sequence is not None and sequence != list(range(1, len(sequence) + 1)):
        problems.append("the log's sequence numbers are not 1, 2, 3, ...")
    return letters, problems


@attrs.frozen(slots=True)
class CheckedGame:
    """One game as ``check`` reads it: its row, its log and the log's problems, its digest."""

    info: GameInfo
    letters: str
    log_problems: list[str]
    digest: str | None


def games_to_check(
    connection: Connection, *, digests: bool, moves_per_read: int = 100_000
) -> Iterator[CheckedGame]:
    """Every game with its log and digest, in id order, read a few hundred games at a time.

    Three queries per batch of games instead of three per game: at a
    million games, per-game statements cost most of ``check``'s time.
    A batch holds about ``moves_per_read`` moves by the games' move counts
    (a damaged count is taken as 0, so at worst one batch is larger).
    """
    sizes = connection.execute(select(games.c.id, games.c.move_count).order_by(games.c.id)).all()
    batch: list[int] = []
    planned = 0
    for game_id, count in sizes:
        batch.append(int(game_id))
        planned += count if type(count) is int and count > 0 else 0
        if planned >= moves_per_read or len(batch) >= 1000:
            yield from _checked_batch(connection, batch, digests)
            batch, planned = [], 0
    if batch:
        yield from _checked_batch(connection, batch, digests)


def _checked_batch(connection: Connection, ids: list[int], digests: bool) -> Iterator[CheckedGame]:
    low, high = ids[0], ids[-1]
    rows = {
        int(row.id): row
        for row in connection.execute(_games_query().where(games.c.id.between(low, high)))
    }
    logs: dict[int, tuple[list[Any], list[Any]]] = {}
    for game_id, seq, direction in connection.execute(
        select(moves.c.game_id, moves.c.seq, moves.c.direction)
        .where(moves.c.game_id.between(low, high))
        .order_by(moves.c.game_id, moves.c.seq)
    ):
        directions, sequence = logs.setdefault(game_id, ([], []))
        directions.append(direction)
        sequence.append(seq)
    stored: dict[int, Any] = {}
    if digests:
        stored = dict(
            connection.execute(
                select(log_digests.c.game_id, log_digests.c.digest).where(
                    log_digests.c.game_id.between(low, high)
                )
            ).all()
        )
    for game_id in ids:
        directions, sequence = logs.get(game_id, ([], []))
        letters, problems = _log(directions, sequence)
        digest = stored.get(game_id)
        yield CheckedGame(
            _info(rows[game_id]), letters, problems, digest if isinstance(digest, str) else None
        )


_LETTERS: Final = frozenset("UDLR")


def move_letters(connection: Connection, game_id: int) -> str:
    """The whole log of a game as a move string, in sequence order."""
    return move_log(connection, game_id)[0]


def stored_digest(connection: Connection, game_id: int) -> str | None:
    """The projection's digest of a game's log (None if there is none)."""
    value = connection.execute(
        select(log_digests.c.digest).where(log_digests.c.game_id == game_id)
    ).scalar_one_or_none()
    return value if isinstance(value, str) else None


def log_digest(letters: str) -> str:
    """SHA-256 (hex) of a move string: what the projection keeps of its log."""
    return hashlib.sha256(letters.encode("ascii", "replace")).hexdigest()


def game_problems(
    info: GameInfo,
    letters: str,
    log_problems: list[str],
    digest: str | None,
    *,
    check_digest: bool = True,
) -> tuple[list[str], GameState | None]:
    """Every way a game's row, log and projection disagree (empty: the game is sound).

    Also returns the replayed state (None if the row or log is too damaged
    to replay), so a reader never replays twice.
    """
    found = list(info.damage) + log_problems
    if check_digest and digest != log_digest(letters):
        what = "has no digest" if digest is None else "does not match its digest"
        found.append(f"its move log {what}")
    if len(letters) != info.move_count:
        found.append(f"projection has {info.move_count} moves, the log {len(letters)}")
    if found:
        return found, None
    state, null_move = final_state(Record(info.seed, letters, 0))
    if null_move is not None:
        found.append(f"log has an invalid move: {null_move}")
    if state.score != info.score:
        found.append(f"projection score {info.score}, replayed {state.score}")
    if state.max_tile != info.max_tile:
        found.append(f"projection max tile {info.max_tile}, replayed {state.max_tile}")
    if state.board != info.board:
        found.append("projection board differs from the replayed board")
    if (state.won, state.over) != (info.won, info.over):
        found.append(
            f"projection won/over {info.won}/{info.over}, replayed {state.won}/{state.over}"
        )
    return found, state


class AnyPlayer(enum.Enum):
    """The type of :data:`ANY_PLAYER`."""

    ANY = "any"


#: A player filter that keeps every game (``None`` keeps games without a player).
ANY_PLAYER: Final = AnyPlayer.ANY

PlayerFilter = str | None | AnyPlayer


def _of_player(player: PlayerFilter) -> list[Any]:
    """Conditions keeping the games of ``player`` (a name, None: no name, or anyone)."""
    if player is ANY_PLAYER:
        return []
    if player is None:
        return [games.c.player.is_(None)]
    return [games.c.player == player]


def latest_unfinished(connection: Connection, player: PlayerFilter = ANY_PLAYER) -> int | None:
    """Id of the most recently played game that is not over nor sealed (what ``play`` resumes).

    ``player`` keeps only that player's games: ``play`` resumes the current
    player's own game, never one that ``autoplay`` (player "solver") or an
    import left unfinished.  Sealed games (signed records, see
    :attr:`GameInfo.sealed`) are skipped in Python, reading only the metadata
    of the unfinished games newer than the one returned: the JSON is checked
    as parsed, not matched as text.
    """
    rows = connection.execute(
        select(games.c.id, games.c.extra)
        .where(games.c.over.is_(False), *_of_player(player))
        .order_by(games.c.updated_ms.desc(), games.c.id.desc())
    )
    for game_id, stored in rows:
        if stored is None or not is_sealed(_extra(stored, [])):
            return int(game_id)
    return None


def list_games(
    connection: Connection,
    *,
    limit: int | None = 20,
    state: GameFilter = "all",
    player: str | None = None,
    seed: str | None = None,
) -> list[GameInfo]:
    """Games, most recently played first, filtered."""
    query = _games_query().order_by(games.c.updated_ms.desc(), games.c.id.desc())
    if state == "unfinished":
        # Not over and not sealed: the games that can still be played.  Sealed
        # games are told apart by their checked metadata, so the limit is applied
        # after that filter.
        query = query.where(games.c.over.is_(False))
        if player is not None:
            query = query.where(games.c.player == player)
        if seed is not None:
            query = query.where(games.c.seed == seed)
        playable = (info for info in map(_info, connection.execute(query)) if not info.sealed)
        return list(itertools.islice(playable, limit))
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
    """Id of a stored game with exactly this seed and move string (by its log digest)."""
    found = connection.execute(
        select(games.c.id)
        .join(log_digests, log_digests.c.game_id == games.c.id)
        .where(
            games.c.seed == seed,
            games.c.move_count == len(letters),
            log_digests.c.digest == log_digest(letters),
        )
        .order_by(games.c.id)
        .limit(1)
    ).scalar_one_or_none()
    return None if found is None else int(found)


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
    """Best score, games, wins, average score and the highest-tile distribution.

    Rows whose projection numbers are not numbers (a damaged SQLite file)
    are left out rather than breaking the totals; ``twenty48 check`` names them.
    """
    where = _sound_numbers(connection) + ([] if player is None else [games.c.player == player])
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


def best_score(connection: Connection, player: PlayerFilter = ANY_PLAYER) -> int:
    """The highest score of ``player``'s games (rows with a damaged score left out).

    ``play`` shows the current player's own best (BEST), not the best of
    every game in the database: imported examples or the solver's games are
    not the player's record to beat.
    """
    return int(
        connection.execute(
            select(func.coalesce(func.max(games.c.score), 0)).where(
                *_sound_numbers(connection), *_of_player(player)
            )
        ).scalar_one()
    )


def _sound_numbers(connection: Connection) -> list[Any]:
    """Conditions keeping rows whose projection numbers are integers.

    PostgreSQL enforces column types; SQLite stores whatever it is given,
    so a damaged file can hold text where a score belongs.
    """
    if connection.dialect.name != "sqlite":
        return []
    return [
        func.typeof(column) == "integer"
        for column in (
            games.c.score,
            games.c.max_tile,
            games.c.move_count,
            games.c.won,
            games.c.over,
        )
    ]
