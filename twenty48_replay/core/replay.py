"""Replay a record step by step, and verify its claims.

Numbering (schema/SPEC.md, section 8): step 0 is the opening board, step n
the board after move n and its spawn; moves are numbered from 1.
Verification stops at the first move that changes nothing, and compares
every claim with the board before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs

from twenty48_replay.core import engine, rows
from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.errors import NullMoveError
from twenty48_replay.core.game import WIN_TILE, GameState, Spawn, opening
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.record import Record

if TYPE_CHECKING:
    from twenty48_replay.core.fair import SignatureChecker


@attrs.frozen(slots=True)
class Step:
    """The game at one replay step.

    ``move`` is the direction that led here (None at step 0), ``gained`` the
    points it made and ``spawn`` the tile placed after it (at step 0, the
    second opening tile).
    """

    step: int
    move: Direction | None
    board: Board
    score: int
    gained: int
    spawn: Spawn

    @property
    def max_tile(self) -> int:
        """The largest tile on the board."""
        return self.board.max_tile

    @property
    def won(self) -> bool:
        """A tile of 2048 or more is on the board."""
        return self.board.max_tile >= WIN_TILE

    @property
    def over(self) -> bool:
        """No direction changes the board."""
        return self.board.is_over()

    def to_json(self) -> dict[str, Any]:
        """``{"step", "move", "board", "score", "gained", "spawn"}``, as in --json output."""
        return {
            "step": self.step,
            "move": None if self.move is None else self.move.letter,
            "board": self.board.to_rows(),
            "score": self.score,
            "gained": self.gained,
            "spawn": None if self.move is None else self.spawn.to_json(),
        }


def replay(record: Record) -> Iterator[Step]:
    """Yield every step of a record, from the opening board to its last valid move.

    Stops before the first move that changes nothing; use :func:`verify` to
    learn why a record is invalid.
    """
    board, _first, second = opening(record.seed)
    yield Step(0, None, board, 0, 0, second)
    score = 0
    for raw in engine.steps(record.seed, record.moves):
        score += raw.gained
        yield step_of(raw, score)


#: The directions by letter, and every spawn there can be (immutable, so shared):
#: a replay builds thousands of steps, and looking these up beats constructing them.
_DIRECTIONS: dict[str, Direction] = {d.letter: d for d in Direction}
_SPAWNS: tuple[tuple[Spawn, ...], tuple[Spawn, ...]] = (
    tuple(Spawn(cell, 2) for cell in range(16)),
    tuple(Spawn(cell, 4) for cell in range(16)),
)


def step_of(raw: engine.StepData, score: int) -> Step:
    """A :class:`Step` from the engine's raw step and the score after it."""
    return Step(
        raw.number,
        _DIRECTIONS[raw.letter],
        Board(raw.state & rows.BOARD_MASK),
        score,
        raw.gained,
        _SPAWNS[raw.four][raw.cell],
    )


def final_state(record: Record) -> tuple[GameState, NullMoveError | None]:
    """The last valid state of a record and the error at its first null move, if any."""
    state, null_move, _verdict = _final(record)
    return state, null_move


def _final(record: Record) -> tuple[GameState, NullMoveError | None, engine.Verdict]:
    """The last valid state, the null move's error and the engine's verdict of a record."""
    verdict = engine.verdict(record.seed, record.moves)
    state = GameState(record.seed, Board(verdict.board), verdict.score, verdict.moves)
    if verdict.null_move is None:
        return state, None, verdict
    letter = record.moves[verdict.null_move - 1]
    return state, NullMoveError(letter, verdict.null_move, over=verdict.over), verdict


@attrs.frozen(slots=True)
class VerifyResult:
    """The outcome of verifying one record.

    ``score``, ``max_tile`` and ``moves`` are the REPLAYED values at the last
    valid step; ``reasons`` lists every way the record fails, each naming
    the claimed and the replayed value, then the fair-play reasons.
    ``fair`` and ``signature`` are the fair-play verdict (SPEC section 11.7).
    ``reason_codes`` are the same reasons as codes with parameters (SPEC
    section 8.8), from which people read them in their language.
    """

    valid: bool
    score: int
    max_tile: int
    moves: int
    won: bool
    over: bool
    board: Board
    reasons: tuple[str, ...] = ()
    #: 1-based number of the first move that changes nothing, or None.
    invalid_move: int | None = None
    #: "self-seeded", "fair", "unchecked" or "not fair" (SPEC section 11.7).
    fair: str = "self-seeded"
    #: "checked", "unchecked", or None for a self-seeded record.
    signature: str | None = None
    reason_codes: tuple[Reason, ...] = ()

    def translated_reasons(self) -> list[str]:
        """The reasons in the current language."""
        return [reason.translated() for reason in self.reason_codes]

    def to_json(self) -> dict[str, Any]:
        """The fields of ``twenty48 verify --json`` (without file and index)."""
        return {
            "valid": self.valid,
            "score": self.score,
            "max_tile": self.max_tile,
            "moves": self.moves,
            "won": self.won,
            "over": self.over,
            "reasons": list(self.reasons),
            "fair": self.fair,
            "signature": self.signature,
            "reason_codes": [reason.to_json() for reason in self.reason_codes],
        }


def verify(record: Record, trusted: SignatureChecker | None = None) -> VerifyResult:
    """Replay a record and check every claim in it.

    A fair record's fair-play claims are claims too: commitment and seed
    derivation always, the signature when a ``trusted`` key is given
    (:func:`twenty48_replay.core.fair_check.check_fair`); one that fails is invalid.
    """
    state, null_move, verdict = _final(record)
    board = state.board
    reasons: list[Reason] = []
    if null_move is not None:
        reasons.append(null_move.code)
    if record.score != state.score:
        reasons.append(Reason("claim.score", {"claimed": record.score, "replayed": state.score}))
    if record.max_tile is not None and record.max_tile != verdict.max_tile:
        reasons.append(
            Reason("claim.max_tile", {"claimed": record.max_tile, "replayed": verdict.max_tile})
        )
    if record.final_board is not None:
        claimed = Board.from_rows(record.final_board)
        if claimed != board:
            differ = [i for i in range(16) if claimed[i] != board[i]]
            first = differ[0]
            reasons.append(
                Reason(
                    "claim.final_board" if len(differ) > 1 else "claim.final_board_cell",
                    {
                        **({"cells": len(differ)} if len(differ) > 1 else {}),
                        "row": first // 4 + 1,
                        "column": first % 4 + 1,
                        "claimed": claimed[first],
                        "replayed": board[first],
                    },
                )
            )
    fair, signature = "self-seeded", None
    if "fair" in record.extra:  # imported here: self-seeded records never load it
        from twenty48_replay.core.fair_check import check_fair

        fairness = check_fair(record, trusted)
        fair, signature = fairness.status, fairness.signature
        reasons.extend(fairness.codes)
    return VerifyResult(
        valid=not reasons,
        score=state.score,
        max_tile=verdict.max_tile,
        moves=state.moves,
        won=verdict.max_tile >= WIN_TILE,
        over=verdict.over,
        board=board,
        reasons=tuple(str(reason) for reason in reasons),
        invalid_move=None if null_move is None else null_move.move_number,
        fair=fair,
        signature=signature,
        reason_codes=tuple(reasons),
    )
