"""Text for the cards (help, rules, fair play), wrapped so that it reads well at any width.

Textual wraps a paragraph greedily, so a Danish sentence at 40 columns may
leave one word on its last line, and a key's description that wraps starts
again at the card's left margin, under the key.  :class:`Prose` wraps
itself instead:

* each paragraph (a line of the source text; blank lines are kept) is
  broken into lines of even length that leave no line holding a single
  word, where any other way exists;
* a key row (``KeyRow``) puts the key in a column of its own and hangs
  every line of its description under the description's first word, so a
  key is never parted from its text;
* a no-break space (U+00A0) holds two words together (``twenty48 verify``)
  and is drawn as a plain space.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from textual.app import RenderResult
from textual.content import Content
from textual.geometry import Size
from textual.widgets import Static

NO_BREAK = "\xa0"


@dataclass(frozen=True)
class KeyRow:
    """A key (or keys) and what it does, as markup (translated already)."""

    keys: str
    text: str


Block = str | KeyRow


#: The cost of a line holding one word of a longer paragraph: paid only when no
#: other way of breaking the paragraph exists.
LONELY_WORD = 1_000_000


def _tokens(text: str, width: int) -> list[tuple[int, int, bool]]:
    """(start, end, is_piece) of each unit a line break may follow.

    Words are separated by spaces.  A word held together by no-break spaces
    that is wider than ``width`` comes apart at them after all; a word that
    is still too wide (a 64-character hash) is cut into pieces of ``width``
    cells, each a line of its own (``is_piece``).
    """
    tokens: list[tuple[int, int, bool]] = []
    for start, end in _spans(text, " "):
        if cell_len(text[start:end]) <= width:
            tokens.append((start, end, False))
            continue
        for part_start, part_end in _spans(text[start:end], NO_BREAK):
            part_start, part_end = start + part_start, start + part_end
            if cell_len(text[part_start:part_end]) <= width:
                tokens.append((part_start, part_end, False))
                continue
            piece = part_start
            while piece < part_end:
                stop, cells = piece, 0
                while stop < part_end and cells + cell_len(text[stop]) <= width:
                    cells += cell_len(text[stop])
                    stop += 1
                stop = max(stop, piece + 1)
                tokens.append((piece, stop, True))
                piece = stop
    return tokens


def _spans(text: str, separator: str) -> list[tuple[int, int]]:
    """(start, end) of the runs of ``text`` between ``separator`` characters."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for index, char in enumerate(text):
        if char == separator:
            if start is not None:
                spans.append((start, index))
                start = None
        elif start is None:
            start = index
    if start is not None:
        spans.append((start, len(text)))
    return spans


def wrap_paragraph(text: str, width: int) -> list[tuple[int, int]]:
    """(start, end) offsets of each line of ``text`` wrapped at ``width`` cells.

    The breaks minimise the sum of the squared empty cells at the ends of
    the lines (the last line's are free), and a line of a single word costs
    :data:`LONELY_WORD`, so the paragraph reads evenly and leaves no word
    alone unless nothing else fits.
    """
    width = max(width, 1)
    tokens = _tokens(text, width)
    if not tokens:
        return [(0, 0)]
    count = len(tokens)
    sizes = [cell_len(text[start:end]) for start, end, _piece in tokens]
    best: list[float] = [0.0] + [float("inf")] * count
    before: list[int] = [0] * (count + 1)
    for stop in range(1, count + 1):
        used = -1
        for first in range(stop - 1, -1, -1):
            used += sizes[first] + 1
            if used > width and first < stop - 1:
                break
            if tokens[first][2] and first < stop - 1:
                break  # a piece of a cut word stands alone
            if first < stop - 1 and tokens[stop - 1][2]:
                break
            cost = 0.0 if stop == count else float((width - used) ** 2)
            if stop - first == 1 and count > 1 and not tokens[first][2]:
                cost += LONELY_WORD
            if best[first] + cost < best[stop]:
                best[stop] = best[first] + cost
                before[stop] = first
    lines: list[tuple[int, int]] = []
    stop = count
    while stop > 0:
        first = before[stop]
        lines.append((tokens[first][0], tokens[stop - 1][1]))
        stop = first
    return lines[::-1]


