"""Text for the cards (help, rules, fair play), wrapped so that it reads well at any width.

Textual wraps a paragraph greedily, so a Danish sentence at 40 columns may
leave one word on its last line, and a key's description that wraps starts
again at the card's left margin, under the key.  :class:`Prose` wraps
itself instead:

* each paragraph (a line of the source text; blank lines are kept) is
  wrapped at the widest width that leaves no line holding a single word
  (trying a few columns narrower before giving up);
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
#: How many columns narrower a paragraph may be wrapped to avoid a one-word line.
MAX_NARROWING = 12


@dataclass(frozen=True)
class KeyRow:
    """A key (or keys) and what it does, as markup (translated already)."""

    keys: str
    text: str


Block = str | KeyRow


def _words(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the space-separated words of ``text``."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for index, char in enumerate(text):
        if char == " ":
            if start is not None:
                spans.append((start, index))
                start = None
        elif start is None:
            start = index
    if start is not None:
        spans.append((start, len(text)))
    return spans


def _greedy(text: str, words: list[tuple[int, int]], width: int) -> list[list[tuple[int, int]]]:
    """Words per line, greedily; a word wider than ``width`` is folded into pieces."""
    lines: list[list[tuple[int, int]]] = []
    line: list[tuple[int, int]] = []
    used = 0
    for start, end in words:
        size = cell_len(text[start:end])
        if size > width:
            if line:
                lines.append(line)
                line, used = [], 0
            piece_start = start
            while piece_start < end:
                piece_end = piece_start
                cells = 0
                while piece_end < end and cells + cell_len(text[piece_end]) <= width:
                    cells += cell_len(text[piece_end])
                    piece_end += 1
                piece_end = max(piece_end, piece_start + 1)
                lines.append([(piece_start, piece_end)])
                piece_start = piece_end
            continue
        needed = size if not line else used + 1 + size
        if line and needed > width:
            lines.append(line)
            line, used = [(start, end)], size
        else:
            line.append((start, end))
            used = needed
    if line:
        lines.append(line)
    return lines


def _has_lonely_word(
    text: str, lines: list[list[tuple[int, int]]], words: list[tuple[int, int]]
) -> bool:
    """A line of one word in a paragraph of several (folded pieces of a long word excepted)."""
    if len(lines) < 2:
        return False
    whole = set(words)
    return any(len(line) == 1 and line[0] in whole for line in lines)


def wrap_paragraph(text: str, width: int) -> list[tuple[int, int]]:
    """(start, end) offsets of each line of ``text`` wrapped at ``width`` or a bit less.

    The widest width from ``width`` down that leaves no one-word line wins;
    if none does within :data:`MAX_NARROWING` columns, ``width`` itself.
    """
    width = max(width, 1)
    words = _words(text)
    if not words:
        return [(0, 0)]
    chosen = _greedy(text, words, width)
    if _has_lonely_word(text, chosen, words):
        for narrower in range(width - 1, max(width - MAX_NARROWING, width * 2 // 3, 0), -1):
            candidate = _greedy(text, words, narrower)
            if not _has_lonely_word(text, candidate, words):
                chosen = candidate
                break
    return [(line[0][0], line[-1][1]) for line in chosen]


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
        whole = "\n".join(
            f"{block.keys}  {block.text}" if isinstance(block, KeyRow) else block
            for block in self.blocks
        ).replace(NO_BREAK, " ")
        super().__init__(whole, id=id, classes=classes, markup=markup)

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
