"""Built-in expectimax solver (never imported by ``twenty48_replay``).

>>> from twenty48_replay import Board, Direction
>>> from twenty48_replay.solver import best_move
>>> board = Board.from_rows([[1024, 1024, 0, 0], [0] * 4, [0] * 4, [0] * 4])
>>> direction, values = best_move(board)   # values: expected heuristic value per valid move
>>> sorted(d.letter for d in values), direction in values
(['D', 'L', 'R'], True)

Modules: :mod:`~twenty48_replay.solver.tables` (row tables and the heuristic,
with its weights and their source), :mod:`~twenty48_replay.solver.boards`
(arrays of boards), :mod:`~twenty48_replay.solver.expectimax` (the
breadth-first expectimax in NumPy), :mod:`~twenty48_replay.solver.native_search`
(the same search in C, ``twenty48_replay._solver``, when it is built),
:mod:`~twenty48_replay.solver.dispatch` (which of the two runs; NumPy is
imported only when the NumPy search runs), :mod:`~twenty48_replay.solver.settings`
(what both take and answer),
:mod:`~twenty48_replay.solver.strength` (``--strength``) and
:mod:`~twenty48_replay.solver.play` (the game loop).
"""

from twenty48_replay.solver.dispatch import default_settings, engine_name, search
from twenty48_replay.solver.play import PlayedGame, Progress, best_move, play_game
from twenty48_replay.solver.settings import SearchResult, SearchSettings
from twenty48_replay.solver.strength import Strength

__all__ = [
    "PlayedGame",
    "Progress",
    "SearchResult",
    "SearchSettings",
    "Strength",
    "best_move",
    "default_settings",
    "engine_name",
    "play_game",
    "search",
]
