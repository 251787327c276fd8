"""The evaluation graph: the network's expected final score of a game, move by move.

For the position before each move of a record, every valid move is valued
at the greedy afterstate level: the points the move scores plus the
network's value of the board it leaves (before the new tile), which
estimates the points still to come.  Adding the score before the move gives
the **expected final score** of playing that move; the graph follows the
move played and the best move, and the difference is what the move cost
("this move cost about 4,000 points of expected score").  No search: one
slide and one network lookup per valid move, so a whole game takes well
under a second.  The values are the network's estimate, only as good as its
training (docs/solver-weights.md, "The evaluation graph").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import attrs

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import replay
from twenty48_replay.solver.network import Network

#: A move costing less than this many points of expected score counts as the best.
TIE: Final = 0.5


@attrs.frozen
class MoveValue:
    """Move ``number`` of a game: the score before it and each valid move's value
    (its points plus the network's value of its afterstate)."""

    number: int
    played: Direction
    score: int
    values: dict[Direction, float]

    @property
    def played_value(self) -> float:
        return self.values[self.played]

    @property
    def best(self) -> Direction:
        """The move the network values most (the played one on a tie)."""
        top = max(self.values.values())
        if self.values[self.played] >= top - TIE:
            return self.played
        return max(self.values, key=lambda d: self.values[d])

    @property
    def alternative(self) -> Direction | None:
        """The best of the moves not played (None: the played move was the only one)."""
        others = [d for d in self.values if d is not self.played]
        return max(others, key=lambda d: self.values[d]) if others else None

    @property
    def expected(self) -> float:
        """The expected final score after the move played."""
        return self.score + self.played_value

    @property
    def best_expected(self) -> float:
        """The expected final score after the best move."""
        return self.score + self.values[self.best]

    @property
    def cost(self) -> float:
        """Expected score the move played gave up (0 when it was the best)."""
        return max(0.0, self.values[self.best] - self.played_value)

    def to_json(self) -> dict[str, Any]:
        alternative = self.alternative
        return {
            "move": self.number,
            "played": self.played.letter,
            "expected_score": round(self.expected, 1),
            "best": self.best.letter,
            "best_expected_score": round(self.best_expected, 1),
            "alternative": None if alternative is None else alternative.letter,
            "alternative_expected_score": (
                None if alternative is None else round(self.score + self.values[alternative], 1)
            ),
            "cost": round(self.cost, 1),
        }


@attrs.frozen
class EvaluationGraph:
    """A game's moves valued by a network (``source``: the weights file's name)."""

    moves: tuple[MoveValue, ...]
    source: str

    def costliest(self, count: int = 5) -> list[MoveValue]:
        """The moves that cost the most expected score, worst first (none that cost 0)."""
        lost = [m for m in self.moves if m.cost >= TIE]
        return sorted(lost, key=lambda m: (-m.cost, m.number))[:count]

    def at(self, number: int) -> MoveValue | None:
        """Move ``number`` (1-based), if the graph has it."""
        return self.moves[number - 1] if 1 <= number <= len(self.moves) else None

    def to_json(self) -> dict[str, Any]:
        return {"network": self.source, "moves": [m.to_json() for m in self.moves]}


def move_values(board: Board, network: Network) -> dict[Direction, float]:
    """Each valid move's points plus the network's value of its afterstate."""
    values = {}
    for direction in Direction:
        slid = board.slide(direction)
        if slid.changed:
            after = network.module.ntuple_value(network.handle, slid.board.packed)
            values[direction] = slid.gained + float(after)
    return values


def evaluation_graph(record: Record, network: Network) -> EvaluationGraph:
    """The graph of every valid move of ``record`` (an invalid tail is left out)."""
    steps = zip(replay(record), record.moves, strict=False)  # the last step has no move
    return graph_of(((step.board, step.score, letter) for step, letter in steps), network)


def graph_of(positions: Iterable[tuple[Board, int, str]], network: Network) -> EvaluationGraph:
    """The graph of (board before the move, score before it, move letter) positions;
    a position whose move is not valid there (the last, with no move) ends it."""
    moves = []
    for number, (board, score, letter) in enumerate(positions, 1):
        values = move_values(board, network)
        played = Direction.from_letter(letter)
        if played not in values:
            break
        moves.append(MoveValue(number, played, score, values))
    return EvaluationGraph(tuple(moves), network.describe())
