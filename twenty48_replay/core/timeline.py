"""Random access to the steps of a record, for viewers and ``replay --at``.

A :class:`Timeline` replays the record once at engine speed, keeping a
checkpoint (working state and score) every ``CHECKPOINT_EVERY`` steps;
fetching step n then replays at most that many moves from the checkpoint
before it.  For a 20,000-move record that is one ~50 ms pass up front and
well under a millisecond per jump, with about 300 checkpoints in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from twenty48_replay.core import engine, rows
from twenty48_replay.core.board import Board
from twenty48_replay.core.errors import NullMoveError
from twenty48_replay.core.game import opening
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import Step, replay, step_of

CHECKPOINT_EVERY: Final = 64


class Timeline:
    """The valid steps of a record (0 = opening .. ``last``), by number.

    ``error`` is the first move that changes nothing, if any: the timeline
    then ends at the step before it.  ``timeline[n]`` accepts negative n
    (counting from the end, -1 = the last step).
    """

    def __init__(self, record: Record) -> None:
        self.record = record
        board, _first, second = opening(record.seed)
        self._opening = Step(0, None, board, 0, 0, second)
        state = engine.opening_state(record.seed)
        score = 0
        checkpoints = [(state, score)]
        done = 0
        moves = record.moves
        self.error: NullMoveError | None = None
        while done < len(moves):
            chunk = moves[done : done + CHECKPOINT_EVERY]
            outcome = engine.run(record.seed, chunk, state, done)
            state = outcome.state
            score += outcome.score
            done = outcome.moves
            if outcome.null_move is not None:
                letter = moves[outcome.null_move - 1]
                over = Board(state & rows.BOARD_MASK).is_over()
                self.error = NullMoveError(letter, outcome.null_move, over=over)
                break
            if done % CHECKPOINT_EVERY == 0:
                checkpoints.append((state, score))
        self._checkpoints = checkpoints
        self.last = done
        self.final_score = score

    def __len__(self) -> int:
        """Number of steps: valid moves + 1 (the opening)."""
        return self.last + 1

    def __getitem__(self, number: int) -> Step:
        """Step ``number`` (negative counts from the end)."""
        if number < 0:
            number += len(self)
        if not 0 <= number <= self.last:
            raise IndexError(f"step {number} is outside 0..{self.last}")
        if number == 0:
            return self._opening
        base = (number - 1) // CHECKPOINT_EVERY * CHECKPOINT_EVERY
        state, score = self._checkpoints[base // CHECKPOINT_EVERY]
        raw = None
        for raw in engine.steps(self.record.seed, self.record.moves[base:number], state, base):
            score += raw.gained
        assert raw is not None
        assert raw.number == number
        return step_of(raw, score)

    def __iter__(self) -> Iterator[Step]:
        """Every step in order (one pass, not one jump per step)."""
        return replay(Record(self.record.seed, self.record.moves[: self.last], 0))

    @property
    def winning_step(self) -> int | None:
        """The step whose move first made a 2048 (None if the game never did).

        The largest tile never shrinks, so a bisection finds it in ~15 jumps.
        """
        low, high = 1, self.last
        if high < 1 or self[high].max_tile < 2048:
            return None
        while low < high:  # max tile never decreases, so bisect
            middle = (low + high) // 2
            if self[middle].max_tile >= 2048:
                high = middle
            else:
                low = middle + 1
        return low
