"""The play UI on a score server: the same screen, every move sent to the server first.

:class:`RemoteSession` looks like a stored game session to the game screen:
``play`` returns only once the server has committed the move (retried with
the same ``n`` over a dropped connection), and a move that changes nothing
is refused locally, as the local game does, without asking the server (the
client has the board).  Hints are off (a fair game is played unaided), ``n``
does not start a local game, and the screen shows the whole commitment the
server gave before the first move, so the player can compare it with the
record's at the end.

Every answer is checked before it is shown (:mod:`twenty48_replay.fairplay.witness`):
when the server breaks a rule, sends an unusable answer or none within the
deadline, the UI closes at once and ``play --server`` reports it in one
line (exit 1 with the evidence kept, or exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.markup import escape

from twenty48_replay.core.board import Direction
from twenty48_replay.core.errors import NullMoveError, Twenty48Error
from twenty48_replay.core.game import MoveOutcome, Spawn
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.text import printable
from twenty48_replay.fairplay.client import (
    AnswerError,
    DeadlineError,
    MoveRefusedError,
    RemoteGame,
    UnreachableError,
)
from twenty48_replay.fairplay.witness import ServerAnswerError, UnfairServerError
from twenty48_replay.store import Store

from .keybar import Shorter
from .play_app import GameScreen, PlayApp
from .prose import Block
from .screens import MOVE_KEYS, ConfirmEndScreen, HelpCard, HelpScreen
from .widgets import COMPACT

#: What ends a fair game at once: the server broke a rule, or its answer cannot be used.
STOPPING = (UnfairServerError, ServerAnswerError, AnswerError, DeadlineError)


def waiting_note() -> str:
    """The status line while a move waits for a server that does not answer."""
    return _("waiting for the server… retrying")


FAIR_HELP = HelpCard(
    heading=N_("twenty48 — a fair game"),
    keys=(
        (MOVE_KEYS, N_("move the tiles (also w\u00a0a\u00a0s\u00a0d, or h\u00a0j\u00a0k\u00a0l)")),
        ("r", N_("the rules of the game")),
        ("?", N_("this help")),
        (
            "q",
            N_(
                "finish: asks first; then the server ends the game, reveals its seed and "
                "signs the record, which is checked here and kept with your local games"
            ),
        ),
    ),
    notes=(
        N_(
            "A fair game: the server committed to a secret seed (the commitment under the "
            "board) before your first move, and every new tile comes from it one move at a "
            "time, so no one knew the tiles in advance."
        ),
        N_(
            "No hints (t): a hint is the solver's move, so a game played with hints would be "
            "the solver's game, not yours. No new game (n): one fair game per run."
        ),
        N_(
            "Anyone can check the record: "
            "[i]twenty48\u00a0verify\u00a0--trust\u00a0SERVER_URL\u00a0record.json[/i]."
        ),
    ),
)


@dataclass(frozen=True)
class FairHelpCard(HelpCard):
    """The fair game's help, ending with which game this is and its whole commitment.

    At 40 columns the game screen has no room for the server's URL or the
    64 hex characters of the commitment, and at 60 the URL line may end in
    an ellipsis; the help card always has room for both.
    """

    #: "fair game 108 on URL · player NAME", as text (markup escaped here).
    where: str = ""
    commitment: str = ""

    def blocks(self) -> list[Block]:
        """The card's text, then the game, its server and its commitment."""
        return [
            *super().blocks(),
            "",
            escape(self.where),
            _("This game's commitment, shown before your first move: {commitment}").format(
                commitment=escape(self.commitment)
            ),
        ]


