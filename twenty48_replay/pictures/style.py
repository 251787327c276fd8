"""The look of the original game (Gabriele Cirulli's 2048), shared by SVG and GIF.

Colours and proportions come from the original's stylesheet (a 500 px board,
15 px gaps, 106.25 px tiles), so both renderers scale one design instead of
each inventing its own; the GIF renderer snaps these to whole pixels.
"""

from __future__ import annotations

import math
from typing import Final

from twenty48_replay.core.board import Direction

PAGE: Final = "#faf8ef"
BOARD: Final = "#bbada0"
EMPTY: Final = "#cdc1b4"
DARK_TEXT: Final = "#776e65"
LIGHT_TEXT: Final = "#f9f6f2"
SUPER_TILE: Final = "#3c3a32"
#: The score box reuses the board colour, its "SCORE" label the colour of a 2.
SCORE_BOX: Final = BOARD
SCORE_LABEL: Final = "#eee4da"
SCORE_VALUE: Final = "#ffffff"
#: The original's button colour: the move arrow and the ring round a new tile.
ACCENT: Final = "#8f7a66"
#: A verified record: a green that reads as "passed" (the 2048 tile's yellow read as a
#: warning), dark enough for a 4.5:1 contrast with light text and as a side bar.
VERIFIED: Final = "#2e7d32"

TILE_BACKGROUNDS: Final[dict[int, str]] = {
    2: "#eee4da",
    4: "#ede0c8",
    8: "#f2b179",
    16: "#f59563",
    32: "#f67c5f",
    64: "#f65e3b",
    128: "#edcf72",
    256: "#edcc61",
    512: "#edc850",
    1024: "#edc53f",
    2048: "#edc22e",
}

# Geometry of the original, in its own pixels.
BOARD_SIZE: Final = 500.0
GAP: Final = 15.0
TILE_SIZE: Final = (BOARD_SIZE - 5 * GAP) / 4  # 106.25
BOARD_RADIUS: Final = 6.0
TILE_RADIUS: Final = 3.0

# Font size (in original pixels, for a 106.25 px tile) by number of digits:
# 55/45/35 are the original's; 30 and 25 keep 5 and 6 digits (up to 131072)
# inside the tile, which the original never had to do.
_FONT_BY_DIGITS: Final = {1: 55.0, 2: 55.0, 3: 45.0, 4: 35.0, 5: 30.0, 6: 25.0}


def tile_colours(value: int) -> tuple[str, str]:
    """(background, text) colour of a tile; an empty cell (0) gets the empty colour."""
    if value == 0:
        return EMPTY, EMPTY
    background = TILE_BACKGROUNDS.get(value, SUPER_TILE)
    return background, DARK_TEXT if value <= 4 else LIGHT_TEXT


def tile_font_ratio(value: int) -> float:
    """Font size as a fraction of the tile side: big numbers shrink to stay inside."""
    digits = len(str(value))
    return _FONT_BY_DIGITS.get(digits, 25.0 * 6 / max(digits, 6)) / TILE_SIZE


def cell_origin(cell: int) -> tuple[float, float]:
    """Top-left corner of a cell (row-major index) in original pixels, board-relative."""
    row, col = divmod(cell, 4)
    return GAP + col * (TILE_SIZE + GAP), GAP + row * (TILE_SIZE + GAP)


def hex_rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` as an (r, g, b) tuple, for Pillow."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


# A right-pointing arrow in a unit box centred on (0, 0); rotated for the others.
_ARROW: Final = (
    (-0.40, -0.11),
    (0.06, -0.11),
    (0.06, -0.32),
    (0.42, 0.0),
    (0.06, 0.32),
    (0.06, 0.11),
    (-0.40, 0.11),
)
_ARROW_ANGLE: Final = {
    Direction.RIGHT: 0.0,
    Direction.DOWN: 90.0,
    Direction.LEFT: 180.0,
    Direction.UP: 270.0,
}


def arrow_points(
    direction: Direction, cx: float, cy: float, size: float
) -> list[tuple[float, float]]:
    """The move arrow as polygon points, drawn as a shape so no font needs arrow glyphs."""
    angle = math.radians(_ARROW_ANGLE[direction])
    cos, sin = math.cos(angle), math.sin(angle)
    return [(cx + size * (x * cos - y * sin), cy + size * (x * sin + y * cos)) for x, y in _ARROW]


def step_caption(step: int, total_moves: int) -> str:
    """The header text of a replay step: ``move k / N``."""
    return f"move {step} / {total_moves}"
