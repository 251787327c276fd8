"""The modal screens over the board: help, the rules, the win banner, game over, a conflict.

Each one is a :class:`ModalScreen`, so while it is up the game screen's
bindings do not apply: moves are ignored under the win banner, exactly as
the original does.  They report what the player chose by dismissing with a
:data:`Choice`; the game screen acts on it, so these screens never touch
the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, Protocol, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from twenty48_replay.core.i18n import N_, _, ngettext, number
from twenty48_replay.core.text import printable

from .language import translate_bindings
from .prose import Block, KeyRow, Prose

Choice = Literal["continue", "new", "quit", "close", "reload"]


@dataclass(frozen=True)
class HelpCard:
    """What a help card says: a heading, the keys with what each does, then notes.

    Every text is English, marked with ``N_``; the card translates it when shown.
    """

    heading: str
    keys: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()

    def blocks(self) -> list[Block]:
        """The card's text in the current language, as :class:`.prose.Prose` lays it out."""
        rows: list[Block] = [KeyRow(f"[b]{_(key)}[/b]", _(text)) for key, text in self.keys]
        for note in self.notes:
            rows += ["", _(note)]
        return rows


class Card(Protocol):
    """What a card over the screen shows: a heading (English) and its text blocks."""

    @property
    def heading(self) -> str: ...

    def blocks(self) -> list[Block]: ...


@dataclass(frozen=True)
class ReasonsCard:
    """Why a record is invalid: each reason a paragraph of its own, as plain text."""

    reasons: tuple[str, ...] | list[str]
    heading: str = N_("Why this record is invalid")

    def blocks(self) -> list[Block]:
        """The reasons, escaped: record text is never markup."""
        rows: list[Block] = []
        for reason in self.reasons:
            rows += ["", escape(printable(reason))] if rows else [escape(printable(reason))]
        return rows


#: The play screen's keys: the same keys as its bindings, in the same order.
MOVE_KEYS = N_("← ↑ → ↓")
PLAY_HELP = HelpCard(
    heading=N_("twenty48 — keys"),
    keys=(
        (MOVE_KEYS, N_("move the tiles (also w\u00a0a\u00a0s\u00a0d, or h\u00a0j\u00a0k\u00a0l)")),
        ("n", N_("new game (this one stays saved)")),
        ("t", N_("hint: the solver's move (marks the game assisted)")),
        ("r", N_("the rules of the game")),
        ("?", N_("this help")),
        ("q", N_("quit (every move is saved as it is played)")),
    ),
    notes=(
        N_(
            "Join equal tiles to make 2048. A game is its seed plus its moves, so anyone "
            "can replay and verify it: [i]twenty48\u00a0show[/i], [i]twenty48\u00a0export[/i], "
            "[i]twenty48\u00a0verify[/i]."
        ),
    ),
)

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


ResultType = TypeVar("ResultType")


def undimmed(markup: str) -> str:
    """A hint line's text without its ``[dim]`` tags.

    The catalog keeps the tags, but dim text is drawn half way to its
    background, below a contrast of 4.5:1 in 16 and 256 colours; the hint
    lines are read at full contrast instead.
    """
    return markup.replace("[dim]", "").replace("[/dim]", "")


