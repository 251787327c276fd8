"""The bulk transition: replay a move string on raw packed states, fast.

This is the hot loop behind :func:`twenty48_replay.verify` and
:func:`twenty48_replay.core.replay`.  It does exactly what
:meth:`GameState.play` does (slide, reject a null move, spawn k = n + 1) but
on the working state ``b | t << 80`` of :mod:`twenty48_replay.core.rows`, with the
HMAC inlined, so that a move costs a handful of integer operations, four
dictionary lookups and two SHA-256 compressions.  The tests replay thousands
of games through both paths and through an independent list-based engine.

With the native core (:mod:`twenty48_replay.core.native`) :func:`run`,
:func:`steps`, :func:`opening_state` and :func:`verdict` are its C versions,
bound at import; the pure-Python ones stay here as the fallback and the
reference (``python_run``, ``python_steps``), and both give the same results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from struct import Struct
from typing import Any, Final, NamedTuple, Protocol

from twenty48_replay.core import native, rows
from twenty48_replay.core.board import LETTER_CODES, Board
from twenty48_replay.core.game import opening, rng_for
from twenty48_replay.core.rng import seed_key


class Outcome(NamedTuple):
    """Where a replay stopped: the last valid state and what stopped it."""

    state: int
    score: int
    moves: int
    #: 1-based number of the first move that changed nothing, or None.
    null_move: int | None


class StepData(NamedTuple):
    """One replayed move in raw form (see :class:`twenty48_replay.core.replay.Step`)."""

    number: int
    letter: str
    state: int
    gained: int
    cell: int
    four: bool


class Verdict(NamedTuple):
    """A whole record replayed from its opening: what :func:`twenty48_replay.verify` needs."""

    board: int  # Board.packed of the last valid state
    score: int
    moves: int
    #: 1-based number of the first move that changed nothing, or None.
    null_move: int | None
    max_tile: int
    over: bool


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


def python_opening_state(seed: str) -> int:
    """Working state of the opening board of a seed."""
    board, _first, _second = opening(seed)
    return board.state()


def _moved(state: int, letter: str) -> int:
    """Slow path of one move, used after a table miss (it learns the rows)."""
    return rows.move_state(state, LETTER_CODES[letter])


def python_run(seed: str, moves: str, state: int | None = None, start: int = 0) -> Outcome:
    """Replay ``moves`` from ``state`` (the opening if None) after ``start`` moves.

    Stops at the first move that changes nothing.  ``moves`` must hold only
    the letters U, D, L and R (checked by the record reader).  The literals
    are the layout constants of :mod:`twenty48_replay.core.rows` (checked at
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
        state = python_opening_state(seed)
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


def python_steps(
    seed: str, moves: str, state: int | None = None, start: int = 0
) -> Iterator[StepData]:
    """Yield every valid move of ``moves`` in raw form; stops before a null move.

    Starts from ``state`` after ``start`` moves (the opening if None), so a
    caller holding a checkpoint can resume there.  The caller learns of a
    null move by the number of steps yielded being less than ``len(moves)``.
    """
    rng = rng_for(seed)
    if state is None:
        state = python_opening_state(seed)
    for n, letter in enumerate(moves, start + 1):
        r = _moved(state, letter)
        if not (r ^ state) & _BOARD:
            return
        empties = rows.empties_of_mask((r >> _ESHIFT) & 0xFFFF)
        selector, four = rng.draw(n + 1)
        cell = empties[selector % len(empties)]
        state = (r & _STATE) + _SPAWN_BY_FOUR[four][cell]
        yield StepData(n, letter, state, r >> _GSHIFT, cell, four)


def python_verdict(seed: str, moves: str) -> Verdict:
    """:class:`Verdict` of a move string from the opening, in pure Python."""
    outcome = python_run(seed, moves)
    board = Board(outcome.state & _BOARD)
    return Verdict(
        board.packed,
        outcome.score,
        outcome.moves,
        outcome.null_move,
        board.max_tile,
        board.is_over(),
    )


# ---------------------------------------------------------------- the native core

#: Moves per call of the native steps(): a replay() that stops early wastes little.
NATIVE_STEPS_CHUNK: Final = 512


def _native_run(seed: str, moves: str, state: int | None = None, start: int = 0) -> Outcome:
    try:
        return Outcome(*_core.replay(seed_key(seed), moves, state, start))
    except OverflowError as exc:
        raise rows.TileOverflowError(str(exc)) from None


def _native_opening_state(seed: str) -> int:
    state: int = _core.replay(seed_key(seed), "", None, 0)[0]
    return state


def _native_verdict(seed: str, moves: str) -> Verdict:
    board, score, count, null_move, top, over = _core.verdict(seed_key(seed), moves)
    return Verdict(board, score, count, null_move, 1 << top if top else 0, over)


def _native_steps(
    seed: str, moves: str, state: int | None = None, start: int = 0
) -> Iterator[StepData]:
    key = seed_key(seed)
    replay_chunk = _core.steps
    for offset in range(0, len(moves), NATIVE_STEPS_CHUNK):
        letters = moves[offset : offset + NATIVE_STEPS_CHUNK]
        try:
            chunk = replay_chunk(key, letters, state, start + offset)
        except OverflowError as exc:
            raise rows.TileOverflowError(str(exc)) from None
        number = start + offset
        for letter, (state, gained, cell, four) in zip(letters, chunk, strict=False):
            number += 1
            yield StepData(number, letter, state, gained, cell, four)
        if len(chunk) < len(letters):
            return


def _refuse(*_args: object, **_kwargs: object) -> Any:
    """Stands in for every entry point when TWENTY48_ENGINE asks for what cannot run."""
    assert native.problem is not None
    raise native.problem


class _Run(Protocol):
    def __call__(
        self, seed: str, moves: str, state: int | None = None, start: int = 0
    ) -> Outcome: ...


class _Steps(Protocol):
    def __call__(
        self, seed: str, moves: str, state: int | None = None, start: int = 0
    ) -> Iterator[StepData]: ...


_core = native.core
run: _Run
steps: _Steps
opening_state: Callable[[str], int]
verdict: Callable[[str, str], Verdict]
if native.problem is not None:
    run = steps = opening_state = verdict = _refuse
elif _core is not None:
    run, steps = _native_run, _native_steps
    opening_state, verdict = _native_opening_state, _native_verdict
else:
    run, steps = python_run, python_steps
    opening_state, verdict = python_opening_state, python_verdict
