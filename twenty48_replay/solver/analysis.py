"""Annotating a played game, the way chess engines annotate games.

For every position of a replay: the move played, the solver's best move
and the expected-value loss of the played move (best value minus played
value, in the solver's heuristic units).  The summary gives accuracy, the
largest mistakes, and the four classic mistakes of the rules page measured
on the game:

1. *All four directions*: corner play uses three directions; we count
   moves in the game's least-used direction (the one that pulls the big
   tiles away from their edge) and how often the largest tile left its corner.
2. *Merges in the middle*: moves after which the largest tile is no longer
   in a corner although it was before.
3. *Walled-in small tiles*: positions with a small tile (at most 1/16 of
   the largest) whose every orthogonal neighbour is at least 8 times bigger.
4. *Hasty moves on a crowded board*: moves played with only two or three
   empty cells, and how many of those were not the solver's choice.

Positions are independent, so they are searched in a process pool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any

import attrs

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import replay
from twenty48_replay.core.workers import worker_pool
from twenty48_replay.solver.play import best_move
from twenty48_replay.solver.settings import SearchSettings

CORNERS = (0, 3, 12, 15)
#: EV losses below this fraction of the best value count as a match (ties, noise).
MATCH_TOLERANCE = 1e-9


@attrs.frozen
class Annotation:
    """One position: the board before move ``number`` and what was played there."""

    number: int
    board: Board
    played: Direction
    best: Direction
    values: dict[Direction, float]
    empty: int

    @property
    def loss(self) -> float:
        """Expected value given up by the played move (0 when it was the best)."""
        return max(0.0, self.values[self.best] - self.values.get(self.played, float("-inf")))

    @property
    def relative_loss(self) -> float:
        """Loss as a fraction of the best move's value."""
        best = abs(self.values[self.best]) or 1.0
        return self.loss / best

    @property
    def matched(self) -> bool:
        """The played move is the solver's choice (or as good)."""
        return self.relative_loss <= MATCH_TOLERANCE

    def to_json(self) -> dict[str, Any]:
        """JSON form used by ``analyze --json``."""
        return {
            "move": self.number,
            "played": self.played.letter,
            "best": self.best.letter,
            "loss": round(self.loss, 3),
            "relative_loss": round(self.relative_loss, 5),
            "empty": self.empty,
            "values": {d.letter: round(v, 3) for d, v in self.values.items()},
            "board": self.board.to_rows(),
        }


@attrs.frozen
class Analysis:
    """A whole game's annotations and their summary."""

    record: Record
    annotations: tuple[Annotation, ...]
    final_board: Board
    final_score: int

    @property
    def accuracy(self) -> float:
        """Share of moves that matched the solver, in percent."""
        if not self.annotations:
            return 100.0
        return 100.0 * sum(a.matched for a in self.annotations) / len(self.annotations)

    def largest_mistakes(self, count: int = 5) -> list[Annotation]:
        """The moves that gave up the most expected value (relative), worst first."""
        mistakes = [a for a in self.annotations if not a.matched]
        return sorted(mistakes, key=lambda a: -a.relative_loss)[:count]

    def classic_mistakes(self) -> dict[str, Any]:
        """The four classic mistakes, measured (see the module docstring)."""
        directions = Counter(a.played for a in self.annotations)
        least = min(Direction, key=lambda d: directions.get(d, 0))
        corner_exits = 0
        walled = 0
        crowded = [a for a in self.annotations if a.empty in (2, 3)]
        boards = [a.board for a in self.annotations] + [self.final_board]
        for before, after in pairwise(boards):
            if _max_in_corner(before) and not _max_in_corner(after):
                corner_exits += 1
        for board in boards:
            walled += _walled_in(board)
        return {
            "four_directions": {
                "least_used": least.letter,
                "least_used_moves": directions.get(least, 0),
                "share_percent": round(100 * directions.get(least, 0) / max(1, len(boards) - 1), 1),
                "by_direction": {d.letter: directions.get(d, 0) for d in Direction},
            },
            "largest_tile_left_corner": corner_exits,
            "walled_in_positions": walled,
            "crowded_moves": len(crowded),
            "crowded_mistakes": sum(not a.matched for a in crowded),
        }

    def to_json(self) -> dict[str, Any]:
        """Summary and every annotation."""
        return {
            "seed": self.record.seed,
            "moves": len(self.annotations),
            "score": self.final_score,
            "max_tile": self.final_board.max_tile,
            "accuracy_percent": round(self.accuracy, 2),
            "largest_mistakes": [a.to_json() for a in self.largest_mistakes()],
            "classic_mistakes": self.classic_mistakes(),
            "positions": [a.to_json() for a in self.annotations],
        }


def _max_in_corner(board: Board) -> bool:
    top = board.max_tile
    return any(board[c] == top for c in CORNERS)


def _walled_in(board: Board) -> int:
    top = board.max_tile
    count = 0
    for cell in range(16):
        value = board[cell]
        if not value or value * 16 > top:
            continue
        row, col = divmod(cell, 4)
        neighbours = [
            board[r * 4 + c]
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < 4 and 0 <= c < 4
        ]
        if all(n >= 8 * value for n in neighbours):
            count += 1
    return count


def _search(
    job: tuple[int, int, str, SearchSettings | None],
) -> tuple[int, str | None, dict[str, float]]:
    number, packed, _letter, settings = job
    best, values = best_move(Board(packed), settings)
    return number, None if best is None else best.letter, {d.letter: v for d, v in values.items()}


def analyze(
    record: Record,
    *,
    settings: SearchSettings | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Annotate every valid move of a record (an invalid tail is not analysed)."""
    steps = list(replay(record))
    jobs_list = [
        (step.step + 1, step.board.packed, record.moves[step.step], settings) for step in steps[:-1]
    ]
    results: dict[int, tuple[str | None, dict[str, float]]] = {}
    total = len(jobs_list)
    for done, (number, best, values) in enumerate(_run(jobs_list, jobs), 1):
        results[number] = (best, values)
        if progress is not None:
            progress(done, total)
    annotations = []
    for number, packed, letter, _ in jobs_list:
        best, values = results[number]
        board = Board(packed)
        assert best is not None  # a valid move was played, so one exists
        annotations.append(
            Annotation(
                number=number,
                board=board,
                played=Direction(letter),
                best=Direction(best),
                values={Direction(k): v for k, v in values.items()},
                empty=len(board.empty_cells()),
            )
        )
    return Analysis(record, tuple(annotations), steps[-1].board, steps[-1].score)


def _run(
    jobs_list: list[tuple[int, int, str, SearchSettings | None]], jobs: int
) -> Iterator[tuple[int, str | None, dict[str, float]]]:
    if jobs <= 1 or len(jobs_list) < 8:
        yield from map(_search, jobs_list)
        return
    with worker_pool(jobs) as pool:
        yield from pool.imap_unordered(_search, jobs_list, chunksize=4)
