"""The board and the score boxes of the game screen.

The widgets only display what they are given; the game screen owns the
session and decides what to show after each move.  Colours follow the
browser original, so a player who knows it recognises the tiles at once.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Grid
from textual.content import Content
from textual.widgets import Static

from twenty48_replay.board import Board
from twenty48_replay.pictures import style

# The original's palette, from the one definition the pictures use too.
TILE_BACKGROUNDS = style.TILE_BACKGROUNDS  # tiles above 2048 share one dark colour
BIG_TILE_BACKGROUND = style.SUPER_TILE
DARK_TEXT = style.DARK_TEXT
LIGHT_TEXT = style.LIGHT_TEXT
BOARD_BACKGROUND = style.BOARD
EMPTY_CELL = style.EMPTY
PAGE_BACKGROUND = style.PAGE
#: The original's button colour (New Game), used for the key bar.
BUTTON = style.ACCENT


def page_css(screen: str) -> str:
    """The CSS every full-screen view shares, for the screen class named ``screen``.

    The page colours, the 78-column page, the side column of score boxes and
    the key bar in the original's button colour; the game and the replay
    viewer look like one program because they use this one definition.
    """
    return f"""
    {screen} {{
        background: {PAGE_BACKGROUND};
        color: {DARK_TEXT};
        align: center middle;
    }}
    {screen} #page {{
        width: 78;
        height: auto;
    }}
    {screen} #side {{
        width: 26;
        height: 17;
        margin-left: 2;
    }}
    {screen} ScoreBox {{
        margin-bottom: 1;
    }}
    {screen} Footer {{
        background: {BUTTON};
    }}
    {screen} Footer FooterKey {{
        background: {BUTTON};
        color: {LIGHT_TEXT};
    }}
    {screen} Footer FooterKey .footer-key--key {{
        background: {DARK_TEXT};
        color: {LIGHT_TEXT};
    }}
    {screen} Footer FooterKey .footer-key--description {{
        color: {LIGHT_TEXT};
    }}
    """


def tile_class(value: int) -> str:
    """The CSS class that colours a tile of this value (0 is an empty cell)."""
    if value == 0:
        return "tile-empty"
    if value in TILE_BACKGROUNDS:
        return f"tile-{value}"
    return "tile-big"


def tile_css() -> str:
    """One rule per tile class, generated from the palette so the two never drift apart."""
    rules = [f"Tile.tile-empty {{ background: {EMPTY_CELL}; }}"]
    for value, background in TILE_BACKGROUNDS.items():
        text = DARK_TEXT if value <= 4 else LIGHT_TEXT
        rules.append(f"Tile.tile-{value} {{ background: {background}; color: {text}; }}")
    rules.append(f"Tile.tile-big {{ background: {BIG_TILE_BACKGROUND}; color: {LIGHT_TEXT}; }}")
    return "\n".join(rules)


class Tile(Static):
    """One cell of the board: its number centred on the tile's colour.

    ``spawned`` marks the tile the RNG has just placed, the way the original
    makes a new tile pop in, so the player can see where it appeared.
    """

    DEFAULT_CSS = """
    Tile {
        width: 10;
        height: 3;
        content-align: center middle;
        text-style: bold;
    }
    Tile.-spawned {
        border: round #f65e3b;
    }
    """ + tile_css()

    def __init__(self, cell: int) -> None:
        super().__init__("", id=f"cell-{cell}", classes=tile_class(0))
        self.cell = cell
        self.value = 0
        self.spawned = False

    def show(self, value: int, *, spawned: bool = False) -> None:
        """Display ``value`` (0 = empty), marked as just spawned or not."""
        if value == self.value and spawned == self.spawned:
            return
        self.value = value
        self.spawned = spawned
        self.set_classes([tile_class(value), *(["-spawned"] if spawned else [])])
        self.update(str(value) if value else "")


class BoardView(Grid):
    """The 4x4 board on the original's brown background; 131072 still fits a tile."""

    DEFAULT_CSS = f"""
    BoardView {{
        grid-size: 4 4;
        grid-gutter: 1 2;
        grid-columns: 10;
        grid-rows: 3;
        width: 50;
        height: 17;
        padding: 1 2;
        background: {BOARD_BACKGROUND};
    }}
    """

    def compose(self) -> ComposeResult:
        """Sixteen tiles, row-major, so cell indices match the board's."""
        for cell in range(16):
            yield Tile(cell)

    def show(self, board: Board, spawned_cell: int | None = None) -> None:
        """Display ``board``, highlighting the cell of the last spawn if given."""
        for tile in self.query(Tile):
            tile.show(board[tile.cell], spawned=tile.cell == spawned_cell)

    def values(self) -> list[int]:
        """The values on display, row-major (what a player sees, for tests and checks)."""
        return [int(str(tile.content) or 0) for tile in self.query(Tile)]


class ScoreBox(Static):
    """A labelled number, like the original's SCORE and BEST boxes.

    ``extra`` is shown after the number in the accent colour; the score box
    uses it for the points of the last move ("+16"), cleared after a moment.
    """

    DEFAULT_CSS = f"""
    ScoreBox {{
        width: 100%;
        height: 3;
        border: round {BOARD_BACKGROUND};
        border-title-color: #eee4da;
        border-title-style: bold;
        background: {BOARD_BACKGROUND};
        color: {LIGHT_TEXT};
        text-style: bold;
        text-align: center;
        padding: 0 1;
    }}
    """

    def __init__(self, label: str, *, id: str) -> None:
        super().__init__("", id=id)
        self.border_title = label
        self.value = 0
        self.extra = ""

    def show(self, value: int, extra: str | None = None) -> None:
        """Display ``value``; ``extra`` replaces the note after it (None keeps it)."""
        self.value = value
        if extra is not None:
            self.extra = extra
        number = Content(f"{value:,}")
        if self.extra:
            number = Content.assemble(number, "  ", (self.extra, "bold #776e65"))
        self.update(number)

    def show_text(self, text: str) -> None:
        """Display ``text`` instead of a number (the replay viewer's move and spawn boxes).

        ``value`` and ``extra`` are left alone: they stay the last number shown.
        """
        self.update(Content(text))
