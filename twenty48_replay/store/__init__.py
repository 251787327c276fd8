"""The event store: games as an append-only log of moves in SQL (SQLite by default).

``Store`` is the one entry point: it opens (and on first use creates) the
database, starts and resumes games as :class:`GameSession` objects whose
``play`` commits each move before returning, imports verified records,
exports records, and re-derives every projection in :meth:`Store.check`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import attrs
from sqlalchemy.exc import SQLAlchemyError

from twenty48_replay import __version__
from twenty48_replay.board import Direction
from twenty48_replay.errors import RecordError, StoreError
from twenty48_replay.game import GameState, Spawn
from twenty48_replay.record import Record
from twenty48_replay.replay import VerifyResult, final_state, verify
from twenty48_replay.store import connection as conn
from twenty48_replay.store import dialects, recorder, repository
from twenty48_replay.store.repository import GameFilter, GameInfo, Stats

__all__ = [
    "CheckReport",
    "GameInfo",
    "GameSession",
    "ImportOutcome",
    "Stats",
    "Store",
]

CLIENT = f"twenty48-replay {__version__}"


def now_ms() -> int:
    """Wall-clock time in integer milliseconds (how the store keeps time)."""
    return time.time_ns() // 1_000_000


def iso_ms(ms: int) -> str:
    """RFC 3339 UTC timestamp with milliseconds."""
    return (
        datetime.fromtimestamp(ms / 1000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def parse_iso_ms(text: object) -> int | None:
    """Milliseconds of an RFC 3339 timestamp, or None if it is not one."""
    if not isinstance(text, str):
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp() * 1000)


@attrs.frozen(slots=True)
class MoveOutcome:
    """What one stored move did."""

    state: GameState
    gained: int
    spawn: Spawn


@attrs.frozen(slots=True)
class ImportOutcome:
    """One imported record: the new game id, or the id of its exact duplicate."""

    game_id: int
    duplicate: bool


@attrs.frozen(slots=True)
class CheckReport:
    """Result of :meth:`Store.check`: every difference found, and the integrity check."""

    games: int
    moves: int
    problems: tuple[str, ...]

    @property
    def healthy(self) -> bool:
        """Nothing differs and the database's own check passed."""
        return not self.problems


class GameSession:
    """A game being played: its id and current state; every move is committed.

    ``play`` returns only after the move and its projection are durable, so
    a crash right after it loses nothing that was shown.  If another process
    appended to the same game meanwhile, ``play`` raises
    :class:`ConflictError` and writes nothing.
    """

    def __init__(self, store: Store, game_id: int, state: GameState, player: str | None) -> None:
        self.store = store
        self.id = game_id
        self.state = state
        self.player = player

    def play(self, direction: Direction, *, assisted: bool = False) -> MoveOutcome:
        """Apply a move (NullMoveError if it changes nothing), store it, then return."""
        after, gained, spawn = self.state.play(direction)
        with self.store.transaction() as connection:
            recorder.append_move(
                connection,
                self.id,
                self.state.moves,
                direction.letter,
                after,
                now_ms(),
                assisted=assisted,
            )
        self.state = after
        return MoveOutcome(after, gained, spawn)

    def mark_assisted(self) -> None:
        """Record that hints were used (the record will say ``"assisted": true``)."""
        with self.store.transaction() as connection:
            recorder.mark_assisted(connection, self.id)

    def __repr__(self) -> str:
        return f"<GameSession {self.id} at move {self.state.moves}>"


