"""A slow pure-Python n-tuple network and TD trainer: the reference for the C one.

Written from the definitions in twenty48_replay/_native/t48_ntuple.h (and
docs/solver-weights.md), not from the C code: the features of a board, its
value, the training PRNG, the spawns, the greedy move and the TD(0) and TC
updates, with moves made by the pure-Python engine (twenty48_replay.core.rows).
Floating point is reproduced step for step (a value is a sum of float32
weights in double precision, in feature order; every stored number is rounded
to float32 where the C code stores it), so the C trainer must agree exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from twenty48_replay.core import rows
from twenty48_replay.core.board import Board

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
CAP = 15


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class Rng:
    """splitmix64, seeded from the training seed and the game's number."""

    def __init__(self, seed: int, game: int) -> None:
        self.state = mix64(seed ^ mix64((game + GOLDEN) & MASK64))

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)


def symmetric_cell(cell: int, s: int) -> int:
    """Mirror left-right when s & 4, then turn a quarter clockwise s & 3 times."""
    r, c = divmod(cell, 4)
    if s & 4:
        c = 3 - c
    for _ in range(s & 3):
        r, c = c, 3 - r
    return 4 * r + c


def stage_of(stages: Sequence[int], largest: int) -> int:
    return max(s for s, low in enumerate(stages) if largest >= low)


def indexes(tuples: Sequence[Sequence[int]], stages: Sequence[int], board: Board) -> list[int]:
    """The weight read by each feature: tuple by tuple, symmetries 0..7."""
    exps = [board.exponent(i) for i in range(16)]
    capped = [min(e, CAP) for e in exps]
    stage_size = sum(16 ** len(t) for t in tuples)
    base = stage_of(stages, max(exps)) * stage_size
    out = []
    offset = 0
    for cells in tuples:
        for s in range(8):
            index = 0
            for k, cell in enumerate(cells):
                index |= capped[symmetric_cell(cell, s)] << (4 * k)
            out.append(base + offset + index)
        offset += 16 ** len(cells)
    return out


def value_of(weights: np.ndarray, index: Sequence[int]) -> float:
    total = 0.0
    for i in index:
        total += float(weights[i])
    return total


def value(
    tuples: Sequence[Sequence[int]], stages: Sequence[int], weights: np.ndarray, board: Board
) -> float:
    return value_of(weights, indexes(tuples, stages, board))


def spawn(board: Board, rng: Rng) -> Board:
    empties = board.empty_cells()
    if not empties:
        return board
    r = rng.next()
    exponent = 2 if (r >> 32) % 10 == 0 else 1
    cell = empties[((r & 0xFFFFFFFF) * len(empties)) >> 32]
    return board.with_tile(cell, 1 << exponent)


def slide(board: Board, code: int) -> tuple[Board, int] | None:
    """The pure-Python engine's move (None when it changes nothing)."""
    result = rows.move_state(board.state(), code)
    after = Board(result & rows.BOARD_MASK)
    if after.packed == board.packed:
        return None
    return after, result >> rows.GAIN_SHIFT


def learn(
    arrays: list[np.ndarray], rule: str, coefficient: float, index: list[int], target: float
) -> None:
    w = arrays[0]
    error = target - value_of(w, index)
    if rule == "tc":
        e, a = arrays[1], arrays[2]
        ferror = np.float32(error)
        fabs_error = np.float32(abs(error))
        for i in index:
            coherence = 1.0 if a[i] == 0 else abs(float(e[i])) / float(a[i])
            step = np.float32(coefficient * coherence * error)
            w[i] = np.float32(w[i] + step)
            e[i] = np.float32(e[i] + ferror)
            a[i] = np.float32(a[i] + fabs_error)
    else:
        step = np.float32(coefficient * error)
        for i in index:
            w[i] = np.float32(w[i] + step)


def play(
    tuples: Sequence[Sequence[int]],
    stages: Sequence[int],
    arrays: list[np.ndarray],
    rule: str,
    rate: float,
    seed: int,
    game: int,
) -> tuple[int, int, int]:
    """One training game; returns (score, moves, largest exponent)."""
    coefficient = rate / (8 * len(tuples))
    rng = Rng(seed, game)
    board = spawn(spawn(Board.empty(), rng), rng)
    score = moves = 0
    prev: list[int] | None = None
    while True:
        best: tuple[float, Board, int, list[int]] | None = None
        for code in range(4):
            moved = slide(board, code)
            if moved is None:
                continue
            after, gained = moved
            index = indexes(tuples, stages, after)
            v = float(gained) + value_of(arrays[0], index)
            if best is None or v > best[0]:
                best = (v, after, gained, index)
        if best is None:
            if prev is not None:
                learn(arrays, rule, coefficient, prev, 0.0)
            break
        if prev is not None:
            learn(arrays, rule, coefficient, prev, best[0])
        prev = best[3]
        score += best[2]
        moves += 1
        board = spawn(best[1], rng)
    return score, moves, max(board.exponent(i) for i in range(16))


def merge(shared: list[np.ndarray], copies: list[list[np.ndarray]]) -> None:
    """shared += sum over copies, in order, of (copy - shared); then copies = shared."""
    for a, base in enumerate(shared):
        merged = base.copy()
        for copy in copies:
            merged = (merged + (copy[a] - base)).astype(np.float32)
        base[:] = merged
        for copy in copies:
            copy[a][:] = merged