def _lines_of(content: Content, width: int) -> list[Content]:
    """``content`` wrapped at ``width``: each source line is a paragraph of its own."""
    result: list[Content] = []
    for line in content.split("\n", allow_blank=True):
        for start, end in wrap_paragraph(line.plain, width):
            result.append(_spaces(line[start:end]))
    return result


def _spaces(content: Content) -> Content:
    """No-break spaces drawn as plain spaces (same length, so the styles stay put)."""
    if NO_BREAK not in content.plain:
        return content
    return Content(content.plain.replace(NO_BREAK, " "), spans=list(content.spans))


def layout(blocks: Sequence[Block], width: int, *, markup: bool = True) -> list[Content]:
    """The lines of ``blocks`` at ``width``: paragraphs wrapped, key rows with hanging text."""
    keys = [
        Content.from_markup(block.keys) if markup else Content(block.keys)
        for block in blocks
        if isinstance(block, KeyRow)
    ]
    # The key column: the widest key and two spaces, but never more than a third.
    key_width = min(max((cell_len(k.plain) for k in keys), default=0) + 2, max(width // 3, 4))
    lines: list[Content] = []
    for block in blocks:
        if isinstance(block, KeyRow):
            key = Content.from_markup(block.keys) if markup else Content(block.keys)
            text = Content.from_markup(block.text) if markup else Content(block.text)
            if cell_len(key.plain) + 1 > key_width:  # a key wider than its column: own line
                lines.extend(_lines_of(key, width))
                body = _lines_of(text, max(width - key_width, 1))
                lines.extend(Content(" " * key_width) + line for line in body)
                continue
            body = _lines_of(text, max(width - key_width, 1))
            for index, line in enumerate(body):
                lead = key.pad_right(key_width - cell_len(key.plain)) if index == 0 else None
                lines.append((lead or Content(" " * key_width)) + line)
        else:
            text = Content.from_markup(block) if markup else Content(block)
            lines.extend(_lines_of(text, width))
    return lines


def _whole(blocks: Sequence[Block]) -> str:
    """All of the blocks' text, unwrapped (what the widget says, for ``content``)."""
    return "\n".join(
        f"{block.keys}  {block.text}" if isinstance(block, KeyRow) else block for block in blocks
    ).replace(NO_BREAK, " ")


class Prose(Static):
    """Paragraphs and key rows, wrapped by :func:`layout` for the width the widget gets.

    ``content`` and ``visual`` keep the whole text unwrapped (what the card
    says); only the drawing is wrapped.
    """

    def __init__(
        self,
        blocks: Sequence[Block],
        *,
        id: str | None = None,
        classes: str | None = None,
        markup: bool = True,
    ) -> None:
        """``markup`` False: the blocks are plain text (record text, never markup)."""
        self.blocks = list(blocks)
        self.markup_blocks = markup
        super().__init__(_whole(self.blocks), id=id, classes=classes, markup=markup)

    def set_blocks(self, blocks: Sequence[Block]) -> None:
        """Show other text."""
        self.blocks = list(blocks)
        self.update(_whole(self.blocks))

    def lines(self, width: int) -> list[Content]:
        """The drawn lines at ``width`` cells."""
        return layout(self.blocks, width, markup=self.markup_blocks)

    def render(self) -> RenderResult:
        """The wrapped lines for the current width."""
        width = self.content_region.width or self.size.width
        if width <= 0:
            return self.visual
        return Content("\n").join(self.lines(width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many rows as the wrapped lines."""
        return len(self.lines(max(width, 1)))
