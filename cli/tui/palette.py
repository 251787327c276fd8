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
    "dark": _cube(0, 0, 0),  # 16, black: the bright tiles need it to reach 4.5:1
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
    # Few colours: black on every tile where white would read below 4.5:1 (WCAG AA).
    EIGHT_BIT: frozenset(set(map(str, VALUES)) - {"big"}),
    STANDARD: frozenset({"2", "4", "16", "64", "128", "256", "512", "1024"}),
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


#: The colours around the board (page, text, score boxes, key bar, dialogs, alerts),
#: by palette, as Textual CSS variables ``$t48-<name>``.  The original's are its
#: own; the few-colour ones are exact entries of the terminal's table, and every
#: text colour meets its background at a contrast ratio of at least 4.5 (WCAG AA,
#: checked by tests/cli/test_tui_contrast.py): the original's beige chrome collapses
#: to white on light grey in 16 colours.
CHROME: Final[dict[str, dict[str, str]]] = {
    TRUECOLOR: {
        "page": style.PAGE,
        "text": style.DARK_TEXT,
        "light": style.LIGHT_TEXT,
        "box": style.BOARD,
        "box-title": style.SCORE_LABEL,
        "box-note": style.DARK_TEXT,
        "bar": style.ACCENT,
        "bar-key": style.DARK_TEXT,
        "logo": style.TILE_BACKGROUNDS[2048],
        "alert": "#f65e3b",
        "invalid": "#c0392b",
        "gold": style.TILE_BACKGROUNDS[2048],
        "button": style.ACCENT,
        "button-focus": "#f65e3b",
        "button-hover": "#f59563",
        "input": style.LIGHT_TEXT,
    },
    EIGHT_BIT: {
        "page": _cube(5, 5, 4),  # 230, cream
        "text": "#585858",  # 240
        "light": _cube(5, 5, 5),  # 231
        "box": _cube(2, 1, 1),  # 95, brown
        "box-title": _cube(5, 5, 5),
        "box-note": _cube(5, 5, 3),  # 229
        "bar": _cube(2, 1, 0),  # 94
        "bar-key": "#585858",
        "logo": _cube(2, 1, 0),
        "alert": _cube(3, 0, 0),  # 124
        "invalid": _cube(3, 0, 0),
        "gold": _cube(2, 1, 0),
        "button": _cube(2, 1, 0),
        "button-focus": _cube(3, 0, 0),
        "button-hover": "#585858",
        "input": _cube(5, 5, 5),
    },
    STANDARD: {
        "page": "#ffffff",  # 15
        "text": "#555555",  # 8
        "light": "#ffffff",
        "box": "#555555",
        "box-title": "#ffffff",
        "box-note": "#ffff55",  # 11
        "bar": "#aa5500",  # 3, brown
        "bar-key": "#555555",
        "logo": "#5555ff",  # 12, as the 2048 tile
        "alert": "#aa0000",  # 1
        "invalid": "#aa0000",
        "gold": "#5555ff",
        "button": "#aa5500",
        "button-focus": "#aa0000",
        "button-hover": "#555555",
        "input": "#ffffff",
    },
}


def chrome_variables(name: str) -> dict[str, str]:
    """The CSS variables of palette ``name``'s chrome (see :data:`CHROME`)."""
    return {f"t48-{key}": value for key, value in CHROME[name].items()}
