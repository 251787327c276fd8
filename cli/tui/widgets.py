"""The board and the score boxes of the game screen.

The widgets only display what they are given; the game screen owns the
session and decides what to show after each move.  Colours follow the
browser original, so a player who knows it recognises the tiles at once.
"""

from __future__ import annotations

from typing import Final

from textual import events
from textual.app import ComposeResult
from textual.containers import Grid
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from twenty48_replay.core.board import Board
from twenty48_replay.core.i18n import number as format_number
from twenty48_replay.pictures import style

from . import palette

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


#: The three layouts, as classes of the screen: see :func:`layout_for`.
WIDE: Final = "-wide"
MEDIUM: Final = "-medium"
COMPACT: Final = "-compact"
LAYOUTS: Final = (WIDE, MEDIUM, COMPACT)


def layout_for(width: int, height: int) -> str:
    """The layout that fits a terminal of ``width`` x ``height`` cells.

    Wide is the original's proportions (78 columns, 22 rows with the key
    bar); medium fits 60x20 with narrower tiles; compact fits 40x15 with
    two-row tiles and score boxes of one label line and one number line.
    """
    if width >= 78 and height >= 22:
        return WIDE
    if width >= 60 and height >= 20:
        return MEDIUM
    return COMPACT


class ChromeColours:
    """App mixin: the chrome's CSS variables (``$t48-page``, ...) for the terminal's depth.

    Rich converts every colour to the terminal's depth on output; the
    original's beige chrome does not survive that (white on light grey in 16
    colours), so each depth has colours of its own (:data:`.palette.CHROME`).
    """

    def get_css_variables(self) -> dict[str, str]:
        """Textual's variables plus ours, for this app's console."""
        variables: dict[str, str] = super().get_css_variables()  # type: ignore[misc]
        console = getattr(self, "console", None)
        name = palette.palette_name(console.color_system if console is not None else None)
        return {**variables, **palette.chrome_variables(name)}


class Responsive:
    """Mixin for a screen: keeps one of :data:`LAYOUTS` as its class, by its size.

    Textual's own breakpoints come in later versions than the one this
    project allows, and the choice needs both dimensions; a resize event is
    all it takes.
    """

    def apply_layout(self, width: int, height: int) -> None:
        """Set the layout class for a screen of this size."""
        chosen = layout_for(width, height)
        node: Widget = self  # type: ignore[assignment]
        for name in LAYOUTS:
            node.set_class(name == chosen, name)

    def on_resize(self, event: events.Resize) -> None:
        """Re-lay out when the terminal changes size (and once at the start)."""
        self.apply_layout(event.size.width, event.size.height)


def page_css(screen: str) -> str:
    """The CSS every full-screen view shares, for the screen class named ``screen``.

    The page colours, the page (78 columns wide, 60 medium, 40 compact), the
    side column of score boxes and the key bar in the original's button
    colour; the game and the replay viewer look like one program because
    they use this one definition.
    """
    return f"""
    {screen} {{
        background: $t48-page;
        color: $t48-text;
        align: center middle;
    }}
    {screen} #page {{
        width: 78;
        height: auto;
    }}
    {screen}.-medium #page {{
        width: 60;
    }}
    {screen}.-compact #page {{
        width: 40;
    }}
    {screen} #side {{
        width: 26;
        height: 17;
        margin-left: 2;
    }}
    {screen}.-medium #side {{
        width: 26;
        margin-left: 1;
    }}
    {screen}.-compact #side {{
        width: 10;
        height: 13;
        margin-left: 1;
    }}
    {screen} ScoreBox {{
        margin-bottom: 1;
    }}
    {screen}.-compact ScoreBox {{
        margin-bottom: 1;
    }}
    {screen}.-compact .roomy-only {{
        display: none;
    }}
    {screen} Footer {{
        background: $t48-bar;
    }}
    {screen} Footer FooterKey {{
        background: $t48-bar;
        color: $t48-light;
    }}
    {screen} Footer FooterKey .footer-key--key {{
        background: $t48-bar-key;
        color: $t48-light;
    }}
    {screen} Footer FooterKey .footer-key--description {{
        color: $t48-light;
    }}
    """


