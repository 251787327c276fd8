"""Row tables: the whole rule set of 2048 reduced to lookups on one packed row.

Layout (shared by every module that touches packed boards):

* A cell holds an *exponent* ``e`` (tile value ``2**e``, 0 = empty) in 5 bits,
  so tiles up to 2**31 fit; 4-bit packing would overflow at 32768+32768.
* Cell index ``i = row * 4 + col`` (row 0 on top, col 0 on the left) sits at
  bits ``5*i .. 5*i+4`` of the 80-bit board ``b``; a row is a 20-bit key with
  column 0 in its lowest bits.
* ``t`` is the transposed board (cell (r, c) of ``t`` is cell (c, r) of ``b``),
  so that a column of ``b`` is a row of ``t`` and up/down moves are row moves.
* The engine's working state is ``b | t << 80``.  A table entry for a source
  row holds everything one move of that row contributes to the next state:
  its cells in ``b``, its cells in ``t``, its empty cells as a 16-bit mask
  (bits 160..175) and the points gained (bits 176 and up).  Adding the four
  entries of a move gives the whole next state in four lookups and three
  additions; the parts never overlap, so addition equals bitwise or.

Why lazy dictionaries instead of a full list: a 20-bit key gives 2**20 rows,
which would take seconds and hundreds of MB to precompute in Python, while a
real game only ever meets a few thousand distinct rows.  Each row is computed
once, on first sight, for all sixteen (direction, line) tables at once.
"""

from __future__ import annotations

from typing import Final

CELL_BITS: Final = 5
CELL_MASK: Final = (1 << CELL_BITS) - 1
ROW_BITS: Final = 4 * CELL_BITS
ROW_MASK: Final = (1 << ROW_BITS) - 1
BOARD_BITS: Final = 4 * ROW_BITS
BOARD_MASK: Final = (1 << BOARD_BITS) - 1
STATE_MASK: Final = (1 << (2 * BOARD_BITS)) - 1
EMPTY_SHIFT: Final = 2 * BOARD_BITS
EMPTY_MASK: Final = 0xFFFF
GAIN_SHIFT: Final = EMPTY_SHIFT + 16
MAX_EXPONENT: Final = CELL_MASK

# Direction codes, in the order of the record letters "U", "D", "L", "R".
UP: Final = 0
DOWN: Final = 1
LEFT: Final = 2
RIGHT: Final = 3


class TileOverflowError(ArithmeticError):
    """A merge would create a tile above 2**31, which 5-bit cells cannot hold.

    Unreachable in a real game (the largest possible tile is 131072 = 2**17);
    only hand-made boards can get here.
    """


