"""Arrays of boards in the solver's layout: moves, transposes, spawns, scores.

A batch of boards is a pair ``(lo, hi)``: ``lo`` a uint64 array of nibbles,
``hi`` a uint16 array of fifth exponent bits, or ``None`` (see
:mod:`twenty48_replay.solver.tables` for the bit layout).  Why two arrays:
the engine's 80-bit boards fit no NumPy integer, yet tiles of 65536 and
131072 must work.  Why ``hi`` may be ``None``: a tile of 65536 needs a tile
sum of at least 65536, and a move adds at most 4 to the sum, so a search
whose root has ``tile_sum + 4 * plies < 65536`` can never see one.  Such a
search (nearly every search of a real game) runs in *narrow* mode, where a
row is exactly a 16-bit word of ``lo``: a move over a whole array is one
gather through a 2**16-entry table on a ``uint16`` view of the boards.
Otherwise the search runs in *wide* mode, carrying ``hi`` along: the same
algorithm on 20-bit row keys, a few operations slower.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from twenty48_replay.core import rows
from twenty48_replay.core.board import Board
from twenty48_replay.solver.tables import tables

U64: Final = np.dtype("<u8")
U16: Final = np.dtype("<u2")
Lo = npt.NDArray[np.uint64]
Hi = npt.NDArray[np.uint16]
Batch = tuple[Lo, Hi | None]

# Direction codes of twenty48_replay.core.rows: UP, DOWN, LEFT, RIGHT.
UP: Final = rows.UP
DOWN: Final = rows.DOWN
LEFT: Final = rows.LEFT
RIGHT: Final = rows.RIGHT

_ROW_SHIFTS: Final = np.array([0, 4, 8, 12], dtype=np.uint16)
_CELL_SHIFTS: Final = np.arange(0, 64, 4, dtype=np.uint64)
_CELL_BITS: Final = np.arange(16, dtype=np.uint16)


def split_board(board: Board) -> tuple[int, int]:
    """A :class:`Board` as the solver's ``(lo, hi)`` integers."""
    lo = hi = 0
    for i in range(16):
        e = board.exponent(i)
        lo |= (e & 15) << (4 * i)
        hi |= (e >> 4) << i
    return lo, hi


def join_board(lo: int, hi: int) -> Board:
    """The :class:`Board` of solver ``(lo, hi)`` integers (inverse of :func:`split_board`)."""
    packed = 0
    for i in range(16):
        e = ((lo >> (4 * i)) & 15) | (((hi >> i) & 1) << 4)
        packed |= e << (rows.CELL_BITS * i)
    return Board(packed)


def batch_of(board: Board, wide: bool) -> Batch:
    """A batch holding one board."""
    lo, hi = split_board(board)
    return (
        np.array([lo], dtype=U64),
        np.array([hi], dtype=U16) if wide else None,
    )


def transpose_lo(x: Lo) -> Lo:
    """Transpose the nibble boards (cell (r, c) to (c, r)) with two mask-and-shift steps."""
    a = (
        (x & np.uint64(0xF0F00F0FF0F00F0F))
        | ((x & np.uint64(0x0000F0F00000F0F0)) << np.uint64(12))
        | ((x & np.uint64(0x0F0F00000F0F0000)) >> np.uint64(12))
    )
    out: Lo = (
        (a & np.uint64(0xFF00FF0000FF00FF))
        | ((a & np.uint64(0x00FF00FF00000000)) >> np.uint64(24))
        | ((a & np.uint64(0x00000000FF00FF00)) << np.uint64(24))
    )
    return out


def transpose_hi(x: Hi) -> Hi:
    """Transpose 4x4 bit matrices: bit 4r+c moves by 3(c-r) to bit 4c+r."""
    out: Hi = (
        (x & np.uint16(0x8421))
        | ((x & np.uint16(0x0842)) << np.uint16(3))
        | ((x & np.uint16(0x0084)) << np.uint16(6))
        | ((x & np.uint16(0x0008)) << np.uint16(9))
        | ((x & np.uint16(0x4210)) >> np.uint16(3))
        | ((x & np.uint16(0x2100)) >> np.uint16(6))
        | ((x & np.uint16(0x1000)) >> np.uint16(9))
    )
    return out


