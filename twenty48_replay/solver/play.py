"""The solver's game loop: the solver chooses, :meth:`GameState.play` advances.

Going through ``GameState.play`` (the one transition every other path
uses) means a solver-played move string is a valid record by construction;
the solver itself never sees the seed, only the board.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.game import GameState
from twenty48_replay.solver.dispatch import search
from twenty48_replay.solver.settings import SearchSettings

#: Called after every move with the new state and the direction played.
Progress = Callable[[GameState, Direction], None]


@attrs.frozen
class PlayedGame:
    """A solver-played game: its move string, last state, time spent and nodes searched."""

    moves: str
    state: GameState
    seconds: float
    nodes: int = 0


def best_move(
    board: Board, settings: SearchSettings | None = None
) -> tuple[Direction | None, dict[Direction, float]]:
    """The best direction from ``board`` and the expected value of every valid one.

    The direction is None only when no move is valid (the game is over).
    Ties go to the first direction in U, D, L, R order.  The search is the
    C one when it is built (see :mod:`~twenty48_replay.solver.dispatch`);
    without ``settings``, that engine's default strength.
    """
    direction, values, _nodes = _choose(board, settings)
    return direction, values


def _choose(
    board: Board, settings: SearchSettings | None
) -> tuple[Direction | None, dict[Direction, float], int]:
    """:func:`best_move` and the nodes the search took."""
    result = search(board, settings)
    values = {d: result.values[d.code] for d in _ORDER if d.code in result.values}
    if not values:
        return None, {}, result.nodes
    return max(values, key=values.__getitem__), values, result.nodes


_ORDER = (Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT)


def play_game(
    seed: str,
    until_tile: int | None = None,
    *,
    max_moves: int | None = None,
    settings: SearchSettings | None = None,
    progress: Progress | None = None,
    state: GameState | None = None,
) -> PlayedGame:
    """Play ``seed`` with the solver until ``until_tile`` appears, the game is lost or
    ``max_moves`` moves are made.

    Returns the moves played (from ``state``, the opening if None), the last
    state, the seconds spent and the nodes searched.  Stops right after the move that first
    makes a tile of at least ``until_tile``.
    """
    start = time.perf_counter()
    state = GameState.new(seed) if state is None else state
    letters: list[str] = []
    nodes = 0
    while max_moves is None or len(letters) < max_moves:
        if until_tile is not None and state.max_tile >= until_tile:
            break
        direction, _values, searched = _choose(state.board, settings)
        nodes += searched
        if direction is None:
            break
        state, _gained, _spawn = state.play(direction)
        letters.append(direction.letter)
        if progress is not None:
            progress(state, direction)
    return PlayedGame("".join(letters), state, time.perf_counter() - start, nodes)
