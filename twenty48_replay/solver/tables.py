"""Row tables for the solver: moves and heuristic, precomputed for every row.

The solver keeps boards in its own layout, chosen so that NumPy can work on
whole arrays of them (see :mod:`twenty48_replay.solver.boards`):

* ``lo`` (uint64): the low 4 bits of each cell's exponent, cell ``i = 4*row
  + col`` at bits ``4*i .. 4*i+3``, so row ``r`` is the 16-bit word ``r`` of
  the little-endian integer;
* ``hi`` (uint16): the fifth bit of each exponent, cell ``i`` at bit ``i``.
  It is non-zero only for tiles of 65536 and up.

A solver *row key* is 20 bits: the row's 16 nibble bits, then its 4 high bits
at bits 16..19.  Every 20-bit key is a possible row (exponents 0..31), so
the tables are plain arrays of ``2**20`` entries, built in one vectorised
pass (~0.2 s) the first time the solver runs, never at import of
:mod:`twenty48_replay`.

The heuristic is nneonneo/2048-ai's (``2048.cpp``, ``init_tables``), whose
weights were tuned by its author with CMA-ES and are published with the
program; we recomputed the terms from their definitions:

* ``LOST_PENALTY`` 200000 per line: keeps every live position's value far
  above 0, the value the search gives a lost position;
* ``EMPTY_WEIGHT`` 270 per empty cell: room to move is what keeps a game
  alive;
* ``MERGES_WEIGHT`` 700 per tile of a run of equal neighbours (a run of k
  equal tiles counts k): merge potential;
* ``MONOTONICITY_WEIGHT`` 47 times the smaller of the two directional
  "disorders" of a line, each the sum of ``rank**4`` drops against that
  direction: rewards lines that rise toward one end, which, scored on rows
  and columns, pushes the big tiles onto an edge and into a corner;
* ``SUM_WEIGHT`` 11 times ``sum(rank**3.5)``: a small cost for holding big
  unmerged tiles, so merging them is preferred.

Ranks are exponents (a 2 is rank 1).  Each line is scored as read from its
low end; rows and columns both use the same table (the board and its
transpose).
"""

from __future__ import annotations

from functools import cache
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

KEY_BITS: Final = 20
KEY_COUNT: Final = 1 << KEY_BITS

LOST_PENALTY: Final = 200_000.0
MONOTONICITY_POWER: Final = 4.0
MONOTONICITY_WEIGHT: Final = 47.0
SUM_POWER: Final = 3.5
SUM_WEIGHT: Final = 11.0
MERGES_WEIGHT: Final = 700.0
EMPTY_WEIGHT: Final = 270.0


@attrs.frozen
class Tables:
    """The solver's lookup tables, indexed by 20-bit row key.

    ``left``/``right`` give the row key after sliding that row toward column
    0 / column 3; ``heur`` the heuristic value of the line.  The ``*16``
    variants are the first ``2**16`` entries as narrow dtypes, for boards
    without tiles of 65536 or more (the common case), where a row key is just
    a 16-bit word and one gather moves a whole array of boards.
    """

    left: npt.NDArray[np.uint32]
    right: npt.NDArray[np.uint32]
    heur: npt.NDArray[np.float64]
    left16: npt.NDArray[np.uint16]
    right16: npt.NDArray[np.uint16]
    heur16: npt.NDArray[np.float64]


Lines = list[npt.NDArray[np.int8]]


def key_cells(keys: npt.NDArray[np.uint32]) -> Lines:
    """The exponents of row keys, as four arrays (column 0 first).

    Tables are built column-wise (four 1-D arrays, not an (n, 4) array) so
    every step is an elementwise operation on contiguous ``int8`` arrays.
    """
    return [
        (
            ((keys >> np.uint32(4 * j)) & np.uint32(15)) | (((keys >> np.uint32(16 + j)) & 1) << 4)
        ).astype(np.int8)
        for j in range(4)
    ]


def cells_key(cells: Lines) -> npt.NDArray[np.uint32]:
    """Row keys of four arrays of exponents (inverse of :func:`key_cells`)."""
    key = np.zeros(cells[0].shape, dtype=np.uint32)
    for j, c in enumerate(cells):
        c32 = c.astype(np.uint32) & np.uint32(31)
        key |= ((c32 & np.uint32(15)) << np.uint32(4 * j)) | ((c32 >> np.uint32(4)) << (16 + j))
    return key


