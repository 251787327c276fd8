"""Game states and the one rule that advances them: move, then spawn.

``GameState`` is what a player sees after each valid move; ``GameState.play``
is the only way forward, so interactive play, the store and replays all go
through the same transition.  The bulk paths (replaying a whole record) use
:func:`twenty48_replay.core.engine.run`, which implements the same transition
on raw packed states and is cross-checked against this one in the tests.
"""

from __future__ import annotations

from functools import lru_cache

import attrs

from twenty48_replay.core import native, rows
from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.errors import NullMoveError, RecordError
from twenty48_replay.core.rng import SpawnRng, new_seed, seed_key

WIN_TILE = 2048


@lru_cache(maxsize=64)
def rng_for(seed: str) -> SpawnRng:
    """The spawn RNG of a seed, cached: its HMAC key states are hashed once."""
    return SpawnRng(seed)


@attrs.frozen(slots=True)
class Spawn:
    """A tile placed by the RNG: cell index (row-major) and value (2 or 4)."""

    cell: int
    value: int

    def to_json(self) -> dict[str, int]:
        """``{"cell": c, "value": v}``."""
        return {"cell": self.cell, "value": self.value}


def place_spawn(board: Board, rng: SpawnRng, k: int) -> tuple[Board, Spawn]:
    """Place spawn number ``k`` on ``board``."""
    cell, value = rng.spawn(k, board.empty_cells())
    return board.with_tile(cell, value), Spawn(cell, value)


def opening(seed: str) -> tuple[Board, Spawn, Spawn]:
    """The opening board of a seed and its two spawns (k = 0 and k = 1)."""
    rng = rng_for(seed)
    board, first = place_spawn(Board.empty(), rng, 0)
    board, second = place_spawn(board, rng, 1)
    return board, first, second


@attrs.frozen(slots=True)
class GameState:
    """A game after ``moves`` valid moves: board, score and flags.

    ``won`` means a tile of 2048 or more exists (the game was won at some
    point); ``over`` that no direction changes the board.
    """

    seed: str
    board: Board
    score: int = 0
    moves: int = 0

    @classmethod
    def new(cls, seed: str | None = None) -> GameState:
        """A new game: the opening board of ``seed`` (a random seed if None)."""
        seed = new_seed() if seed is None else seed
        board, _first, _second = opening(seed)
        return cls(seed, board)

    @property
    def won(self) -> bool:
        """A tile of 2048 or more is on the board."""
        return self.board.max_tile >= WIN_TILE

    @property
    def over(self) -> bool:
        """No direction changes the board."""
        return self.board.is_over()

    @property
    def max_tile(self) -> int:
        """The largest tile on the board."""
        return self.board.max_tile

    def play(self, direction: Direction) -> tuple[GameState, int, Spawn]:
        """Apply a move and its spawn; returns (next state, points gained, spawn).

        Raises :class:`NullMoveError` when the direction changes nothing, as the
        original game ignores such a key press and a record cannot hold it.
        With the native core the move and its spawn are one C call.
        """
        if native.core is not None:
            return self._play_native(direction)
        native.require()
        return self._play_python(direction)

    def _play_python(self, direction: Direction) -> tuple[GameState, int, Spawn]:
        """:meth:`play` in pure Python: the reference transition."""
        slid = self.board.slide(direction)
        if not slid.changed:
            raise NullMoveError(direction.letter, self.moves + 1, over=self.board.is_over())
        board, spawn = place_spawn(slid.board, rng_for(self.seed), self.moves + 2)
        return (
            GameState(self.seed, board, self.score + slid.gained, self.moves + 1),
            slid.gained,
            spawn,
        )

    def _play_native(self, direction: Direction) -> tuple[GameState, int, Spawn]:
        """:meth:`play` through the native core, with the same results and errors."""
        try:
            key = seed_key(self.seed)
        except RecordError:  # let the pure-Python path raise what it raises, in its order
            return self._play_python(direction)
        try:
            played = native.core.play(key, self.board.packed, self.moves, direction.code)
        except OverflowError as exc:
            raise rows.TileOverflowError(str(exc)) from None
        if played is None:
            raise NullMoveError(direction.letter, self.moves + 1, over=self.board.is_over())
        packed, gained, cell, four = played
        return (
            GameState(self.seed, Board(packed), self.score + gained, self.moves + 1),
            gained,
            Spawn(cell, 4 if four else 2),
        )


@attrs.frozen(slots=True)
class MoveOutcome:
    """What one move did: the state after it, the points it gained and the tile it spawned."""

    state: GameState
    gained: int
    spawn: Spawn
