"""``twenty48 play``: the game screen and the app around it.

Every key that moves calls :meth:`GameSession.play`, which commits the move
before it returns; the screen is redrawn only from the state it returns, so
what the player sees has always been saved already and quitting at any
moment loses nothing.  A move that changes nothing is ignored (the store
refuses it anyway), as the original ignores such a key.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, ClassVar

import typer
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.errors import ConflictError, NullMoveError, Twenty48Error
from twenty48_replay.core.i18n import N_, _, ngettext, number
from twenty48_replay.core.text import printable
from twenty48_replay.store import Store

from ..directions import ARROWS, NAMES
from ..output import warn
from ..session import Session
from .keybar import KeyBar, Shorter
from .language import translate_bindings
from .prose import Prose
from .screens import Choice, ConflictScreen, GameOverScreen, HelpScreen, RulesScreen, WinScreen
from .widgets import (
    COMPACT,
    BoardView,
    ChromeColours,
    Responsive,
    ScoreBox,
    page_css,
)

#: How long "+16" stays next to the score.
GAINED_SECONDS = 1.5

BestMove = Callable[[Board], tuple[Direction | None, dict[Direction, float]]]


class HintsUnavailableError(Exception):
    """The solver cannot be imported, or does not offer ``best_move``."""


def load_solver() -> BestMove:
    """``twenty48_replay.solver.best_move``, imported on first use.

    Imported lazily (and from the hint worker's thread) because the solver
    pulls in numpy, which the game itself never needs; a missing or
    incomplete solver only disables hints.
    """
    try:
        module = importlib.import_module("twenty48_replay.solver")
    except ImportError as exc:
        raise HintsUnavailableError(str(exc)) from exc
    best_move = getattr(module, "best_move", None)
    if not callable(best_move):
        raise HintsUnavailableError("the solver has no best_move")
    solver: BestMove = best_move
    return solver


def _move_binding(key: str, letter: str, description: str, *, show: bool = False) -> Binding:
    return Binding(key, f"move('{letter}')", description, show=show)


class GameScreen(Responsive, Screen[None]):
    """The board, the score boxes and the game's identity; handles every game key.

    The bindings live on this screen rather than on the app so that a modal
    screen on top (win banner, game over, help) switches them all off.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move('U')", N_("Move"), key_display="↑↓←→ wasd hjkl"),
        _move_binding("down", "D", N_("Move")),
        _move_binding("left", "L", N_("Move")),
        _move_binding("right", "R", N_("Move")),
        _move_binding("w", "U", N_("Up")),
        _move_binding("s", "D", N_("Down")),
        _move_binding("a", "L", N_("Left")),
        _move_binding("d", "R", N_("Right")),
        _move_binding("k", "U", N_("Up")),
        _move_binding("j", "D", N_("Down")),
        _move_binding("h", "L", N_("Left")),
        _move_binding("l", "R", N_("Right")),
        Binding("n", "new_game", N_("New game")),
        Binding("t", "hint", N_("Hint")),
        Binding("r", "rules", N_("Rules")),
        Binding("question_mark", "help", N_("Help"), key_display="?"),
        Binding("q", "quit_game", N_("Quit")),
    ]
    #: Whether the win banner and the game-over card offer a new game (a fair game: no).
    OFFERS_NEW_GAME: ClassVar[bool] = True
    #: The game-over card's button for q.
    QUIT_LABEL: ClassVar[str] = N_("Quit (q)")
    #: The key bar's shorter forms (see :mod:`.keybar`); the help card lists every key.
    KEY_BAR_SHORT: ClassVar[dict[str, Shorter]] = {
        "move('U')": Shorter(key="↑↓←→", keep=2),
        "quit_game": Shorter(keep=1),
    }

    DEFAULT_CSS = (
        page_css("GameScreen")
        + """
    GameScreen #top {
        height: auto;
    }
    GameScreen #logo {
        width: 10;
        height: 3;
        margin-bottom: 1;
        content-align: center middle;
        text-style: bold;
        background: $t48-logo;
        color: $t48-light;
    }
    GameScreen #info {
        margin-top: 1;
        color: $t48-text;
    }
    GameScreen.-medium #info {
        display: none;
    }
    GameScreen.-fair.-medium #info {
        display: block;
        margin-top: 0;
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    GameScreen.-medium #logo, GameScreen.-compact #logo {
        display: none;
    }
    GameScreen #side-info {
        display: none;
        height: auto;
        max-height: 5;
        margin-top: 1;
        color: $t48-text;
    }
    GameScreen.-medium #side-info, GameScreen.-compact #side-info {
        display: block;
    }
    GameScreen.-compact #side-info {
        max-height: 4;
    }
    GameScreen #status {
        height: auto;
        max-height: 2;
        text-style: bold;
        color: $t48-text;
    }
    GameScreen.-compact #status {
        max-height: 1;
    }
    GameScreen #status.-notice {
        color: $t48-alert;
    }
    """
    )

    def __init__(self, store: Store, session: Session) -> None:
        super().__init__()
        translate_bindings(self)
        self.store = store
        self.session = session
        self.best = 0
        #: Set after a ConflictError: this game takes no more moves here.
        self.locked = False
        #: The conflict's message, for the dialog when it is offered again.
        self.conflict = ""
        #: Games already marked as assisted in this run (mark once per game).
        self.assisted: set[int] = set()
        self._gained_timer: Timer | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        """Board on the left, score boxes on the right, identity and status below."""
        with Vertical(id="page"):
            with Horizontal(id="top"):
                yield BoardView(id="board")
                with Vertical(id="side"):
                    yield Static("2048", id="logo")
                    yield ScoreBox(_("SCORE"), id="score")
                    yield ScoreBox(_("BEST"), id="best")
                    yield ScoreBox(_("MOVES"), id="moves")
                    yield Prose([], id="side-info", markup=False)
            yield Static("", id="info", classes="roomy-only", markup=False)
            yield Static("", id="status", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        """Show the loaded game; a finished game opens on its game-over card."""
        self._load(self.session)
        if self.session.state.over:
            self._show_game_over()

    # ------------------------------------------------------------------ display

    @property
    def board_view(self) -> BoardView:
        """The board widget."""
        return self.query_one(BoardView)

    def _load(self, session: Session) -> None:
        """Switch to ``session``: redraw everything, forget per-game UI state."""
        self.session = session
        self.locked = False
        self.best = max(self.store.best_score(session.player), session.state.score)
        state = session.state
        self.board_view.show(state.board)
        self.query_one("#score", ScoreBox).show(state.score, "")
        self._refresh_side()
        self.query_one("#info", Static).update(self.identity())
        self._refresh_side_identity()
        self.set_status(self.standing_note(), notice=state.over)
        self.refresh_bindings()

    def identity(self) -> str:
        """The line under the board that says which game this is."""
        session = self.session
        line = _("game {id} · seed {seed}").format(
            id=session.id, seed=printable(session.state.seed)
        )
        if session.player:
            line += " · " + _("player {name}").format(name=printable(session.player))
        return line

    def side_identity(self) -> str:
        """What the side column says under the score boxes (medium and compact layouts).

        At 60 columns the line under the board would cut the seed or the
        name, so the identity wraps in the side column instead; at 40 the
        column is 10 cells wide and holds the game's number.
        """
        return self.short_identity() if self.has_class(COMPACT) else self.identity()

    def _refresh_side_identity(self) -> None:
        self.query_one("#side-info", Prose).set_blocks([self.side_identity()])

    def apply_layout(self, width: int, height: int) -> None:
        """Lay out for the size, then say in the side column what fits there."""
        super().apply_layout(width, height)
        if self.is_mounted:
            self._refresh_side_identity()
            if self.locked:  # its note has a shorter form for 40 columns
                self.set_status(self.standing_note())

    def short_identity(self) -> str:
        """The game's number, for the compact layout's side column."""
        return _("game {id}").format(id=self.session.id)

    def _refresh_side(self) -> None:
        """Best score and move count from the current state."""
        self.query_one("#best", ScoreBox).show(self.best)
        self.query_one("#moves", ScoreBox).show(self.session.state.moves)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """After game over a move or a hint would do nothing: their keys show as unavailable."""
        if action in ("move", "hint") and self.session.state.over:
            return None
        return True

    def standing_note(self) -> str:
        """What the status line says when there is no fresher message."""
        if self.locked:
            if self.has_class(COMPACT):  # 40 columns: the dialog a move key opens says the rest
                return _("changed elsewhere: press a move key")
            return _("this game changed elsewhere: press a move key for Reload / New game / Quit")
        if self.session.state.over:
            return _("game over: n new game, q quit")
        return ""

    def set_status(self, text: str, *, notice: bool = False) -> None:
        """One line under the board for hints and short messages."""
        status = self.query_one("#status", Static)
        status.update(printable(text))
        status.set_class(notice, "-notice")

    def _clear_gained(self) -> None:
        """Drop the "+16" after its moment."""
        self.query_one("#score", ScoreBox).show(self.session.state.score, "")

    # ------------------------------------------------------------------ moves

    def action_move(self, letter: str) -> None:
        """Play a direction: commit it, then show the new state (null moves do nothing)."""
        if self.locked:
            self._offer_choices()
            return
        before = self.session.state
        try:
            outcome = self.session.play(Direction(letter))
        except NullMoveError:
            return
        except ConflictError as exc:
            self._conflict(exc)
            return
        except Twenty48Error as exc:
            # The move was not stored (the store raised before committing), so
            # the game is unchanged; say why and let the player try again.
            self.notify(
                printable(exc.translated()),
                title=_("Move not saved"),
                severity="error",
                markup=False,
            )
            return
        state = outcome.state
        self.best = max(self.best, state.score)
        self.board_view.show(state.board, outcome.spawn.cell)
        self.query_one("#score", ScoreBox).show(
            state.score, f"+{outcome.gained}" if outcome.gained else ""
        )
        if self._gained_timer is not None:
            self._gained_timer.stop()
        self._gained_timer = (
            self.set_timer(GAINED_SECONDS, self._clear_gained) if outcome.gained else None
        )
        self._refresh_side()
        self.set_status(self.standing_note(), notice=state.over)
        self.refresh_bindings()
        if state.won and not before.won:
            self.app.push_screen(
                WinScreen(state.score, state.moves, new_game=self.OFFERS_NEW_GAME),
                self._after_win,
            )
        elif state.over:
            self._show_game_over()

    def _after_win(self, choice: Choice | None) -> None:
        """Continue (the game may also be over already), new game or quit."""
        if choice == "continue" and self.session.state.over:
            self._show_game_over()
        else:
            self._choose(choice)

    def _show_game_over(self) -> None:
        state = self.session.state
        self.app.push_screen(
            GameOverScreen(
                state.score,
                self.best,
                state.moves,
                state.max_tile,
                new_game=self.OFFERS_NEW_GAME,
                quit_label=self.QUIT_LABEL,
            ),
            self._choose,
        )

    def _conflict(self, exc: ConflictError) -> None:
        """Stop taking moves for this game and tell the player why."""
        self.locked = True
        self.conflict = self._conflict_text(exc)
        self.set_status(self.standing_note(), notice=True)
        self._offer_choices()

    def _conflict_text(self, exc: ConflictError) -> str:
        """One statement for the dialog: what the store has, what this screen shows.

        The store's own error ("expected to write move 3; reload it and try
        again") reads as a contradiction next to the dialog's choices, so the
        dialog says the two counts and the three ways on instead.
        """
        shown = self.session.state.moves
        if exc.actual is None:
            return _(
                "Game {id} was changed elsewhere; this screen shows {shown}. "
                "Reload it as stored, start a new game, or quit."
            ).format(id=exc.game_id, shown=number(shown))
        return ngettext(
            "Game {id} now has {stored} move in the store; this screen shows {shown}. "
            "Reload it as stored, start a new game, or quit.",
            "Game {id} now has {stored} moves in the store; this screen shows {shown}. "
            "Reload it as stored, start a new game, or quit.",
            exc.actual,
        ).format(id=exc.game_id, stored=number(exc.actual), shown=number(shown))

    def _offer_choices(self) -> None:
        """The conflict dialog (again, for a move key after it was closed)."""
        self.app.push_screen(ConflictScreen(self.conflict), self._choose)

    def _choose(self, choice: Choice | None) -> None:
        """Act on a dialog's choice; "continue" and "close" just return to the board."""
        if choice == "new":
            self.action_new_game()
        elif choice == "quit":
            self.action_quit_game()
        elif choice == "reload":
            self.reload()

    def reload(self) -> None:
        """Reopen this game as it is stored now: the other process's moves are in it.

        The reopened game goes through the store's checked read, like any
        resume; a game that has ended meanwhile opens on its game-over card.
        """
        try:
            session = self.store.open_game(self.session.id)
        except Twenty48Error as exc:
            self.notify(
                printable(exc.translated()), title=_("Not reloaded"), severity="error", markup=False
            )
            return
        self._load(session)
        self.set_status(
            ngettext(
                "reloaded game {id}: {moves} move as stored",
                "reloaded game {id}: {moves} moves as stored",
                session.state.moves,
            ).format(id=session.id, moves=number(session.state.moves))
        )
        if session.state.over:
            self._show_game_over()

    # ------------------------------------------------------------------ game keys

    def action_new_game(self) -> None:
        """Start and store a fresh game; the current one stays saved as it is."""
        previous = self.session
        try:
            session = self.store.new_game(None, player=previous.player)
        except Twenty48Error as exc:
            self.notify(
                printable(exc.translated()), title=_("No new game"), severity="error", markup=False
            )
            return
        self._load(session)
        if previous.state.moves and not previous.state.over:
            saved = (
                _("game {id} is saved: play --game {id}")  # 40 columns
                if self.has_class(COMPACT)
                else _("game {id} is saved: twenty48 play --game {id}")
            )
            self.set_status(saved.format(id=previous.id))

    def action_quit_game(self) -> None:
        """Leave; nothing to save, every move is committed as it is played."""
        self.app.exit()

    def action_help(self) -> None:
        """The key list."""
        self.app.push_screen(HelpScreen())

    def action_rules(self) -> None:
        """The rules of the game, in the chosen language."""
        self.app.push_screen(RulesScreen())

    # ------------------------------------------------------------------ hints

    def action_hint(self) -> None:
        """Ask the solver for a move, in a thread so the keys keep working meanwhile."""
        state = self.session.state
        if self.locked or state.over:
            return
        self.set_status(_("hint: thinking…"))
        self._compute_hint(self.session.id, state.moves, state.board)

    @work(thread=True, exclusive=True, group="hint")
    def _compute_hint(self, game_id: int, moves: int, board: Board) -> None:
        """Worker thread: import the solver if needed and search; report back to the UI."""
        try:
            best_move = load_solver()
        except HintsUnavailableError:
            self.app.call_from_thread(
                self._hint_ready, game_id, moves, None, _("hints unavailable")
            )
            return
        try:
            direction, _details = best_move(board)
        except Exception as exc:  # a solver bug must not take the game down
            failed = _("hint failed: {reason}").format(reason=exc)
            self.app.call_from_thread(self._hint_ready, game_id, moves, None, failed)
            return
        self.app.call_from_thread(self._hint_ready, game_id, moves, direction, None)

    def _hint_ready(
        self, game_id: int, moves: int, direction: Direction | None, error: str | None
    ) -> None:
        """Show a finished hint, unless the player has moved on since it was asked for."""
        if (game_id, moves) != (self.session.id, self.session.state.moves):
            return
        if error is not None:
            self.set_status(error, notice=True)
            return
        if direction is None:
            self.set_status(_("hint: no move helps"))
            return
        if game_id not in self.assisted:
            try:
                self.session.mark_assisted()
            except Twenty48Error as exc:
                self.notify(
                    printable(exc.translated()),
                    title=_("Hint not recorded"),
                    severity="error",
                    markup=False,
                )
                return
            self.assisted.add(game_id)
        self.set_status(
            _("hint: {arrow} {direction}  (game marked assisted)").format(
                arrow=ARROWS[direction.letter], direction=_(NAMES[direction.letter])
            )
        )


class PlayApp(ChromeColours, App[None]):
    """The ``twenty48 play`` application: one game screen over a store."""

    TITLE = "twenty48"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, store: Store, session: Session) -> None:
        super().__init__()
        translate_bindings(self)
        self.store = store
        self.game_screen = GameScreen(store, session)

    @property
    def session(self) -> Session:
        """The game on the board now (changes with each new game)."""
        return self.game_screen.session

    def get_default_screen(self) -> Screen[Any]:
        """The game screen is the app's base screen."""
        return self.game_screen


def quit_line(store: Store, last: Session) -> str:
    """What ``play`` says on leaving: the last game as it is stored, not as this screen had it.

    After a conflict the screen's copy is stale (another process added
    moves), so the game is read back; if that read fails the screen's copy
    is all there is, and the line says so.
    """
    note = ""
    stored: Session
    try:
        stored = store.open_game(last.id)
    except Twenty48Error:
        stored, note = last, _(" (as last shown; it could not be read back)")
    state = stored.state
    if state.over:
        end = _("over")
    else:
        end = _("continue with: twenty48 play --game {id}").format(id=last.id)
    line = ngettext(
        "game {id}: score {score}, {moves} move, saved{note}; {end}",
        "game {id}: score {score}, {moves} moves, saved{note}; {end}",
        state.moves,
    )
    return line.format(id=last.id, score=state.score, moves=state.moves, note=note, end=end)


def run_play_app(store: Store, session: Session) -> None:
    """Run the game UI until the player quits, then say where the game is."""
    app = PlayApp(store, session)
    app.run()
    warn(quit_line(store, app.session))
    if app.return_code:
        raise typer.Exit(app.return_code)
