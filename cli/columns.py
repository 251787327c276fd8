"""A table of text columns for a terminal of some width: narrowed step by step until it fits.

``twenty48 list`` is wider than 60 columns with all its columns; in a narrow
terminal the lines wrapped into each other.  A :class:`Table` renders its
columns two spaces apart, and :func:`fit` applies the caller's steps (shorter
dates, tighter numbers, a column dropped, a narrower one) in order, only while
the table is wider than the terminal.  A cell is cut only where its column says
so, and then it ends in "...": a word is never cut without one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

import attrs
from rich.cells import cell_len, set_cell_size

ELLIPSIS = "..."


@attrs.define
class Column:
    """One column: its heading, its cells, how it is aligned and how wide it may be."""

    key: str
    heading: str
    cells: list[str]
    right: bool = False
    #: The narrowest the column is drawn (room for numbers of any size), 0: as wide as its text.
    minimum: int = 0
    #: The widest a cell is shown; a longer one is cut and ends in "..." (None: no limit).
    limit: int | None = None

    def shown(self, text: str) -> str:
        """``text`` as the column shows it: cut to :attr:`limit` with an ellipsis."""
        if self.limit is None or cell_len(text) <= self.limit:
            return text
        return set_cell_size(text, max(self.limit - len(ELLIPSIS), 1)) + ELLIPSIS

    def width(self) -> int:
        """The column's width: its widest shown cell, its heading, its minimum."""
        widths = [cell_len(self.shown(cell)) for cell in self.cells]
        return max(self.minimum, cell_len(self.heading), *widths)


@attrs.define
class Table:
    """Columns two spaces apart; the last one is not padded."""

    columns: list[Column]

    def column(self, key: str) -> Column | None:
        """The column named ``key``, if it is still there."""
        return next((column for column in self.columns if column.key == key), None)

    def drop(self, key: str) -> None:
        """Leave the column ``key`` out."""
        self.columns = [column for column in self.columns if column.key != key]

    def lines(self) -> list[str]:
        """The heading line and one line per row."""
        widths = [column.width() for column in self.columns]
        rows = [[column.heading for column in self.columns]]
        count = len(self.columns[0].cells) if self.columns else 0
        rows += [[column.shown(column.cells[i]) for column in self.columns] for i in range(count)]
        lines = []
        for row in rows:
            parts = []
            for index, (column, text, width) in enumerate(
                zip(self.columns, row, widths, strict=True)
            ):
                pad = " " * (width - cell_len(text))
                last = index == len(self.columns) - 1
                parts.append(pad + text if column.right else text + ("" if last else pad))
            lines.append("  ".join(parts))
        return lines

    def width(self) -> int:
        """The widest line."""
        return max((cell_len(line) for line in self.lines()), default=0)


Step = Callable[[Table, int], None]


def fit(table: Table, width: int | None, steps: Sequence[Step]) -> list[str]:
    """The table's lines, after as many of ``steps`` as it takes to be at most ``width`` wide.

    Each step gets the table and how many cells too wide it is.  Without a width
    (not a terminal, no ``COLUMNS``) nothing is narrowed.
    """
    if width is not None:
        for step in steps:
            excess = table.width() - width
            if excess <= 0:
                break
            step(table, excess)
    return table.lines()


def terminal_width() -> int | None:
    """The width to fit: ``COLUMNS`` (checked at start-up), else the terminal's; None when
    standard output is not a terminal, so a pipe gets every column as it always has."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isascii() and columns.isdigit() and int(columns) > 0:
        return int(columns)
    if not sys.stdout.isatty():
        return None
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns or None
    except (OSError, ValueError):
        return None