class RemoteSession:
    """A fair game on a server: a :class:`~twenty48_cli.session.Session`, like a stored game's."""

    def __init__(self, game: RemoteGame) -> None:
        self.game = game
        self.id = game.id
        self.player: str | None = game.player
        self.state = game.state  # its seed is secret until the end: "" here
        #: Why the game stopped (a broken rule, an unusable answer); None while it goes on.
        self.stopped: Twenty48Error | None = None
        #: A move sent ahead of :meth:`play` (:meth:`prepare`): its direction, outcome or error.
        self._prepared: tuple[Direction, MoveOutcome | BaseException] | None = None

    def play(self, direction: Direction, *, assisted: bool = False) -> MoveOutcome:
        """Send a move that changes the board; refuse one that does not, without a request.

        A move :meth:`prepare` already sent is not sent again: its answer (or
        error) is used.
        """
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[0] == direction:
            if isinstance(prepared[1], BaseException):
                raise prepared[1]
            return prepared[1]
        return self._send(direction)

    def prepare(self, direction: Direction, *, retries: int | None = None) -> bool:
        """Send a move now (``retries``: at most so many times again), for :meth:`play` to use.

        True when no server answered (unreachable, or 503): the move was not
        played, and may be sent again.  Safe in a worker thread: it touches
        the game and the network only, never the screen.
        """
        client = self.game.client
        saved = client.retries
        if retries is not None:
            client.retries = retries
        try:
            self._prepared = (direction, self._send(direction))
        except UnreachableError as exc:
            if retries is not None and not isinstance(exc, DeadlineError):
                self._prepared = None
                return True
            self._prepared = (direction, exc)
        except Exception as exc:  # play() raises it, as it would have
            self._prepared = (direction, exc)
        finally:
            client.retries = saved
        return False

    def _send(self, direction: Direction) -> MoveOutcome:
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
    """The game screen without hints or local new games; q ends and signs the fair game.

    The key bar and the dialogs offer only what a fair game takes: no New
    game and no Hint (``n`` and ``t`` still say why, if pressed), and q asks
    before it ends the game, since its score then counts as it stands.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_game", show=False),
        Binding("t", "hint", show=False),
        Binding("q", "quit_game", N_("End and sign")),
    ]
    KEY_BAR_SHORT: ClassVar[dict[str, Shorter]] = {
        **GameScreen.KEY_BAR_SHORT,
        "quit_game": Shorter(label=N_("End"), keep=1),
    }
    OFFERS_NEW_GAME = False
    QUIT_LABEL = N_("End and sign (q)")

    def __init__(self, store: Store, session: RemoteSession) -> None:
        super().__init__(store, session)
        self.remote = session
        #: A move waits for a server that did not answer (sent again in the background).
        self.waiting = False
        self.add_class("-fair")  # the line under the board stays at 60 columns

    def side_identity(self) -> str:
        """At 60 columns the whole commitment wraps in the side column (64 hex characters)."""
        if self.has_class(COMPACT):
            return self.short_identity()
        return _("commitment {commitment}").format(
            commitment=printable(self.remote.game.commitment)
        )

    def where(self) -> str:
        """Which game, on which server, for whom."""
        game = self.remote.game
        where = _("fair game {id} on {url}").format(id=game.id, url=printable(game.client.url))
        if game.player:
            where += " · " + _("player {name}").format(name=printable(game.player))
        return where

    def identity(self) -> str:
        """Which game, on which server, and the whole commitment (64 hex characters)."""
        commitment = printable(self.remote.game.commitment)  # checked as 64 hex; escaped anyway
        return self.where() + "\n" + _("commitment {commitment}").format(commitment=commitment)

    def standing_note(self) -> str:
        if self.session.state.over:
            return _("game over: q finishes, reveals the server seed and signs the record")
        return ""

    def action_move(self, letter: str) -> None:
        """A move; when the server's answer stops the game, the UI closes at once.

        The move is sent once at once; when no server answers, the status
        line says so and the move is sent again in the background (the
        client's retries), keys waiting meanwhile, so the screen never
        freezes without a word.
        """
        session = self.remote
        if self.waiting:
            return
        direction = Direction(letter)
        board = session.game.state.board
        sendable = session.stopped is None and direction in board.valid_directions()
        if sendable and session.prepare(direction, retries=0):
            self.waiting = True
            self.set_status(waiting_note(), notice=True)
            self._send_again(direction)
            return
        self._apply(letter)

    def _apply(self, letter: str) -> None:
        session = self.remote
        if session.stopped is None:
            super().action_move(letter)
        if session.stopped is not None:
            self.app.exit(return_code=session.stopped.exit_code)

    @work(thread=True, exclusive=True, group="move")
    def _send_again(self, direction: Direction) -> None:
        self.remote.prepare(direction)  # the client's whole retry policy
        self.app.call_from_thread(self._answered, direction)

    def _answered(self, direction: Direction) -> None:
        self.waiting = False
        self._apply(direction.letter)

    def action_hint(self) -> None:
        self.set_status(_("no hints in a fair game"), notice=True)

    def action_new_game(self) -> None:
        self.set_status(_("one fair game per run: quit, then play --server again"), notice=True)

    def action_help(self) -> None:
        """What fair play means here, and what q does."""
        card = FairHelpCard(
            FAIR_HELP.heading,
            FAIR_HELP.keys,
            FAIR_HELP.notes,
            where=self.where(),
            commitment=printable(self.remote.game.commitment),
        )
        self.app.push_screen(HelpScreen(card))

    def action_quit_game(self) -> None:
        """End and sign: at once after game over, else only once the player says so."""
        state = self.session.state
        if state.over:
            self.app.exit()
            return
        self.app.push_screen(
            ConfirmEndScreen(self.session.id, state.score, state.moves), self._after_confirm
        )

    def _after_confirm(self, end: bool | None) -> None:
        if end:
            self.app.exit()


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
