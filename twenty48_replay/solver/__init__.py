"""Built-in expectimax solver (imports NumPy; never imported by ``twenty48_replay``).

>>> from twenty48_replay import Board, Direction
>>> from twenty48_replay.solver import best_move
>>> board = Board.from_rows([[1024, 1024, 0, 0], [0] * 4, [0] * 4, [0] * 4])
>>> direction, values = best_move(board)   # values: expected heuristic value per valid move
>>> sorted(d.letter for d in values), direction in values
(['D', 'L', 'R'], True)

Modules: :mod:`~twenty48_replay.solver.tables` (row tables and the heuristic,
with its weights and their source), :mod:`~twenty48_replay.solver.boards`
(arrays of boards), :mod:`~twenty48_replay.solver.expectimax` (the
breadth-first expectimax) and :mod:`~twenty48_replay.solver.play` (the game
loop).
"""

from twenty48_replay.solver.expectimax import SearchResult, SearchSettings, search
from twenty48_replay.solver.play import PlayedGame, Progress, best_move, play_game

__all__ = [
    "PlayedGame",
    "Progress",
    "SearchResult",
    "SearchSettings",
    "best_move",
    "play_game",
    "search",
]