def slide_exponents(cells: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Slide one line of exponents toward index 0, merging as the original does.

    Returns the new line and the points gained.  Merging starts at the edge
    being pushed toward and each tile merges at most once, so ``2 2 4`` gives
    ``4 4``, not ``8``.
    """
    tiles = [e for e in cells if e]
    out: list[int] = []
    gained = 0
    i = 0
    while i < len(tiles):
        e = tiles[i]
        if i + 1 < len(tiles) and tiles[i + 1] == e:
            if e >= MAX_EXPONENT:
                raise TileOverflowError(f"merging two {2**e} tiles overflows the board")
            out.append(e + 1)
            gained += 2 << e
            i += 2
        else:
            out.append(e)
            i += 1
    out.extend([0] * (len(cells) - len(out)))
    return tuple(out), gained


def unpack_row(key: int) -> tuple[int, int, int, int]:
    """The four exponents of a 20-bit row key, column 0 first."""
    return (key & 31, (key >> 5) & 31, (key >> 10) & 31, (key >> 15) & 31)


def _b_bit(row: int, col: int) -> int:
    return CELL_BITS * (row * 4 + col)


def _t_bit(row: int, col: int) -> int:
    """Bit of cell (row, col) of ``b`` inside the transposed half of the state."""
    return BOARD_BITS + CELL_BITS * (col * 4 + row)


def _line_parts(result: tuple[int, ...]) -> tuple[int, int, int, int]:
    """A moved line as (row key, the same cells spread one per row, empty bits, spread empties).

    "Spread" puts cell j at the position of row j, column 0, which is where a
    row of ``b`` lands in ``t`` (and a row of ``t`` in ``b``) before shifting
    by the column; the contributions below are shifts of these four numbers.
    """
    key = spread = empty = empty_spread = 0
    for j, e in enumerate(result):
        key |= e << (CELL_BITS * j)
        spread |= e << (ROW_BITS * j)
        if not e:
            empty |= 1 << j
            empty_spread |= 1 << (4 * j)
    return key, spread, empty, empty_spread


def _contributions(result: tuple[int, ...], gained: int, vertical: bool) -> list[int]:
    """Each line's contribution (b cells, t cells, empty mask, gain) for one moved line."""
    key, spread, empty, empty_spread = _line_parts(result)
    gain = gained << GAIN_SHIFT
    if vertical:  # line p is column p of b, row p of t
        return [
            gain
            | spread << (CELL_BITS * p)
            | key << (BOARD_BITS + ROW_BITS * p)
            | empty_spread << (EMPTY_SHIFT + p)
            for p in range(4)
        ]
    return [
        gain
        | key << (ROW_BITS * p)
        | spread << (BOARD_BITS + CELL_BITS * p)
        | empty << (EMPTY_SHIFT + 4 * p)
        for p in range(4)
    ]


# MOVE_TABLES[direction][line] maps a source row key to its contribution.
# The source for LEFT/RIGHT is row ``line`` of b; for UP/DOWN, row ``line``
# of t, i.e. column ``line`` of b (top cell in the lowest bits).
MOVE_TABLES: Final[tuple[tuple[dict[int, int], ...], ...]] = tuple(
    tuple({} for _ in range(4)) for _ in range(4)
)
# TRANSPOSE_TABLES[line] maps row ``line`` of b to its cells in t, to derive
# the working state of a board known only by b.
TRANSPOSE_TABLES: Final[tuple[dict[int, int], ...]] = tuple({} for _ in range(4))


def learn_row(key: int) -> None:
    """Fill every table's entry for one row key (called on a lookup miss)."""
    cells = unpack_row(key)
    toward_start, gain_start = slide_exponents(cells)
    toward_end_rev, gain_end = slide_exponents(cells[::-1])
    toward_end = toward_end_rev[::-1]
    spread = _line_parts(cells)[1]
    for direction, result, gained, vertical in (
        (LEFT, toward_start, gain_start, False),
        (RIGHT, toward_end, gain_end, False),
        (UP, toward_start, gain_start, True),
        (DOWN, toward_end, gain_end, True),
    ):
        for table, value in zip(
            MOVE_TABLES[direction], _contributions(result, gained, vertical), strict=True
        ):
            table[key] = value
    for line in range(4):
        TRANSPOSE_TABLES[line][key] = spread << (CELL_BITS * line)


def learn_rows_of(source: int) -> None:
    """Learn the row keys of an 80-bit half-state that are not known yet."""
    known = TRANSPOSE_TABLES[0]
    for line in range(4):
        key = (source >> (ROW_BITS * line)) & ROW_MASK
        if key not in known:
            learn_row(key)


def transpose(b: int) -> int:
    """The transposed 80-bit board of ``b``."""
    try:
        return (
            TRANSPOSE_TABLES[0][b & ROW_MASK]
            | TRANSPOSE_TABLES[1][(b >> 20) & ROW_MASK]
            | TRANSPOSE_TABLES[2][(b >> 40) & ROW_MASK]
            | TRANSPOSE_TABLES[3][b >> 60]
        )
    except KeyError:
        learn_rows_of(b)
        return transpose(b)


def move_state(state: int, direction: int) -> int:
    """Apply a direction to a working state ``b | t << 80``.

    Returns the packed result: next ``b | t << 80`` in the low 160 bits, the
    empty mask of the result above it, and the points gained on top.  The
    move changed nothing exactly when ``result & BOARD_MASK == state & BOARD_MASK``.
    """
    source = state if direction >= LEFT else state >> BOARD_BITS
    t0, t1, t2, t3 = MOVE_TABLES[direction]
    try:
        return (
            t0[source & ROW_MASK]
            + t1[(source >> 20) & ROW_MASK]
            + t2[(source >> 40) & ROW_MASK]
            + t3[(source >> 60) & ROW_MASK]
        )
    except KeyError:
        learn_rows_of(source & BOARD_MASK)
        return move_state(state, direction)


_EMPTIES_CACHE: Final[dict[int, tuple[int, ...]]] = {}


def empties_of_mask(mask: int) -> tuple[int, ...]:
    """Cell indices (ascending, row-major) of the set bits of a 16-bit mask."""
    cells = _EMPTIES_CACHE.get(mask)
    if cells is None:
        cells = tuple(i for i in range(16) if mask >> i & 1)
        _EMPTIES_CACHE[mask] = cells
    return cells


def empty_mask(b: int) -> int:
    """16-bit mask of the empty cells of an 80-bit board."""
    mask = 0
    for i in range(16):
        if not (b >> (CELL_BITS * i)) & CELL_MASK:
            mask |= 1 << i
    return mask


def spawn_addend(cell: int, exponent: int) -> int:
    """What placing a tile adds to a working state (its cell in b and in t)."""
    row, col = divmod(cell, 4)
    return (exponent << _b_bit(row, col)) | (exponent << _t_bit(row, col))


# SPAWN_ADD[e][cell] for the two spawnable exponents 1 (a 2) and 2 (a 4).
SPAWN_ADD: Final = (
    (),
    tuple(spawn_addend(c, 1) for c in range(16)),
    tuple(spawn_addend(c, 2) for c in range(16)),
)