def slide_left(cells: Lines) -> Lines:
    """Slide lines toward column 0 with the game's merge rule.

    First the tiles are packed toward column 0 (three bubble passes), then
    each slot, from column 0 on, merges with the next tile if they are equal
    and pulls the rest in; a merged tile is never looked at again, so every
    tile merges at most once and ``2 2 4`` gives ``4 4``.  Exponent 31 + 31
    would give 32, which 5 bits cannot hold; real games stop at 17, so those
    table entries are never used and are simply masked.
    """
    a = [c.copy() for c in cells]
    for _ in range(3):
        for j in range(3):
            gap = a[j] == 0
            a[j] = np.where(gap, a[j + 1], a[j])
            a[j + 1] = np.where(gap, 0, a[j + 1]).astype(np.int8)
    for j in range(3):
        merge = (a[j] != 0) & (a[j] == a[j + 1])
        a[j] = np.where(merge, (a[j] + 1) & 31, a[j]).astype(np.int8)
        for k in range(j + 1, 3):
            a[k] = np.where(merge, a[k + 1], a[k])
        a[3] = np.where(merge, 0, a[3]).astype(np.int8)
    return a


def rank_powers() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``rank**4`` and ``rank**3.5`` (the two powers above) for ranks 0..31.

    Computed the same way everywhere: ``rank**4`` is exact in float64, and
    ``rank**3.5`` is the exact cube times the correctly rounded square root,
    not ``pow``: NumPy's vectorised ``pow`` and the C library's differ in the
    last bit (rank 15 on the CI machine), and the C solver
    (``twenty48_replay/_native/t48_solver_core.c``) builds bit-identical tables.
    """
    ranks = np.arange(32, dtype=np.float64)
    return ranks * ranks * ranks * ranks, ranks * ranks * ranks * np.sqrt(ranks)


def line_heuristic(cells: Lines) -> npt.NDArray[np.float64]:
    """nneonneo's line heuristic (see the module docstring) for four arrays of exponents."""
    power_mono, power_sum = rank_powers()
    n = cells[0].shape[0]
    empty = np.zeros(n, dtype=np.int64)
    total = np.zeros(n)
    for c in cells:
        empty += c == 0
        total += power_sum[c]
    # Merge potential: a run of k >= 2 equal non-empty tiles (ignoring gaps,
    # as the original does) counts k.
    merges = np.zeros(n, dtype=np.int64)
    prev = np.zeros(n, dtype=np.int8)
    counter = np.zeros(n, dtype=np.int64)
    for rank in cells:
        nz = rank != 0
        same = nz & (prev == rank)
        ends = nz & ~same & (counter > 0)
        merges += np.where(ends, 1 + counter, 0)
        counter = np.where(same, counter + 1, np.where(ends, 0, counter))
        prev = np.where(nz, rank, prev)
    merges += np.where(counter > 0, 1 + counter, 0)
    mono_left = np.zeros(n)
    mono_right = np.zeros(n)
    for j in range(1, 4):
        drop = power_mono[cells[j - 1]] - power_mono[cells[j]]
        falls = cells[j - 1] > cells[j]
        mono_left += np.where(falls, drop, 0.0)
        mono_right += np.where(falls, 0.0, -drop)
    value: npt.NDArray[np.float64] = (
        LOST_PENALTY
        + EMPTY_WEIGHT * empty
        + MERGES_WEIGHT * merges
        - MONOTONICITY_WEIGHT * np.minimum(mono_left, mono_right)
        - SUM_WEIGHT * total
    )
    return value


@cache
def tables() -> Tables:
    """Build (once per process) and return the solver's tables."""
    keys = np.arange(KEY_COUNT, dtype=np.uint32)
    cells = key_cells(keys)
    left = cells_key(slide_left(cells))
    right = cells_key(slide_left(cells[::-1])[::-1])
    heur = line_heuristic(cells)
    for array in (left, right, heur):
        array.flags.writeable = False
    narrow = 1 << 16
    left16 = (left[:narrow] & 0xFFFF).astype(np.uint16)
    right16 = (right[:narrow] & 0xFFFF).astype(np.uint16)
    heur16 = heur[:narrow].copy()
    for array16 in (left16, right16, heur16):
        array16.flags.writeable = False
    return Tables(left, right, heur, left16, right16, heur16)
