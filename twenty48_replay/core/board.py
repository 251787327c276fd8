"""The board as an immutable value: a packed integer with row-table moves.

``Board`` wraps the 80-bit packing described in :mod:`twenty48_replay.core.rows`
(5 bits of exponent per cell, so tiles up to 131072 and beyond fit).  Every
operation returns a new board; nothing here does I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence

import attrs

from twenty48_replay.core import native, rows


class Direction(enum.Enum):
    """A move, named by the letter used in records."""

    UP = "U"
    DOWN = "D"
    LEFT = "L"
    RIGHT = "R"

    @property
    def letter(self) -> str:
        """The record letter: U, D, L or R."""
        return self.value

    @property
    def code(self) -> int:
        """The row-table index of this direction."""
        return _CODES[self]

    @classmethod
    def from_letter(cls, letter: str) -> Direction:
        """Parse a record letter (case-insensitive, as typed by a player)."""
        try:
            return cls(letter.upper())
        except ValueError:
            raise ValueError(f"{letter!r} is not a direction (U, D, L or R)") from None

    def __repr__(self) -> str:
        return f"Direction.{self.name}"


_CODES = {
    Direction.UP: rows.UP,
    Direction.DOWN: rows.DOWN,
    Direction.LEFT: rows.LEFT,
    Direction.RIGHT: rows.RIGHT,
}
DIRECTIONS: tuple[Direction, ...] = (Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT)
LETTER_CODES: dict[str, int] = {d.letter: d.code for d in DIRECTIONS}
MAX_TILE = 131072


def tile_exponent(value: int) -> int:
    """The exponent of a tile value (0 for an empty cell), checking it is a tile."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"tile {value!r} is not an integer")
    if value == 0:
        return 0
    exponent = value.bit_length() - 1
    if value < 2 or value != 1 << exponent or exponent > rows.MAX_EXPONENT:
        raise ValueError(
            f"tile {value} is not 0 or a power of two from 2 to {2**rows.MAX_EXPONENT}"
        )
    return exponent


#: The exponent of every tile value (and 0 for an empty cell): from_cells' fast path.
_EXPONENTS: dict[int, int] = {0: 0, **{1 << e: e for e in range(1, rows.MAX_EXPONENT + 1)}}
#: The tile value of every cell field (0 = empty): a lookup, as the answers read every cell.
_VALUES: tuple[int, ...] = (0, *(1 << e for e in range(1, rows.CELL_MASK + 1)))
#: Where each cell's field starts in the packed board, row-major, and the same by row.
_SHIFTS: tuple[int, ...] = tuple(rows.CELL_BITS * cell for cell in range(16))
_ROW_SHIFTS: tuple[tuple[int, ...], ...] = tuple(_SHIFTS[r * 4 : r * 4 + 4] for r in range(4))


@attrs.frozen(slots=True)
class SlideResult:
    """What one direction does to a board: the new board and the points gained."""

    board: Board
    gained: int
    changed: bool