def tile_class(value: int) -> str:
    """The CSS class that colours a tile of this value (0 is an empty cell)."""
    if value == 0:
        return "tile-empty"
    if value in TILE_BACKGROUNDS:
        return f"tile-{value}"
    return "tile-big"


#: The class a board carries for each palette (none for the original's).
PALETTE_CLASSES: Final = {
    palette.TRUECOLOR: "",
    palette.EIGHT_BIT: "-c256",
    palette.STANDARD: "-c16",
}


def tile_css() -> str:
    """Tile and board colours for every palette, generated so they never drift apart.

    The original's colours are the default; a board with the class
    ``-c256`` or ``-c16`` (set from the terminal's colour depth) uses the
    palette made for that depth (:mod:`.palette`).
    """
    rules = []
    for name, cls in PALETTE_CLASSES.items():
        colours = palette.PALETTES[name]
        board = f"BoardView.{cls}" if cls else "BoardView"
        inner = f"{board} " if cls else ""
        rules.append(f"{board} {{ background: {colours['board']}; }}")
        rules.append(f"{inner}Tile.tile-empty {{ background: {colours['empty']}; }}")
        for key in (*map(str, palette.VALUES), "big"):
            number = palette.number_colour(name, key)
            rules.append(
                f"{inner}Tile.tile-{key} {{ background: {colours[key]}; color: {number}; }}"
            )
    return "\n".join(rules)


class Tile(Static):
    """One cell of the board: its number centred on the tile's colour.

    ``spawned`` marks the tile the RNG has just placed, the way the original
    makes a new tile pop in, so the player can see where it appeared.
    """

    #: Rules name the screen's layout class or the board's palette class
    #: before this type, so they must not be scoped to it.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    Tile {
        width: 10;
        height: 3;
        content-align: center middle;
        text-style: bold;
    }
    .-medium Tile {
        width: 7;
    }
    .-compact Tile {
        width: 6;
        height: 2;
    }
    Tile.-spawned {
        border: round #f65e3b;
    }
    .-compact Tile.-spawned {
        border: none;
        text-style: bold underline;
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

    #: Rules name the screen's layout class or the board's palette class
    #: before this type, so they must not be scoped to it.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    BoardView {
        grid-size: 4 4;
        grid-gutter: 1 2;
        grid-columns: 10;
        grid-rows: 3;
        width: 50;
        height: 17;
        padding: 1 2;
    }
    .-medium BoardView {
        grid-gutter: 1 1;
        grid-columns: 7;
        width: 33;
        padding: 1 1;
    }
    .-compact BoardView {
        grid-gutter: 1 1;
        grid-columns: 6;
        grid-rows: 2;
        width: 29;
        height: 13;
        padding: 1 1;
    }
    """

    def on_mount(self) -> None:
        """Colours for the terminal's depth (Rich's detection: COLORTERM, TERM)."""
        self.use_palette(palette.palette_name(self.app.console.color_system))

    def use_palette(self, name: str) -> None:
        """Show the tiles in palette ``name`` (see :mod:`.palette`)."""
        for palette_name, cls in PALETTE_CLASSES.items():
            if cls:
                self.set_class(palette_name == name, cls)

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

    #: Rules name the screen's layout class before this type, so they must
    #: not be scoped to it.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    ScoreBox {
        width: 100%;
        height: 3;
        border: round $t48-box;
        border-title-color: $t48-box-title;
        border-title-style: bold;
        background: $t48-box;
        color: $t48-light;
        text-style: bold;
        text-align: center;
        padding: 0 1;
    }
    .-compact ScoreBox {
        height: auto;
        max-height: 3;
        border: none;
        border-top: solid $t48-box;
        border-title-align: center;
        padding: 0;
    }
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
        number = Content(format_number(value))
        if self.extra:
            note = self.app.get_css_variables().get("t48-box-note", DARK_TEXT)
            number = Content.assemble(number, "  ", (self.extra, f"bold {note}"))
        self.update(number)

    def show_text(self, text: str) -> None:
        """Display ``text`` instead of a number (the replay viewer's move and spawn boxes).

        ``value`` and ``extra`` are left alone: they stay the last number shown.
        """
        self.update(Content(text))