def transpose(lo: Lo, hi: Hi | None) -> Batch:
    """The transposed boards (columns become rows)."""
    return transpose_lo(lo), None if hi is None else transpose_hi(hi)


def row_keys(lo: Lo, hi: Hi | None) -> npt.NDArray[np.uint16] | npt.NDArray[np.uint32]:
    """The (n, 4) row keys of a batch: 16-bit words in narrow mode, 20-bit keys in wide."""
    words: npt.NDArray[np.uint16] = np.ascontiguousarray(lo).view(U16).reshape(-1, 4)
    if hi is None:
        return words
    high = ((hi[:, None] >> _ROW_SHIFTS) & np.uint16(15)).astype(np.uint32)
    keys: npt.NDArray[np.uint32] = words.astype(np.uint32) | (high << np.uint32(16))
    return keys


def slide_rows(lo: Lo, hi: Hi | None, toward_start: bool) -> Batch:
    """Slide every row of every board toward column 0 (or column 3)."""
    t = tables()
    if hi is None:
        table16 = t.left16 if toward_start else t.right16
        moved16: npt.NDArray[np.uint16] = table16[row_keys(lo, None)]
        return moved16.view(U64).reshape(-1), None
    table = t.left if toward_start else t.right
    moved = table[row_keys(lo, hi)]
    new_lo = (moved & np.uint32(0xFFFF)).astype(U16).view(U64).reshape(-1)
    new_hi = ((moved >> np.uint32(16)).astype(np.uint16) << _ROW_SHIFTS).sum(
        axis=1, dtype=np.uint16
    )
    return new_lo, new_hi


def move(lo: Lo, hi: Hi | None, direction: int) -> Batch:
    """Apply one direction (a code of :mod:`twenty48_replay.core.rows`) to every board."""
    if direction in (LEFT, RIGHT):
        return slide_rows(lo, hi, direction == LEFT)
    tlo, thi = transpose(lo, hi)
    mlo, mhi = slide_rows(tlo, thi, direction == UP)
    return transpose(mlo, mhi)


def all_moves(lo: Lo, hi: Hi | None) -> list[Batch]:
    """The four directions' results, in code order, sharing one transpose of the input."""
    tlo, thi = transpose(lo, hi)
    out: list[Batch] = [(lo, hi)] * 4
    out[LEFT] = slide_rows(lo, hi, True)
    out[RIGHT] = slide_rows(lo, hi, False)
    out[UP] = transpose(*slide_rows(tlo, thi, True))
    out[DOWN] = transpose(*slide_rows(tlo, thi, False))
    return out


def heuristic(lo: Lo, hi: Hi | None) -> npt.NDArray[np.float64]:
    """Heuristic value of every board: the line table summed over rows and columns."""
    t = tables()
    table = t.heur16 if hi is None else t.heur
    tlo, thi = transpose(lo, hi)
    # A product with ones sums the four lines faster than .sum(axis=1).
    ones = np.ones(4)
    value: npt.NDArray[np.float64] = (
        table[row_keys(lo, hi)] @ ones + table[row_keys(tlo, thi)] @ ones
    )
    return value


def empty_cells(lo: Lo, hi: Hi | None) -> npt.NDArray[np.bool_]:
    """(n, 16) mask of the empty cells."""
    empty: npt.NDArray[np.bool_] = ((lo[:, None] >> _CELL_SHIFTS) & np.uint64(15)) == 0
    if hi is not None:
        empty &= ((hi[:, None] >> _CELL_BITS) & np.uint16(1)) == 0
    return empty


def open_counts(lo: Lo, hi: Hi | None) -> npt.NDArray[np.int64]:
    """Number of empty cells of every board (nibble-zero test and a popcount)."""
    x = lo | (lo >> np.uint64(1))
    x |= x >> np.uint64(2)
    occupied = x & np.uint64(0x1111111111111111)
    if hi is not None:
        h = hi.astype(U64)
        # Spread bit i of hi to bit 4i (the nibble of cell i), one row at a time.
        for i in range(16):
            occupied |= ((h >> np.uint64(i)) & np.uint64(1)) << np.uint64(4 * i)
    counts: npt.NDArray[np.int64] = 16 - np.bitwise_count(occupied).astype(np.int64)
    return counts
