"""The modal screens over the board: help, the rules, the win banner, game over, a conflict.

Each one is a :class:`ModalScreen`, so while it is up the game screen's
bindings do not apply: moves are ignored under the win banner, exactly as
the original does.  They report what the player chose by dismissing with a
:data:`Choice`; the game screen acts on it, so these screens never touch
the store.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from twenty48_replay.i18n import N_, _, ngettext, number

from .language import translate_bindings
from .widgets import BUTTON, DARK_TEXT, LIGHT_TEXT, PAGE_BACKGROUND

Choice = Literal["continue", "new", "quit", "close", "reload"]

HELP_TEXT = N_("""\
[b]Move[/b]    ← ↑ → ↓   or  a w d s   or  h k l j
[b]n[/b]       new game (this one stays saved)
[b]t[/b]       hint: the solver's move (marks the game assisted)
[b]r[/b]       the rules of the game
[b]?[/b]       this help
[b]q[/b]       quit (every move is saved as it is played)

Join equal tiles to make 2048.  A game is its seed plus
its moves, so anyone can replay and verify it:
[i]twenty48 show[/i], [i]twenty48 export[/i], [i]twenty48 verify[/i].\
""")

RULES_TEXT = N_("""\
[b]The board[/b]
Sixteen cells in a grid of four by four. A game opens with two tiles \
on the board, and every tile carries a power of two.

[b]Moving[/b]
Each move pushes all the tiles as far as they can go in one direction: \
up, down, left or right. A tile stops at the edge or against another tile.

[b]Merging[/b]
Two tiles with the same number that meet in a move merge into one tile \
holding their sum: two 2s make a 4, two 4s make an 8. A tile made by a \
merge does not merge again in the same move, so the row 2 2 2 2 moved left \
becomes 4 4. With three equal tiles in a line, the two nearest the edge \
you move towards merge first.

[b]New tiles[/b]
After every move that changes the board, a new tile appears on a random \
empty cell: a 2 nine times in ten, a 4 one time in ten. A move that \
changes nothing does not count and brings no new tile.

[b]Score[/b]
Every merge adds the number on the new tile to your score: merging two \
8s into a 16 earns 16 points.

[b]Winning[/b]
Make a tile of 2048 and you have won. You may keep playing for bigger \
tiles and a higher score.

[b]Game over[/b]
The game is over when the board is full and no two neighbouring tiles \
hold the same number: then no move can change the board.

[b]This version[/b]
The new tiles come from the game's seed, so a game is its seed plus its \
moves: anyone can replay it and check the score.\
""")


def dialog_css(name: str, width: int = 60) -> str:
    """The shared look of the dialogs (a centred card in the page colours)."""
    return f"""
    {name} {{
        align: center middle;
    }}
    {name} > Vertical {{
        width: {width};
        max-width: 100%;
        height: auto;
        max-height: 100%;
        overflow-y: auto;
        padding: 1 2;
        background: {PAGE_BACKGROUND};
        color: {DARK_TEXT};
        border: round {DARK_TEXT};
    }}
    {name} .title {{
        width: 100%;
        text-align: center;
        text-style: bold;
        margin-bottom: 1;
    }}
    {name} .body {{
        width: 100%;
        text-align: center;
    }}
    {name} Horizontal {{
        width: 100%;
        height: auto;
        align-horizontal: center;
        margin-top: 1;
    }}
    {name} Button.-style-default {{
        margin: 0 1;
        min-width: 16;
        background: {BUTTON};
        color: {LIGHT_TEXT};
        text-style: bold;
    }}
    {name} Button.-style-default:focus {{
        background: #f65e3b;
        text-style: bold;
    }}
    {name} Button.-style-default:hover {{
        background: #f59563;
    }}
    """


class HelpScreen(ModalScreen[Choice]):
    """The keys, and what the game stores; closes with escape, ? or q.

    ``text`` and ``heading`` default to the game's key list; the replay viewer
    passes its own, so both UIs share one card and one way to close it.
    """

    DEFAULT_CSS = dialog_css("HelpScreen", width=66)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Close")),
        Binding("question_mark", "close", N_("Close"), show=False),
        Binding("q", "close", N_("Close"), show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("pagedown", "scroll(5)", show=False),
        Binding("pageup", "scroll(-5)", show=False),
    ]

    def __init__(self, text: str = HELP_TEXT, heading: str = N_("twenty48 — keys")) -> None:
        """``text`` and ``heading`` are English; they are shown in the chosen language."""
        super().__init__()
        translate_bindings(self)
        self.text = _(text)
        self.heading = _(heading)

    def compose(self) -> ComposeResult:
        """A card with the key list."""
        with Vertical(id="help"):
            yield Static(self.heading, classes="title")
            yield Static(self.text, id="help-text")
            yield Static(_("[dim]escape, ? or q closes this[/dim]"), classes="body")

    def action_scroll(self, lines: int) -> None:
        """Arrow keys scroll the card when the terminal is too small for it (40x15)."""
        self.query_one("#help").scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss("close")