class Dialog(ModalScreen[ResultType]):
    """A card over the screen (:func:`dialog_css`); under 60 columns its buttons stack.

    Two buttons side by side need about 36 columns, more than a card has at 40.
    """

    def on_resize(self, event: events.Resize) -> None:
        """Narrow terminal: one button per row."""
        self.set_class(event.size.width < 60, "-narrow")


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
        background: $t48-page;
        color: $t48-text;
        border: round $t48-text;
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
    {name}.-narrow Horizontal {{
        layout: vertical;
    }}
    {name} Button.-style-default {{
        margin: 0 1;
        min-width: 16;
        background: $t48-button;
        color: $t48-light;
        text-style: bold;
    }}
    {name}.-narrow Button.-style-default {{
        margin: 0;
    }}
    {name} Button.-style-default:focus {{
        background: $t48-button-focus;
        text-style: bold;
    }}
    {name} Button.-style-default:hover {{
        background: $t48-button-hover;
    }}
    """


class HelpScreen(Dialog[Choice]):
    """The keys, and what the game stores; closes with escape, ? or q.

    ``card`` defaults to the game's keys; the replay viewer and a fair game
    pass their own, so every UI shares one card and one way to close it.
    """

    DEFAULT_CSS = (
        dialog_css("HelpScreen", width=66)
        + """
    HelpScreen #help {
        overflow-y: hidden;
    }
    HelpScreen #help-scroll {
        height: auto;
        scrollbar-size-vertical: 1;
    }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Close")),
        Binding("question_mark", "close", N_("Close"), show=False),
        Binding("q", "close", N_("Close"), show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("pagedown", "scroll(5)", show=False),
        Binding("pageup", "scroll(-5)", show=False),
    ]

    def __init__(self, card: Card = PLAY_HELP) -> None:
        super().__init__()
        translate_bindings(self)
        self.card = card
        self.heading = _(card.heading)

    def compose(self) -> ComposeResult:
        """A card with the key list, each description hanging under its first word."""
        with Vertical(id="help"):
            yield Static(self.heading, classes="title")
            with VerticalScroll(id="help-scroll"):
                yield Prose(self.card.blocks(), id="help-text")
            yield Prose([self.closing_line(scrolls=False)], classes="body", id="help-close")

    def closing_line(self, *, scrolls: bool) -> str:
        """How to close the card, and to scroll it when it is taller than the terminal.

        The reasons card says so in its own words: Danish names what closes
        ("lukker hjælpen"), and that card is not the help.
        """
        if isinstance(self.card, ReasonsCard):
            if scrolls:
                return undimmed(_("[dim]↑ ↓ scroll · escape, ? or q closes the list[/dim]"))
            return undimmed(_("[dim]escape, ? or q closes the list[/dim]"))
        if scrolls:
            return undimmed(_("[dim]↑ ↓ scroll · escape, ? or q closes this[/dim]"))
        return undimmed(_("[dim]escape, ? or q closes this[/dim]"))

    def on_resize(self, event: events.Resize) -> None:
        """Only the keys scroll: the title and the closing line stay on the card.

        The card's border, padding and title take 6 rows, the closing line
        one or two (it wraps at 40 columns).
        """
        super().on_resize(event)
        inner = max(min(event.size.width, 66) - 6, 1)
        closing = self.query_one("#help-close", Prose)
        rows = len(Prose([self.closing_line(scrolls=True)]).lines(inner))
        self.query_one("#help-scroll").styles.max_height = max(event.size.height - 6 - rows, 3)
        closing.refresh(layout=True)
        self.call_after_refresh(self._say_how_to_close)

    def _say_how_to_close(self) -> None:
        scrolls = self.query_one("#help-scroll").max_scroll_y > 0
        self.query_one("#help-close", Prose).set_blocks([self.closing_line(scrolls=scrolls)])

    def action_scroll(self, lines: int) -> None:
        """Arrow keys scroll the card when the terminal is too small for it (40x15)."""
        self.query_one("#help-scroll").scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss("close")


