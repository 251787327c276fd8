"""One position as a standalone SVG 1.1 picture in the original game's style.

The SVG is plain text with no external resources (fonts fall back to the
viewer's bold sans-serif), so it can be written to a file, embedded in a
page or attached to a bug report as it is.  Every tile group carries its
cell and value as attributes in the ``urn:twenty48-replay:svg`` namespace
(allowed by SVG 1.1's extensibility rules, unlike HTML's ``data-*``), so a
program can read the pictured board back and check it against the replay.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.replay import Step
from twenty48_replay.pictures import style

SVG_NS = "http://www.w3.org/2000/svg"
#: Namespace of the ``t48:cell`` / ``t48:value`` attributes on tile groups.
DATA_NS = "urn:twenty48-replay:svg"

_FONT = "'Clear Sans', 'Helvetica Neue', Arial, Helvetica, sans-serif"
_PAD = 12.0
_HEADER = 76.0
_BUTTON = 44.0  # the move arrow's square
_WIDTH = style.BOARD_SIZE + 2 * _PAD
_HEIGHT = style.BOARD_SIZE + 2 * _PAD + _HEADER


def _num(x: float) -> str:
    """A coordinate without float noise (``15``, ``121.25``)."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _score_box(score: int) -> list[str]:
    """The original's grey SCORE box, right-aligned, as wide as the number needs."""
    digits = len(str(score))
    width = max(90.0, 30.0 + 16.0 * digits)
    height = 58.0
    x = _WIDTH - _PAD - width
    y = _PAD + (_HEADER - 12.0 - height) / 2
    cx = x + width / 2
    return [
        f'<g class="score"><rect x="{_num(x)}" y="{_num(y)}" width="{_num(width)}" '
        f'height="{_num(height)}" rx="3" fill="{style.SCORE_BOX}"/>',
        f'<text x="{_num(cx)}" y="{_num(y + 20)}" font-size="13" fill="{style.SCORE_LABEL}" '
        f'text-anchor="middle" letter-spacing="1">SCORE</text>',
        f'<text x="{_num(cx)}" y="{_num(y + 47)}" font-size="25" fill="{style.SCORE_VALUE}" '
        f'text-anchor="middle">{score}</text></g>',
    ]


def _header(score: int | None, caption: str | None, move: Direction | None) -> list[str]:
    """Score box on the right; move arrow and caption (or the title) on the left."""
    parts: list[str] = []
    middle = _PAD + (_HEADER - 12.0) / 2
    x = _PAD
    if move is not None:
        points = style.arrow_points(move, x + _BUTTON / 2, middle, _BUTTON * 0.8)
        parts.append(
            f'<g class="move" data-move="{move.letter}">'
            f'<rect x="{_num(x)}" y="{_num(middle - _BUTTON / 2)}" width="{_num(_BUTTON)}" '
            f'height="{_num(_BUTTON)}" rx="3" fill="{style.ACCENT}"/>'
            f'<polygon points="{" ".join(f"{_num(px)},{_num(py)}" for px, py in points)}" '
            f'fill="{style.LIGHT_TEXT}"/></g>'
        )
        x += _BUTTON + 12.0
    if caption is not None:
        parts.append(
            f'<text class="caption" x="{_num(x)}" y="{_num(middle + 9)}" font-size="26" '
            f'fill="{style.DARK_TEXT}">{escape(caption)}</text>'
        )
    elif move is None:
        parts.append(
            f'<text class="title" x="{_num(x)}" y="{_num(middle + 20)}" font-size="58" '
            f'fill="{style.DARK_TEXT}">2048</text>'
        )
    if score is not None:
        parts.extend(_score_box(score))
    return parts


def _tile(cell: int, value: int, ox: float, oy: float, highlighted: bool) -> str:
    """One tile: a rounded square and its number, tagged with cell and value."""
    cx, cy = style.cell_origin(cell)
    x, y = ox + cx, oy + cy
    size = style.TILE_SIZE
    background, text = style.tile_colours(value)
    font = style.tile_font_ratio(value) * size
    ring = ""
    if highlighted:
        inset = 3.0
        ring = (
            f'<rect class="spawn" x="{_num(x + inset)}" y="{_num(y + inset)}" '
            f'width="{_num(size - 2 * inset)}" height="{_num(size - 2 * inset)}" rx="2" '
            f'fill="none" stroke="{style.ACCENT}" stroke-width="5"/>'
        )
    return (
        f'<g class="tile" t48:cell="{cell}" t48:value="{value}">'
        f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(size)}" height="{_num(size)}" '
        f'rx="{_num(style.TILE_RADIUS)}" fill="{background}"/>{ring}'
        f'<text x="{_num(x + size / 2)}" y="{_num(y + size / 2 + 0.36 * font)}" '
        f'font-size="{_num(font)}" fill="{text}" text-anchor="middle">{value}</text></g>'
    )


def board_svg(
    board: Board,
    *,
    score: int | None = None,
    caption: str | None = None,
    spawn_cell: int | None = None,
    move: Direction | None = None,
) -> str:
    """A standalone SVG 1.1 document picturing ``board``.

    ``score`` adds the SCORE box, ``caption`` a line of text (the game's
    title "2048" stands there when neither caption nor move is given),
    ``move`` an arrow button for the move that led here, and ``spawn_cell``
    rings the tile that was just placed, so a reader sees where it came from.
    """
    if spawn_cell is not None and not 0 <= spawn_cell < 16:
        raise ValueError("spawn_cell must be a cell index 0..15")
    ox, oy = _PAD, _PAD + _HEADER
    title = "2048 board" + ("" if score is None else f", score {score}")
    if caption is not None:
        title += f", {caption}"
    if move is not None:
        title += f", move {move.name.lower()}"
    rows = "\n".join(" ".join(str(v) for v in row) for row in board.to_rows())
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="{SVG_NS}" xmlns:t48={quoteattr(DATA_NS)} version="1.1" '
        f'width="{_num(_WIDTH)}" height="{_num(_HEIGHT)}" '
        f'viewBox="0 0 {_num(_WIDTH)} {_num(_HEIGHT)}" '
        f'font-family="{_FONT}" font-weight="bold">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(rows)}</desc>",
        f'<rect width="100%" height="100%" fill="{style.PAGE}"/>',
        *_header(score, caption, move),
        f'<rect class="board" x="{_num(ox)}" y="{_num(oy)}" width="{_num(style.BOARD_SIZE)}" '
        f'height="{_num(style.BOARD_SIZE)}" rx="{_num(style.BOARD_RADIUS)}" '
        f'fill="{style.BOARD}"/>',
    ]
    size = _num(style.TILE_SIZE)
    for cell in range(16):
        cx, cy = style.cell_origin(cell)
        parts.append(
            f'<rect class="cell" x="{_num(ox + cx)}" y="{_num(oy + cy)}" width="{size}" '
            f'height="{size}" rx="{_num(style.TILE_RADIUS)}" fill="{style.EMPTY}"/>'
        )
    for cell, value in enumerate(board):
        if value:
            parts.append(_tile(cell, value, ox, oy, cell == spawn_cell))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def step_svg(step: Step, total_moves: int) -> str:
    """A replay step as SVG: score, ``move k / N``, the move's arrow and the new tile ringed.

    Step 0 (the opening board) has no move, so nothing is ringed there.
    """
    return board_svg(
        step.board,
        score=step.score,
        caption=style.step_caption(step.step, total_moves),
        spawn_cell=None if step.move is None else step.spawn.cell,
        move=step.move,
    )