class Store:
    """A twenty48 database; see the module docstring."""

    def __init__(self, target: str | None = None) -> None:
        self.engine, self.name = conn.open_engine(target)
        self._batch = False

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Bulk imports: each record stays atomic, the disk is synced once at the end.

        Inside the block a committed record survives a crash of this process
        (the operating system holds it) but is not forced to disk one by one;
        leaving the block forces everything to disk, so when an import
        command reports success its records are as durable as single moves.
        """
        self._batch = True
        try:
            yield
        finally:
            self._batch = False
            try:
                dialects.sync_now(self.engine)
            except SQLAlchemyError as exc:
                raise conn.driver_error(exc, self.name) from None

    def close(self) -> None:
        """Release connections."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def transaction(self) -> Any:
        """A write transaction (context manager yielding a connection)."""
        return conn.transaction(self.engine, self.name, deferred_sync=self._batch)

    def reading(self) -> Any:
        """A read-only connection (context manager)."""
        return conn.reading(self.engine, self.name)

    # ------------------------------------------------------------------ games

    def new_game(self, seed: str | None = None, player: str | None = None) -> GameSession:
        """Start and store a new game (a random seed if None)."""
        state = GameState.new(seed)
        with self.transaction() as connection:
            game_id = recorder.create_game(connection, state, player=player, now_ms=now_ms())
        return GameSession(self, game_id, state, player)

    def open_game(self, game_id: int) -> GameSession:
        """Load a game by replaying its log; refuses a log that disagrees with its projection."""
        with self.reading() as connection:
            info = repository.get_game(connection, game_id)
            letters = repository.move_letters(connection, game_id)
        state, null_move = final_state(Record(info.seed, letters, info.score))
        if null_move is not None or state.board != info.board or state.score != info.score:
            raise StoreError(
                f"{self.name}: game {game_id} does not replay to its stored state; "
                "run 'twenty48 check'"
            )
        return GameSession(self, game_id, state, info.player)

    def resume_latest(self) -> GameSession | None:
        """The most recently played unfinished game, loaded, or None."""
        with self.reading() as connection:
            game_id = repository.latest_unfinished(connection)
        return None if game_id is None else self.open_game(game_id)

    def game(self, game_id: int) -> GameInfo:
        """One game's row."""
        with self.reading() as connection:
            return repository.get_game(connection, game_id)

    def moves(self, game_id: int) -> str:
        """One game's move string."""
        with self.reading() as connection:
            repository.get_game(connection, game_id)
            return repository.move_letters(connection, game_id)

    def list_games(
        self,
        *,
        limit: int | None = 20,
        state: GameFilter = "all",
        player: str | None = None,
        seed: str | None = None,
    ) -> list[GameInfo]:
        """Recent games, filtered (see :func:`repository.list_games`)."""
        with self.reading() as connection:
            return repository.list_games(
                connection, limit=limit, state=state, player=player, seed=seed
            )

    def stats(self, player: str | None = None) -> Stats:
        """Totals over the store."""
        with self.reading() as connection:
            return repository.stats(connection, player)

    def best_score(self) -> int:
        """The best score in the store."""
        with self.reading() as connection:
            return repository.best_score(connection)

    # ------------------------------------------------------- records in and out

    def export_record(self, game_id: int) -> Record:
        """A game as a v1 record (claims from the replay, metadata from the row)."""
        with self.reading() as connection:
            info = repository.get_game(connection, game_id)
            letters = repository.move_letters(connection, game_id)
        state, _ = final_state(Record(info.seed, letters, 0))
        if info.extra is not None:
            extra = dict(info.extra)
        else:
            extra = {}
            if info.player is not None:
                extra["player"] = info.player
            extra["started"] = iso_ms(info.created_ms)
            if info.over:
                extra["finished"] = iso_ms(info.updated_ms)
            extra["client"] = CLIENT
            if info.assisted:
                extra["assisted"] = True
        return Record(
            seed=info.seed,
            moves=letters,
            score=state.score,
            max_tile=state.max_tile,
            final_board=tuple(tuple(row) for row in state.board.to_rows()),  # type: ignore[misc]
            extra=extra,
        )

    def export_all(self) -> Iterator[Record]:
        """Every game as a record, oldest first."""
        with self.reading() as connection:
            ids = repository.all_game_ids(connection)
        for game_id in ids:
            yield self.export_record(game_id)

    def import_record(self, record: Record, result: VerifyResult | None = None) -> ImportOutcome:
        """Verify a record and store it as a new game, in one transaction.

        ``result`` is the record's verification if the caller already has it
        (batch imports verify in worker processes).  An invalid record raises
        :class:`ImportRejectedError` and nothing is written; an exact duplicate
        (same seed and moves) is skipped and its existing id returned.
        """
        if result is None:
            result = verify(record)
        if not result.valid:
            raise ImportRejectedError("; ".join(result.reasons))
        state = GameState(record.seed, result.board, result.score, result.moves)
        extra = record.extra
        with self.transaction() as connection:
            duplicate = repository.find_duplicate(connection, record.seed, record.moves)
            if duplicate is not None:
                return ImportOutcome(duplicate, True)
            stamp = now_ms()
            game_id = recorder.create_game(
                connection,
                state,
                player=record.player,
                now_ms=stamp,
                created_ms=parse_iso_ms(extra.get("started")),
                assisted=extra.get("assisted") is True,
                extra=extra,
            )
            recorder.insert_moves(connection, game_id, record.moves)
        return ImportOutcome(game_id, False)

    # ------------------------------------------------------------------ check

    def check(self) -> CheckReport:
        """Replay every game from seed + moves and compare with its projection."""
        problems: list[str] = []
        total_moves = 0
        with self.reading() as connection:
            ids = repository.all_game_ids(connection)
            for game_id in ids:
                info = repository.get_game(connection, game_id)
                letters = repository.move_letters(connection, game_id)
                total_moves += len(letters)
                problems.extend(_compare(info, letters))
            problems.extend(
                f"integrity check: {line}" for line in dialects.integrity_check(connection)
            )
        return CheckReport(len(ids), total_moves, tuple(problems))


class ImportRejectedError(RecordError):
    """A record failed verification, so it was not imported (exit 1)."""

    exit_code = 1

    def __init__(self, reason: str) -> None:
        super().__init__(reason)


def _compare(info: GameInfo, letters: str) -> list[str]:
    """Differences between a game's projection and the replay of its log."""
    state, null_move = final_state(Record(info.seed, letters, 0))
    where = f"game {info.id}"
    found = []
    if null_move is not None:
        found.append(f"{where}: log has an invalid move: {null_move}")
    if len(letters) != info.move_count:
        found.append(f"{where}: projection has {info.move_count} moves, the log {len(letters)}")
    if state.score != info.score:
        found.append(f"{where}: projection score {info.score}, replayed {state.score}")
    if state.max_tile != info.max_tile:
        found.append(f"{where}: projection max tile {info.max_tile}, replayed {state.max_tile}")
    if state.board != info.board:
        found.append(f"{where}: projection board differs from the replayed board")
    if (state.won, state.over) != (info.won, info.over):
        found.append(
            f"{where}: projection won/over {info.won}/{info.over}, "
            f"replayed {state.won}/{state.over}"
        )
    return found
