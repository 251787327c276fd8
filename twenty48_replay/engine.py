"""The bulk transition: replay a move string on raw packed states, fast.

This is the hot loop behind :func:`twenty48_replay.verify` and
:func:`twenty48_replay.replay`.  It does exactly what
:meth:`GameState.play` does (slide, reject a null move, spawn k = n + 1) but
on the working state ``b | t << 80`` of :mod:`twenty48_replay.rows`, with the
HMAC inlined, so that a move costs a handful of integer operations, four
dictionary lookups and two SHA-256 compressions.  The tests replay thousands
of games through both paths and through an independent list-based engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from struct import Struct
from typing import Final, NamedTuple

from twenty48_replay import rows
from twenty48_replay.board import LETTER_CODES
from twenty48_replay.game import opening, rng_for


class Outcome(NamedTuple):
    """Where a replay stopped: the last valid state and what stopped it."""

    state: int
    score: int
    moves: int
    #: 1-based number of the first move that changed nothing, or None.
    null_move: int | None


class StepData(NamedTuple):
    """One replayed move in raw form (see :class:`twenty48_replay.replay.Step`)."""

    number: int
    letter: str
    state: int
    gained: int
    cell: int
    four: bool


#: Move tables indexed by the letter's byte, with the shift that selects the
#: half of the state whose rows the direction moves (0: b for L/R, 80: t for U/D).
_BYTE_TABLES: Final[
    list[tuple[dict[int, int], dict[int, int], dict[int, int], dict[int, int], int] | None]
] = [None] * 128
for _letter, _code in LETTER_CODES.items():
    _BYTE_TABLES[ord(_letter)] = (
        *rows.MOVE_TABLES[_code],
        0 if _code in (rows.LEFT, rows.RIGHT) else rows.BOARD_BITS,
    )  # type: ignore[assignment]
_SPAWN_BY_FOUR: Final = (rows.SPAWN_ADD[1], rows.SPAWN_ADD[2])
_COUNTER: Final = Struct(">Q")
_BOARD: Final = rows.BOARD_MASK
_STATE: Final = rows.STATE_MASK
_ESHIFT: Final = rows.EMPTY_SHIFT
_GSHIFT: Final = rows.GAIN_SHIFT


def opening_state(seed: str) -> int:
    """Working state of the opening board of a seed."""
    board, _first, _second = opening(seed)
    return board.state()


def _moved(state: int, letter: str) -> int:
    """Slow path of one move, used after a table miss (it learns the rows)."""
    return rows.move_state(state, LETTER_CODES[letter])


def run(seed: str, moves: str, state: int | None = None, start: int = 0) -> Outcome:
    """Replay ``moves`` from ``state`` (the opening if None) after ``start`` moves.

    Stops at the first move that changes nothing.  ``moves`` must hold only
    the letters U, D, L and R (checked by the record reader).  The literals
    are the layout constants of :mod:`twenty48_replay.rows` (checked at
    import below): constants load faster than globals in this loop.
    """
    rng = rng_for(seed)
    inner_copy = rng._inner.copy
    outer_copy = rng._outer.copy
    pack = _COUNTER.pack
    from_bytes = int.from_bytes
    empties_cache = rows._EMPTIES_CACHE
    tables = _BYTE_TABLES
    twos, fours = _SPAWN_BY_FOUR
    if state is None:
        state = opening_state(seed)
    score = 0
    n = start
    for code in moves.encode("ascii"):
        t0, t1, t2, t3, shift = tables[code]  # type: ignore[misc]  # letters checked by the reader
        src = state >> shift
        try:
            r = (
                t0[src & 0xFFFFF]
                + t1[src >> 20 & 0xFFFFF]
                + t2[src >> 40 & 0xFFFFF]
                + t3[src >> 60 & 0xFFFFF]
            )
        except KeyError:
            r = _moved(state, chr(code))
        if not (r ^ state) & 0xFFFFFFFFFFFFFFFFFFFF:
            return Outcome(state, score, n, n + 1)
        n += 1
        score += r >> 176
        try:
            empties = empties_cache[r >> 160 & 0xFFFF]
        except KeyError:
            empties = rows.empties_of_mask(r >> 160 & 0xFFFF)
        inner = inner_copy()
        inner.update(pack(n + 1))
        outer = outer_copy()
        outer.update(inner.digest())
        # int.from_bytes on bytes slices: no tuple per move, so nothing the
        # cyclic garbage collector tracks is allocated in this loop.
        digest = outer.digest()
        cell = empties[from_bytes(digest[:8], "big") % len(empties)]
        if from_bytes(digest[8:16], "big") % 10:
            state = (r & _STATE) + twos[cell]
        else:
            state = (r & _STATE) + fours[cell]
    return Outcome(state, score, n, None)


assert (rows.BOARD_BITS, rows.ROW_MASK, rows.BOARD_MASK) == (80, 0xFFFFF, 0xFFFFFFFFFFFFFFFFFFFF)
assert (rows.EMPTY_SHIFT, rows.GAIN_SHIFT) == (160, 176)


def steps(seed: str, moves: str, state: int | None = None, start: int = 0) -> Iterator[StepData]:
    """Yield every valid move of ``moves`` in raw form; stops before a null move.

    Starts from ``state`` after ``start`` moves (the opening if None), so a
    caller holding a checkpoint can resume there.  The caller learns of a
    null move by the number of steps yielded being less than ``len(moves)``.
    """
    rng = rng_for(seed)
    if state is None:
        state = opening_state(seed)
    for n, letter in enumerate(moves, start + 1):
        r = _moved(state, letter)
        if not (r ^ state) & _BOARD:
            return
        empties = rows.empties_of_mask((r >> _ESHIFT) & 0xFFFF)
        selector, four = rng.draw(n + 1)
        cell = empties[selector % len(empties)]
        state = (r & _STATE) + _SPAWN_BY_FOUR[four][cell]
        yield StepData(n, letter, state, r >> _GSHIFT, cell, four)
