"""The modal screens over the board: help, the win banner, game over, a conflict.

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
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from .widgets import BUTTON, DARK_TEXT, LIGHT_TEXT, PAGE_BACKGROUND

Choice = Literal["continue", "new", "quit", "close", "reload"]

HELP_TEXT = """\
[b]Move[/b]    ← ↑ → ↓   or  a w d s   or  h k l j
[b]n[/b]       new game (this one stays saved)
[b]t[/b]       hint: the solver's move (marks the game assisted)
[b]?[/b]       this help
[b]q[/b]       quit (every move is saved as it is played)

Join equal tiles to make 2048.  A game is its seed plus
its moves, so anyone can replay and verify it:
[i]twenty48 show[/i], [i]twenty48 export[/i], [i]twenty48 verify[/i].\
"""


def dialog_css(name: str, width: int = 60) -> str:
    """The shared look of the dialogs (a centred card in the page colours)."""
    return f"""
    {name} {{
        align: center middle;
    }}
    {name} > Vertical {{
        width: {width};
        height: auto;
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
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, text: str = HELP_TEXT, heading: str = "twenty48 — keys") -> None:
        super().__init__()
        self.text = text
        self.heading = heading

    def compose(self) -> ComposeResult:
        """A card with the key list."""
        with Vertical(id="help"):
            yield Static(self.heading, classes="title")
            yield Static(self.text, id="help-text")
            yield Static("[dim]escape, ? or q closes this[/dim]", classes="body")

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
        Binding("c", "choose('continue')", "Continue"),
        Binding("n", "choose('new')", "New game"),
        Binding("q", "choose('quit')", "Quit"),
    ]

    def __init__(self, score: int, moves: int) -> None:
        super().__init__()
        self.score = score
        self.moves = moves

    def compose(self) -> ComposeResult:
        """Banner text and the two choices (Continue has the focus, so enter keeps going)."""
        with Vertical(id="win"):
            yield Static("You win!", classes="title")
            yield Static(
                f"2048 reached in {self.moves:,} moves, score {self.score:,}.",
                id="win-text",
                classes="body",
            )
            with Horizontal():
                yield Button("Continue (c)", id="continue", compact=True)
                yield Button("New game (n)", id="new", compact=True)

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
        Binding("n", "choose('new')", "New game"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("escape", "choose('close')", "Look at the board"),
    ]

    def __init__(self, score: int, best: int, moves: int, max_tile: int) -> None:
        super().__init__()
        self.score = score
        self.best = best
        self.moves = moves
        self.max_tile = max_tile

    def compose(self) -> ComposeResult:
        """The final numbers and the choices."""
        record = "  [b]A new best![/b]" if self.score >= self.best and self.score > 0 else ""
        with Vertical(id="over"):
            yield Static("Game over!", classes="title")
            yield Static(
                f"Final score [b]{self.score:,}[/b]\n"
                f"Best score [b]{self.best:,}[/b]{record}\n"
                f"{self.moves:,} moves, largest tile {self.max_tile:,}",
                id="over-text",
                classes="body",
            )
            with Horizontal():
                yield Button("New game (n)", id="new", compact=True)
                yield Button("Quit (q)", id="quit", compact=True)
            yield Static("[dim]escape: look at the board[/dim]", classes="body")

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
        Binding("r", "choose('reload')", "Reload"),
        Binding("n", "choose('new')", "New game"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("escape", "choose('close')", "Close"),
    ]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        """The error and the choices (Reload has the focus)."""
        with Vertical(id="conflict"):
            yield Static("This game changed elsewhere", classes="title")
            yield Static(self.message, id="conflict-text", classes="body", markup=False)
            yield Static(
                "No more moves can be saved to it from this board. Reload it as "
                "stored now, start a new game, or quit.",
                classes="body",
            )
            with Horizontal():
                yield Button("Reload (r)", id="reload", compact=True)
                yield Button("New game (n)", id="new", compact=True)
                yield Button("Quit (q)", id="quit", compact=True)

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
