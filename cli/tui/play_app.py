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
from textual.widgets import Footer, Static

from twenty48_replay.board import Board, Direction
from twenty48_replay.errors import ConflictError, NullMoveError, Twenty48Error
from twenty48_replay.store import GameSession, Store
from twenty48_replay.text import printable

from ..output import warn
from .screens import Choice, ConflictScreen, GameOverScreen, HelpScreen, WinScreen
from .widgets import (
    DARK_TEXT,
    LIGHT_TEXT,
    BoardView,
    ScoreBox,
    page_css,
)

#: How long "+16" stays next to the score.
GAINED_SECONDS = 1.5

ARROWS = {
    Direction.UP: "↑",
    Direction.DOWN: "↓",
    Direction.LEFT: "←",
    Direction.RIGHT: "→",
}

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


class GameScreen(Screen[None]):
    """The board, the score boxes and the game's identity; handles every game key.

    The bindings live on this screen rather than on the app so that a modal
    screen on top (win banner, game over, help) switches them all off.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move('U')", "Move", key_display="↑↓←→ wasd hjkl"),
        _move_binding("down", "D", "Move"),
        _move_binding("left", "L", "Move"),
        _move_binding("right", "R", "Move"),
        _move_binding("w", "U", "Up"),
        _move_binding("s", "D", "Down"),
        _move_binding("a", "L", "Left"),
        _move_binding("d", "R", "Right"),
        _move_binding("k", "U", "Up"),
        _move_binding("j", "D", "Down"),
        _move_binding("h", "L", "Left"),
        _move_binding("l", "R", "Right"),
        Binding("n", "new_game", "New game"),
        Binding("t", "hint", "Hint"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("q", "quit_game", "Quit"),
    ]

    DEFAULT_CSS = (
        page_css("GameScreen")
        + f"""
    GameScreen #top {{
        height: auto;
    }}
    GameScreen #logo {{
        width: 10;
        height: 3;
        margin-bottom: 1;
        content-align: center middle;
        text-style: bold;
        background: #edc22e;
        color: {LIGHT_TEXT};
    }}
    GameScreen #info {{
        margin-top: 1;
        color: {DARK_TEXT};
    }}
    GameScreen #status {{
        height: 1;
        text-style: bold;
        color: {DARK_TEXT};
    }}
    GameScreen #status.-notice {{
        color: #f65e3b;
    }}
    """
    )

    def __init__(self, store: Store, session: GameSession) -> None:
        super().__init__()
        self.store = store
        self.session = session
        self.best = 0
        #: Set after a ConflictError: this game takes no more moves here.
        self.locked = False
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
                    yield ScoreBox("SCORE", id="score")
                    yield ScoreBox("BEST", id="best")
                    yield ScoreBox("MOVES", id="moves")
            yield Static("", id="info", markup=False)
            yield Static("", id="status", markup=False)
        yield Footer()

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

    def _load(self, session: GameSession) -> None:
        """Switch to ``session``: redraw everything, forget per-game UI state."""
        self.session = session
        self.locked = False
        self.best = max(self.store.best_score(session.player), session.state.score)
        state = session.state
        self.board_view.show(state.board)
        self.query_one("#score", ScoreBox).show(state.score, "")
        self._refresh_side()
        self.query_one("#info", Static).update(self.identity())
        self.set_status(self.standing_note(), notice=state.over)

    def identity(self) -> str:
        """The line under the board that says which game this is."""
        session = self.session
        who = f" · player {printable(session.player)}" if session.player else ""
        return f"game {session.id} · seed {printable(session.state.seed)}{who}"

    def _refresh_side(self) -> None:
        """Best score and move count from the current state."""
        self.query_one("#best", ScoreBox).show(self.best)
        self.query_one("#moves", ScoreBox).show(self.session.state.moves)

    def standing_note(self) -> str:
        """What the status line says when there is no fresher message."""
        if self.locked:
            return "this game changed elsewhere: n new game, q quit"
        if self.session.state.over:
            return "game over: n new game, q quit"
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
            self.set_status(self.standing_note(), notice=True)
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
            self.notify(printable(str(exc)), title="Move not saved", severity="error", markup=False)
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
        if state.won and not before.won:
            self.app.push_screen(WinScreen(state.score, state.moves), self._after_win)
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
            GameOverScreen(state.score, self.best, state.moves, state.max_tile), self._choose
        )

    def _conflict(self, exc: ConflictError) -> None:
        """Stop taking moves for this game and tell the player why."""
        self.locked = True
        self.set_status(self.standing_note(), notice=True)
        self.app.push_screen(ConflictScreen(printable(str(exc))), self._choose)

    def _choose(self, choice: Choice | None) -> None:
        """Act on a dialog's choice; "continue" and "close" just return to the board."""
        if choice == "new":
            self.action_new_game()
        elif choice == "quit":
            self.action_quit_game()

    # ------------------------------------------------------------------ game keys

    def action_new_game(self) -> None:
        """Start and store a fresh game; the current one stays saved as it is."""
        previous = self.session
        try:
            session = self.store.new_game(None, player=previous.player)
        except Twenty48Error as exc:
            self.notify(printable(str(exc)), title="No new game", severity="error", markup=False)
            return
        self._load(session)
        if previous.state.moves and not previous.state.over:
            self.set_status(f"game {previous.id} is saved: twenty48 play --game {previous.id}")

    def action_quit_game(self) -> None:
        """Leave; nothing to save, every move is committed as it is played."""
        self.app.exit()

    def action_help(self) -> None:
        """The key list."""
        self.app.push_screen(HelpScreen())

    # ------------------------------------------------------------------ hints

    def action_hint(self) -> None:
        """Ask the solver for a move, in a thread so the keys keep working meanwhile."""
        state = self.session.state
        if self.locked or state.over:
            return
        self.set_status("hint: thinking…")
        self._compute_hint(self.session.id, state.moves, state.board)

    @work(thread=True, exclusive=True, group="hint")
    def _compute_hint(self, game_id: int, moves: int, board: Board) -> None:
        """Worker thread: import the solver if needed and search; report back to the UI."""
        try:
            best_move = load_solver()
        except HintsUnavailableError:
            self.app.call_from_thread(self._hint_ready, game_id, moves, None, "hints unavailable")
            return
        try:
            direction, _details = best_move(board)
        except Exception as exc:  # a solver bug must not take the game down
            self.app.call_from_thread(self._hint_ready, game_id, moves, None, f"hint failed: {exc}")
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
            self.set_status("hint: no move helps")
            return
        if game_id not in self.assisted:
            try:
                self.session.mark_assisted()
            except Twenty48Error as exc:
                self.notify(
                    printable(str(exc)), title="Hint not recorded", severity="error", markup=False
                )
                return
            self.assisted.add(game_id)
        self.set_status(
            f"hint: {ARROWS[direction]} {direction.name.lower()}  (game marked assisted)"
        )


class PlayApp(App[None]):
    """The ``twenty48 play`` application: one game screen over a store."""

    TITLE = "twenty48"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, store: Store, session: GameSession) -> None:
        super().__init__()
        self.store = store
        self.game_screen = GameScreen(store, session)

    @property
    def session(self) -> GameSession:
        """The game on the board now (changes with each new game)."""
        return self.game_screen.session

    def get_default_screen(self) -> Screen[Any]:
        """The game screen is the app's base screen."""
        return self.game_screen


def run_play_app(store: Store, session: GameSession) -> None:
    """Run the game UI until the player quits, then say where the game is."""
    app = PlayApp(store, session)
    app.run()
    last = app.session
    state = last.state
    end = "over" if state.over else f"continue with: twenty48 play --game {last.id}"
    warn(f"game {last.id}: score {state.score}, {state.moves} moves, saved; {end}")
    if app.return_code:
        raise typer.Exit(app.return_code)
