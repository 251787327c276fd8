"""How the replay viewer fits an invalid record's reasons into the terminal it has.

The banner with the reasons is as wide as the terminal and wraps at word
boundaries.  Rows are what is short: the board needs 17 rows (13 in the
compact layout), so the viewer picks the roomiest arrangement in which the
whole banner still fits, giving up, in this order, the margins, the
progress line, the title line and the medium layout's board size.  When even the
smallest leaves too few rows (40x15 with a long reason), the banner shows
the lines that fit and ends with a pointer to the key that opens every
reason on a card of its own; no word is ever cut, and nothing is wider
than the terminal, so no scrollbar appears.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rich.cells import cell_len
from textual.content import Content

from twenty48_replay.core.i18n import N_, _

from .prose import Prose, layout
from .widgets import COMPACT, MEDIUM, WIDE, layout_for


@dataclass(frozen=True)
class Arrangement:
    """One way to lay out the viewer; ``rows`` is what it needs besides the banner."""

    layout: str
    margins: bool = True
    progress: bool = True
    title: bool = True

    @property
    def min_width(self) -> int:
        return {WIDE: 78, MEDIUM: 60, COMPACT: 0}[self.layout]

    @property
    def rows(self) -> int:
        """Header, board (with margins), progress line and key bar."""
        board = 13 if self.layout == COMPACT else 17
        margins = 2 if self.layout == WIDE and self.margins else 0
        progress = 1 if self.layout != COMPACT and self.progress else 0
        return int(self.title) + board + margins + progress + 1


#: From the roomiest to the smallest.
ARRANGEMENTS: Final = (
    Arrangement(WIDE),
    Arrangement(WIDE, margins=False),
    Arrangement(MEDIUM),
    Arrangement(MEDIUM, progress=False),
    Arrangement(MEDIUM, progress=False, title=False),
    Arrangement(COMPACT),
    Arrangement(COMPACT, title=False),
)
#: What the banner's last line says when the reasons do not all fit.
MORE_REASONS = N_("… i: every reason")


@dataclass(frozen=True)
class Plan:
    """The chosen arrangement and how many rows the banner gets (0: no banner)."""

    arrangement: Arrangement
    banner_rows: int


def plan(width: int, height: int, banner: Prose | None) -> Plan:
    """The roomiest arrangement that shows the whole banner (module docstring)."""
    if banner is None:
        return Plan(Arrangement(layout_for(width, height)), 0)
    base = layout_for(width, height)
    order = [a.layout for a in ARRANGEMENTS]
    candidates = [
        a
        for a in ARRANGEMENTS
        if order.index(a.layout) >= order.index(base) and width >= a.min_width
    ]
    needed = len(banner.lines(max(width - 2, 1)))
    for arrangement in candidates:
        if height - arrangement.rows >= needed:
            return Plan(arrangement, needed)
    last = candidates[-1]
    return Plan(last, max(height - last.rows, 1))


class Banner(Prose):
    """The invalid record's reasons, wrapped, shown on at most ``rows`` rows."""

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__([text], id=id, markup=False)
        self.rows = 0

    def lines(self, width: int) -> list[Content]:
        """The wrapped reasons, cut to ``rows`` whole lines with a pointer to the rest."""
        lines = layout(self.blocks, width, markup=False)
        if not self.rows or len(lines) <= self.rows:
            return lines
        more = _(MORE_REASONS)
        kept = lines[: self.rows]
        last = kept[-1].plain
        while last and cell_len(last) + 1 + cell_len(more) > width:
            cut = last.rfind(" ")
            last = last[:cut] if cut > 0 else ""
        kept[-1] = Content(f"{last} {more}".strip())
        return kept
