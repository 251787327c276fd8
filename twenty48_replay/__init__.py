"""twenty48-replay: 2048 as a replayable, verifiable record.

A game is a seed plus a string of moves; the spawn RNG is specified
(HMAC-SHA256, schema/SPEC.md), so anyone can replay a record to the same
boards and score.  This package is the library: pure value types, the
engine, the record format, replay and verification.

>>> from twenty48_replay import Board, Direction
>>> board = Board.from_rows([[2, 2, 2, 2], [0] * 4, [0] * 4, [0] * 4])
>>> board.slide(Direction.LEFT).board.to_rows()[0]
[4, 4, 0, 0]
"""

from twenty48_replay.core.board import Board, Direction, SlideResult
from twenty48_replay.core.errors import NullMoveError, RecordError, Twenty48Error
from twenty48_replay.core.game import GameState, Spawn
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import Step, VerifyResult, replay, verify
from twenty48_replay.core.rng import SpawnRng, new_seed

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """``best_move`` and ``play_game`` load the solver (and NumPy) on first use only.

    They are not in ``__all__``, so ``from twenty48_replay import *`` and the
    verify path never pull NumPy in.
    """
    if name in ("best_move", "play_game"):
        from twenty48_replay import solver

        return getattr(solver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Board",
    "Direction",
    "GameState",
    "NullMoveError",
    "Record",
    "RecordError",
    "SlideResult",
    "Spawn",
    "SpawnRng",
    "Step",
    "Twenty48Error",
    "VerifyResult",
    "__version__",
    "new_seed",
    "replay",
    "verify",
]