class RulesScreen(ModalScreen[Choice]):
    """The whole rules of the game in the chosen language; scrolls on a small terminal."""

    DEFAULT_CSS = (
        dialog_css("RulesScreen", width=72)
        + """
    RulesScreen > Vertical {
        height: 100%;
        max-height: 40;
    }
    RulesScreen VerticalScroll {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Close")),
        Binding("r", "close", N_("Close"), show=False),
        Binding("q", "close", N_("Close"), show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self)

    def compose(self) -> ComposeResult:
        """Title, the rules (scrolling), how to close."""
        with Vertical(id="rules"):
            yield Static(_("The rules of 2048"), classes="title")
            with VerticalScroll(id="rules-scroll"):
                yield Static(_(RULES_TEXT), id="rules-text")
            yield Static(_("[dim]↑ ↓ scroll · escape, r or q closes this[/dim]"), classes="body")

    def on_mount(self) -> None:
        """The text has the focus, so the arrow keys scroll it."""
        self.query_one("#rules-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss("close")


class WinScreen(ModalScreen[Choice]):
    """The banner for the first 2048 of a game: keep going, or start again."""

    DEFAULT_CSS = (
        dialog_css("WinScreen")
        + f"""
    WinScreen > Vertical {{
        background: #edc22e;
        color: {LIGHT_TEXT};
        border: round {LIGHT_TEXT};
    }}
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "choose('continue')", N_("Continue")),
        Binding("n", "choose('new')", N_("New game")),
        Binding("q", "choose('quit')", N_("Quit")),
    ]

    def __init__(self, score: int, moves: int) -> None:
        super().__init__()
        translate_bindings(self)
        self.score = score
        self.moves = moves

    def compose(self) -> ComposeResult:
        """Banner text and the two choices (Continue has the focus, so enter keeps going)."""
        with Vertical(id="win"):
            yield Static(_("You win!"), classes="title")
            yield Static(
                _("2048 reached in {moves} moves, score {score}.").format(
                    moves=number(self.moves), score=number(self.score)
                ),
                id="win-text",
                classes="body",
            )
            with Horizontal():
                yield Button(_("Continue (c)"), id="continue", compact=True)
                yield Button(_("New game (n)"), id="new", compact=True)

    def on_mount(self) -> None:
        """Focus Continue, so enter keeps playing as in the original."""
        self.query_one("#continue", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button is the same choice as its key."""
        self.dismiss("new" if event.button.id == "new" else "continue")

    def action_choose(self, choice: Choice) -> None:
        """Close the banner with the player's choice."""
        self.dismiss(choice)


class GameOverScreen(ModalScreen[Choice]):
    """The end of a game: final and best score, then a new game or quit.

    Escape closes it to look at the final board; the game screen keeps
    refusing moves and ``n`` still starts a new game.
    """

    DEFAULT_CSS = dialog_css("GameOverScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", N_("New game")),
        Binding("q", "choose('quit')", N_("Quit")),
        Binding("escape", "choose('close')", N_("Look at the board")),
    ]

    def __init__(self, score: int, best: int, moves: int, max_tile: int) -> None:
        super().__init__()
        translate_bindings(self)
        self.score = score
        self.best = best
        self.moves = moves
        self.max_tile = max_tile

    def compose(self) -> ComposeResult:
        """The final numbers and the choices."""
        new_best = self.score >= self.best and self.score > 0
        record = "  " + _("[b]A new best![/b]") if new_best else ""
        with Vertical(id="over"):
            yield Static(_("Game over!"), classes="title")
            yield Static(
                _("Final score [b]{score}[/b]").format(score=number(self.score))
                + "\n"
                + _("Best score [b]{best}[/b]").format(best=number(self.best))
                + record
                + "\n"
                + ngettext(
                    "{moves} move, largest tile {tile}",
                    "{moves} moves, largest tile {tile}",
                    self.moves,
                ).format(moves=number(self.moves), tile=number(self.max_tile)),
                id="over-text",
                classes="body",
            )
            with Horizontal():
                yield Button(_("New game (n)"), id="new", compact=True)
                yield Button(_("Quit (q)"), id="quit", compact=True)
            yield Static(_("[dim]escape: look at the board[/dim]"), classes="body")

    def on_mount(self) -> None:
        """Focus New game, so enter starts one."""
        self.query_one("#new", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button is the same choice as its key."""
        self.dismiss("quit" if event.button.id == "quit" else "new")

    def action_choose(self, choice: Choice) -> None:
        """Close with the player's choice."""
        self.dismiss(choice)


class ConflictScreen(ModalScreen[Choice]):
    """Another process wrote to this game: say so; the game screen stops taking moves.

    Playing on would fork the log, and reloading silently would show tiles
    the player did not make; so the player chooses: reload the game as it is
    stored now (the other moves included), a new game, or quit.
    """

    DEFAULT_CSS = dialog_css("ConflictScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('reload')", N_("Reload")),
        Binding("n", "choose('new')", N_("New game")),
        Binding("q", "choose('quit')", N_("Quit")),
        Binding("escape", "choose('close')", N_("Close")),
    ]

    def __init__(self, message: str) -> None:
        super().__init__()
        translate_bindings(self)
        self.message = message

    def compose(self) -> ComposeResult:
        """The error and the choices (Reload has the focus)."""
        with Vertical(id="conflict"):
            yield Static(_("This game changed elsewhere"), classes="title")
            yield Static(self.message, id="conflict-text", classes="body", markup=False)
            with Horizontal():
                yield Button(_("Reload (r)"), id="reload", compact=True)
                yield Button(_("New game (n)"), id="new", compact=True)
                yield Button(_("Quit (q)"), id="quit", compact=True)

    def on_mount(self) -> None:
        """Focus Reload, so enter takes the game as it is stored."""
        self.query_one("#reload", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button is the same choice as its key."""
        choices: dict[str | None, Choice] = {"reload": "reload", "quit": "quit"}
        self.dismiss(choices.get(event.button.id, "new"))

    def action_choose(self, choice: Choice) -> None:
        """Close with the player's choice."""
        self.dismiss(choice)
