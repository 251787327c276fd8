"""Tile colours for each colour depth a terminal may have.

Textual draws in 24-bit colour and Rich converts every colour to the
terminal's depth on output (``TERM=screen`` or ``xterm``: 16 colours;
``*-256color``, as in tmux: 256).  The original's palette is a set of close
beiges, and that conversion collapses them: in 256 colours the 2 and the 4
become the same colour and an empty cell is one step from both; in 16
colours the empty cell takes the board's colour and the 2 and 4 the page's.
So a terminal that cannot show the original gets a palette of its own, each
colour an exact entry of the terminal's table (so the conversion keeps it),
chosen to keep every tile a player must tell apart distinct.
"""

from __future__ import annotations

from typing import Final

from twenty48_replay.pictures import style

#: Palette names, by Rich's name of a console's colour system.
TRUECOLOR: Final = "truecolor"
EIGHT_BIT: Final = "256"
STANDARD: Final = "standard"

#: Tile values that have a colour of their own; bigger ones share ``"big"``.
VALUES: Final = tuple(style.TILE_BACKGROUNDS)

Palette = dict[str, str]
"""Colour of ``"board"``, ``"empty"``, each tile value as text, ``"big"``,
and the numbers' colours ``"dark"`` and ``"light"``."""


def _original() -> Palette:
    colours = {str(value): colour for value, colour in style.TILE_BACKGROUNDS.items()}
    return {
        "board": style.BOARD,
        "empty": style.EMPTY,
        **colours,
        "big": style.SUPER_TILE,
        "dark": style.DARK_TEXT,
        "light": style.LIGHT_TEXT,
    }


def _cube(red: int, green: int, blue: int) -> str:
    """An entry of the xterm 6x6x6 colour cube (levels 0-5) as a hex colour."""
    levels = (0, 95, 135, 175, 215, 255)
    return f"#{levels[red]:02x}{levels[green]:02x}{levels[blue]:02x}"


#: 256 colours: the original's hues, each snapped to its own entry of the cube
#: (two tiles that rounded to one entry were moved to the next).  Rich sends
#: a grey (white, the empty cell, the big tile) to the grey ramp instead:
#: the numbers in the comments are what a terminal receives.
_EIGHT_BIT: Final[Palette] = {
    "board": _cube(3, 3, 2),  # 144, a khaki board
    "empty": _cube(4, 4, 4),  # 252, light grey: clearly not a 2 or a 4
    "2": _cube(5, 5, 5),  # 231, white
    "4": _cube(5, 5, 3),  # 229, pale yellow
    "8": _cube(5, 3, 2),  # 216
    "16": _cube(5, 2, 1),  # 209
    "32": _cube(5, 1, 1),  # 203
    "64": _cube(5, 1, 0),  # 202
    "128": _cube(5, 4, 2),  # 222
    "256": _cube(5, 4, 1),  # 221
    "512": _cube(5, 4, 0),  # 220
    "1024": _cube(5, 3, 0),  # 214
    "2048": _cube(4, 3, 0),  # 178
    "big": _cube(1, 1, 1),  # 240, dark grey
    "dark": _cube(1, 1, 1),
    "light": _cube(5, 5, 5),
}

#: 16 colours, as Rich's standard table has them: no two of board, empty, 2
#: and 4 share a colour, and the numbers are black or white, whichever reads.
_STANDARD: Final[Palette] = {
    "board": "#555555",  # 8, bright black
    "empty": "#aaaaaa",  # 7, white (light grey)
    "2": "#ffffff",  # 15, bright white
    "4": "#ffff55",  # 11, bright yellow
    "8": "#aa5500",  # 3, yellow (brown)
    "16": "#ff5555",  # 9, bright red
    "32": "#aa0000",  # 1, red
    "64": "#ff55ff",  # 13, bright magenta
    "128": "#55ffff",  # 14, bright cyan
    "256": "#00aaaa",  # 6, cyan
    "512": "#55ff55",  # 10, bright green
    "1024": "#00aa00",  # 2, green
    "2048": "#5555ff",  # 12, bright blue
    "big": "#000000",  # 0, black
    "dark": "#000000",
    "light": "#ffffff",
}

PALETTES: Final[dict[str, Palette]] = {
    TRUECOLOR: _original(),
    EIGHT_BIT: _EIGHT_BIT,
    STANDARD: _STANDARD,
}

#: Tiles whose number is drawn in the palette's dark colour (the rest: light).
_DARK_NUMBERS: Final[dict[str, frozenset[str]]] = {
    TRUECOLOR: frozenset({"2", "4"}),
    EIGHT_BIT: frozenset({"2", "4", "128", "256", "512"}),
    STANDARD: frozenset({"2", "4", "16", "64", "128", "512"}),
}


def palette_name(color_system: str | None) -> str:
    """The palette for a Rich colour system name (``"windows"`` has 16 colours too)."""
    if color_system == TRUECOLOR:
        return TRUECOLOR
    if color_system == EIGHT_BIT:
        return EIGHT_BIT
    return STANDARD if color_system in (STANDARD, "windows") else TRUECOLOR


def number_colour(name: str, key: str) -> str:
    """The colour of the number on tile ``key`` (a value as text, or ``"big"``)."""
    palette = PALETTES[name]
    return palette["dark"] if key in _DARK_NUMBERS[name] else palette["light"]
