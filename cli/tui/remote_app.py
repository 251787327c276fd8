"""The play UI on a score server: the same screen, every move sent to the server first.

:class:`RemoteSession` looks like a stored game session to the game screen:
``play`` returns only once the server has committed the move (retried with
the same ``n`` over a dropped connection), and a move that changes nothing
is refused locally, as the local game does, without asking the server (the
client has the board).  Hints are off (a fair game is played unaided), ``n``
does not start a local game, and the screen shows the whole commitment the
server gave before the first move, so the player can compare it with the
record's at the end.

Every answer is checked before it is shown (:mod:`twenty48_replay.witness`):
when the server breaks a rule, sends an unusable answer or none within the
deadline, the UI closes at once and ``play --server`` reports it in one
line (exit 1 with the evidence kept, or exit 2).
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from twenty48_replay.board import Direction
from twenty48_replay.client import AnswerError, DeadlineError, MoveRefusedError, RemoteGame
from twenty48_replay.errors import NullMoveError, Twenty48Error
from twenty48_replay.game import MoveOutcome, Spawn
from twenty48_replay.i18n import N_, _
from twenty48_replay.store import Store
from twenty48_replay.text import printable
from twenty48_replay.witness import ServerAnswerError, UnfairServerError

from .play_app import GameScreen, PlayApp
from .screens import HelpScreen

#: What ends a fair game at once: the server broke a rule, or its answer cannot be used.
STOPPING = (UnfairServerError, ServerAnswerError, AnswerError, DeadlineError)

FAIR_HELP_TEXT = N_("""\
[b]Move[/b]    ← ↑ → ↓   or  a w d s   or  h k l j
[b]r[/b]       the rules of the game
[b]?[/b]       this help
[b]q[/b]       finish: the server ends the game, reveals its
        seed and signs the record, which is checked here
        and kept in your local games

A fair game: the server committed to a secret seed (the
commitment under the board) before your first move, and
every new tile comes from it one move at a time, so no one
knew the tiles in advance.  No hints (t) and no new game (n):
a fair game is played unaided, one per run.  Anyone can check
the record: [i]twenty48 verify --trust SERVER_URL record.json[/i].\
""")


class RemoteSession:
    """A fair game on a server: a :class:`~twenty48_cli.session.Session`, like a stored game's."""

    def __init__(self, game: RemoteGame) -> None:
        self.game = game
        self.id = game.id
        self.player: str | None = game.player
        self.state = game.state  # its seed is secret until the end: "" here
        #: Why the game stopped (a broken rule, an unusable answer); None while it goes on.
        self.stopped: Twenty48Error | None = None

    def play(self, direction: Direction, *, assisted: bool = False) -> MoveOutcome:
        """Send a move that changes the board; refuse one that does not, without a request."""
        board = self.game.state.board
        if direction not in board.valid_directions():
            raise NullMoveError(direction.letter, self.state.moves + 1, over=board.is_over())
        try:
            answer = self.game.play(direction.letter)
        except MoveRefusedError:
            raise NullMoveError(
                direction.letter, self.state.moves + 1, over=self.state.board.is_over()
            ) from None
        except STOPPING as exc:
            self.stopped = exc
            raise
        self.state = self.game.state
        spawn = answer["spawn"]
        return MoveOutcome(self.state, int(answer["gained"]), Spawn(spawn["cell"], spawn["value"]))

    def mark_assisted(self) -> None:  # pragma: no cover - hints are off on a server
        raise AssertionError("no hints in a fair game")


class RemoteGameScreen(GameScreen):
    """The game screen without hints or local new games; q finishes the fair game."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit_game", N_("Finish & sign"))]

    def __init__(self, store: Store, session: RemoteSession) -> None:
        super().__init__(store, session)
        self.remote = session

    def identity(self) -> str:
        """Which game, on which server, and the whole commitment (64 hex characters)."""
        game = self.remote.game
        where = _("fair game {id} on {url}").format(id=game.id, url=printable(game.client.url))
        if game.player:
            where += " · " + _("player {name}").format(name=printable(game.player))
        commitment = printable(game.commitment)  # checked as 64 hex on arrival; escaped anyway
        return where + "\n" + _("commitment {commitment}").format(commitment=commitment)

    def standing_note(self) -> str:
        if self.session.state.over:
            return _("game over: q finishes, reveals the server seed and signs the record")
        return ""

    def action_move(self, letter: str) -> None:
        """A move; when the server's answer stops the game, the UI closes at once."""
        session = self.remote
        if session.stopped is None:
            super().action_move(letter)
        if session.stopped is not None:
            self.app.exit(return_code=session.stopped.exit_code)

    def action_hint(self) -> None:
        self.set_status(_("no hints in a fair game"), notice=True)

    def action_new_game(self) -> None:
        self.set_status(_("one fair game per run: quit, then play --server again"), notice=True)

    def action_help(self) -> None:
        """What fair play means here, and what q does."""
        self.app.push_screen(HelpScreen(FAIR_HELP_TEXT, N_("twenty48 — a fair game")))


class RemotePlayApp(PlayApp):
    """``twenty48 play --server``."""

    def __init__(self, store: Store, session: RemoteSession) -> None:
        super().__init__(store, session)
        self.game_screen = RemoteGameScreen(store, session)


def run_remote_app(store: Store, session: RemoteSession) -> Any:
    """Run the UI until the player quits; returns the app."""
    app = RemotePlayApp(store, session)
    app.run()
    return app