@attrs.frozen(slots=True, repr=False, order=False)
class Board:
    """A 4x4 board, packed into one integer (see :mod:`twenty48_replay.core.rows`).

    Build boards with :meth:`from_rows` or :meth:`empty`; ``packed`` is the raw
    80-bit encoding, exposed for storage and fast paths.
    """

    packed: int = attrs.field(default=0)

    @packed.validator
    def _check_packed(self, _attribute: attrs.Attribute[int], value: int) -> None:
        if not 0 <= value <= rows.BOARD_MASK:
            raise ValueError("packed board out of range")

    @classmethod
    def empty(cls) -> Board:
        """The empty board."""
        return cls(0)

    @classmethod
    def from_rows(cls, grid: Sequence[Sequence[int]]) -> Board:
        """A board from 4 rows of 4 tile values (0 = empty), top row first."""
        if len(grid) != 4 or any(len(row) != 4 for row in grid):
            raise ValueError("a board is 4 rows of 4 cells")
        return cls.from_cells(value for row in grid for value in row)

    @classmethod
    def from_cells(cls, values: Iterable[int]) -> Board:
        """A board from 16 tile values in row-major order."""
        packed = 0
        count = 0
        exponents = _EXPONENTS
        for i, value in enumerate(values):
            exponent = exponents.get(value) if type(value) is int else None
            if exponent is None:
                exponent = tile_exponent(value)  # raises the ValueError naming the value
            packed |= exponent << (rows.CELL_BITS * i)
            count += 1
        if count != 16:
            raise ValueError("a board has 16 cells")
        return cls(packed)

    def exponent(self, cell: int) -> int:
        """Exponent at a cell index (0 = empty)."""
        return (self.packed >> (rows.CELL_BITS * cell)) & rows.CELL_MASK

    def __getitem__(self, cell: int) -> int:
        """Tile value at a cell index 0..15 (row-major), 0 when empty."""
        if not 0 <= cell < 16:
            raise IndexError("cell index must be 0..15")
        e = self.exponent(cell)
        return 1 << e if e else 0

    def __iter__(self) -> Iterator[int]:
        """The 16 tile values in row-major order."""
        return iter(self.cells())

    def cells(self) -> tuple[int, ...]:
        """The 16 tile values in row-major order."""
        packed, mask = self.packed, rows.CELL_MASK
        return tuple([_VALUES[packed >> shift & mask] for shift in _SHIFTS])

    def to_rows(self) -> list[list[int]]:
        """4 rows of 4 tile values, top row first (JSON-ready)."""
        packed, mask = self.packed, rows.CELL_MASK
        return [[_VALUES[packed >> shift & mask] for shift in row] for row in _ROW_SHIFTS]

    @property
    def max_tile(self) -> int:
        """The largest tile (0 on an empty board)."""
        packed, mask = self.packed, rows.CELL_MASK
        return _VALUES[max([packed >> shift & mask for shift in _SHIFTS])]

    @property
    def tile_sum(self) -> int:
        """Sum of all tiles: conserved by every slide."""
        return sum(self)

    def empty_cells(self) -> tuple[int, ...]:
        """Indices of the empty cells, ascending (the order spawns draw from)."""
        return rows.empties_of_mask(rows.empty_mask(self.packed))

    def is_full(self) -> bool:
        """No empty cell left."""
        return rows.empty_mask(self.packed) == 0

    def state(self) -> int:
        """The engine's working state (board and its transpose)."""
        return self.packed | rows.transpose(self.packed) << rows.BOARD_BITS

    def slide(self, direction: Direction) -> SlideResult:
        """Slide every tile toward ``direction`` (no spawn; one C call with the native core)."""
        if native.core is not None:
            try:
                slid = native.core.slide(self.packed, direction.code)
            except OverflowError as exc:
                raise rows.TileOverflowError(str(exc)) from None
            if slid is None:
                return SlideResult(self, 0, False)
            return SlideResult(Board(slid[0]), slid[1], True)
        result = rows.move_state(self.state(), direction.code)
        board = Board(result & rows.BOARD_MASK)
        return SlideResult(board, result >> rows.GAIN_SHIFT, board.packed != self.packed)

    def valid_directions(self) -> tuple[Direction, ...]:
        """The directions that change the board, in U, D, L, R order."""
        state = self.state()
        return tuple(
            d for d in DIRECTIONS if rows.move_state(state, d.code) & rows.BOARD_MASK != self.packed
        )

    def is_over(self) -> bool:
        """No direction changes the board (one C call with the native core)."""
        if native.core is not None:
            try:
                over: bool = native.core.is_over(self.packed)
            except OverflowError as exc:
                raise rows.TileOverflowError(str(exc)) from None
            return over
        return not self.valid_directions()

    def with_tile(self, cell: int, value: int) -> Board:
        """A copy with one cell set (used for spawns and hand-made positions)."""
        if not 0 <= cell < 16:
            raise IndexError("cell index must be 0..15")
        shift = rows.CELL_BITS * cell
        cleared = self.packed & ~(rows.CELL_MASK << shift)
        return Board(cleared | tile_exponent(value) << shift)

    def pretty(self) -> str:
        """A fixed-width text grid, for terminals and doctests."""
        width = max(4, len(str(self.max_tile)))
        lines = []
        for row in self.to_rows():
            lines.append(" ".join(f"{v:>{width}}" if v else f"{'.':>{width}}" for v in row))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board.from_rows({self.to_rows()!r})"