class RulesScreen(Dialog[Choice]):
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
                yield Prose([_(RULES_TEXT)], id="rules-text")
            yield Prose(
                [undimmed(_("[dim]↑ ↓ scroll · escape, r or q closes this[/dim]"))], classes="body"
            )

    def on_mount(self) -> None:
        """The text has the focus, so the arrow keys scroll it."""
        self.query_one("#rules-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss("close")


class WinScreen(Dialog[Choice]):
    """The banner for the first 2048 of a game: keep going, or start again."""

    DEFAULT_CSS = (
        dialog_css("WinScreen")
        + """
    WinScreen > Vertical {
        background: $t48-gold;
        color: $t48-light;
        border: round $t48-light;
    }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "choose('continue')", N_("Continue")),
        Binding("n", "choose('new')", N_("New game")),
        Binding("q", "choose('quit')", N_("Quit")),
    ]

    def __init__(self, score: int, moves: int, *, new_game: bool = True) -> None:
        """``new_game`` False (a fair game): no New game button, and ``n`` does nothing."""
        super().__init__()
        translate_bindings(self)
        self.score = score
        self.moves = moves
        self.new_game = new_game

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Without a new game to offer, ``n`` is not a key of this banner."""
        return self.new_game or parameters != ("new",)

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
                if self.new_game:
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


class GameOverScreen(Dialog[Choice]):
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

    def __init__(
        self,
        score: int,
        best: int,
        moves: int,
        max_tile: int,
        *,
        new_game: bool = True,
        quit_label: str = N_("Quit (q)"),
    ) -> None:
        """``new_game`` False (a fair game) offers no new game; ``quit_label`` names q's button."""
        super().__init__()
        translate_bindings(self)
        self.score = score
        self.best = best
        self.moves = moves
        self.max_tile = max_tile
        self.new_game = new_game
        self.quit_label = quit_label

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Without a new game to offer, ``n`` is not a key of this dialog."""
        return self.new_game or parameters != ("new",)

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
                if self.new_game:
                    yield Button(_("New game (n)"), id="new", compact=True)
                yield Button(_(self.quit_label), id="quit", compact=True)
            yield Static(undimmed(_("[dim]escape: look at the board[/dim]")), classes="body")

    def on_mount(self) -> None:
        """Focus New game, so enter starts one (in a fair game: the one way on)."""
        self.query_one("#new" if self.new_game else "#quit", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button is the same choice as its key."""
        self.dismiss("quit" if event.button.id == "quit" else "new")

    def action_choose(self, choice: Choice) -> None:
        """Close with the player's choice."""
        self.dismiss(choice)


class ConfirmEndScreen(Dialog[bool]):
    """Ask before a fair game is ended and signed: its score then counts as it stands.

    Dismisses with True to end it (q again, or the End button), False to
    keep playing (escape, or the Keep playing button, which has the focus).
    """

    DEFAULT_CSS = dialog_css("ConfirmEndScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "answer(True)", N_("End and sign")),
        Binding("escape", "answer(False)", N_("Keep playing")),
    ]

    def __init__(self, game_id: int | str, score: int, moves: int) -> None:
        super().__init__()
        translate_bindings(self)
        self.game_id = game_id
        self.score = score
        self.moves = moves

    def question(self) -> str:
        """The question, naming the game and what would count."""
        return _("End and sign game {id} now? Its score counts as it stands.").format(
            id=self.game_id
        )

    def compose(self) -> ComposeResult:
        """The question, the game as it stands, and the two answers (End has the focus)."""
        with Vertical(id="confirm"):
            yield Static(_("End the game?"), classes="title")
            yield Prose([self.question()], id="confirm-text", classes="body")
            yield Static(
                ngettext(
                    "score {score} after {moves} move",
                    "score {score} after {moves} moves",
                    self.moves,
                ).format(score=number(self.score), moves=number(self.moves)),
                classes="body",
                markup=False,
            )
            with Horizontal():
                yield Button(_("End and sign (q)"), id="end", compact=True)
                yield Button(_("Keep playing (escape)"), id="keep", compact=True)

    def on_mount(self) -> None:
        """Focus Keep playing: enter alone must not end a game by accident."""
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button is the same answer as its key."""
        self.dismiss(event.button.id == "end")

    def action_answer(self, end: bool) -> None:
        """Close with the answer."""
        self.dismiss(end)


class ConflictScreen(Dialog[Choice]):
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
