"""The web pages' stylesheet, with its colours and proportions taken from the pictures' palette.

SVG, GIF and the web pages must look like one game, so there is one palette
(:mod:`twenty48_replay.pictures.style`): :func:`palette_css` turns it into
CSS custom properties and one rule per tile value, and :func:`stylesheet`
puts that in front of the layout in ``web/static/style.css``, which only
ever refers to the ``--t48-*`` properties and the generated tile classes.
"""

from __future__ import annotations

from importlib import resources
from typing import Final

from twenty48_replay.pictures import style

#: Tile values that get their own rule (2 .. 131072, the most a 4x4 board can hold).
TILE_VALUES: Final = tuple(2**k for k in range(1, 18))


def _ratio(x: float) -> str:
    return f"{x:.5f}".rstrip("0").rstrip(".")


def palette_css() -> str:
    """Custom properties and tile classes (``.t48-cell.v2``, ``.t48-cell.d3``) from the palette."""
    properties = {
        "page": style.PAGE,
        "board": style.BOARD,
        "empty": style.EMPTY,
        "dark-text": style.DARK_TEXT,
        "light-text": style.LIGHT_TEXT,
        "super-tile": style.SUPER_TILE,
        "score-box": style.SCORE_BOX,
        "score-label": style.SCORE_LABEL,
        "score-value": style.SCORE_VALUE,
        "accent": style.ACCENT,
        # Verdict colours: green for a verified game, the 64 tile (red) for a false one.
        "ok": style.VERIFIED,
        "bad": style.TILE_BACKGROUNDS[64],
        "gap-ratio": _ratio(style.GAP / style.BOARD_SIZE),
        "board-radius-ratio": _ratio(style.BOARD_RADIUS / style.BOARD_SIZE),
        "tile-radius-ratio": _ratio(style.TILE_RADIUS / style.TILE_SIZE),
    }
    lines = [":root{" + ";".join(f"--t48-{k}:{v}" for k, v in properties.items()) + "}"]
    for value in TILE_VALUES:
        background, text = style.tile_colours(value)
        lines.append(f".t48-cell.v{value}{{background:{background};color:{text}}}")
    for digits in range(1, 7):
        ratio = style.tile_font_ratio(10 ** (digits - 1))
        lines.append(f".t48-cell.d{digits}{{font-size:calc(var(--t48-tile) * {_ratio(ratio)})}}")
    return "\n".join(lines) + "\n"


def layout_css() -> str:
    """``web/static/style.css``: the layout, written against the palette's properties."""
    return (
        resources.files("twenty48_replay.web")
        .joinpath("static", "style.css")
        .read_text(encoding="utf-8")
    )


def stylesheet() -> str:
    """The whole stylesheet of the web pages: palette first, then the layout."""
    return palette_css() + layout_css()
