"""The play UI on a score server: the same screen, every move sent to the server first.

:class:`RemoteSession` looks like a stored game session to the game screen:
``play`` returns only once the server has committed the move (retried with
the same ``n`` over a dropped connection), and a move the rules refuse is a
:class:`NullMoveError` as it is locally.  Hints are off (a fair game is
played unaided) and ``n`` does not start a local game.
"""

from __future__ import annotations

from typing import Any

from twenty48_replay.board import Direction
from twenty48_replay.client import MoveRefusedError, RemoteGame
from twenty48_replay.errors import NullMoveError
from twenty48_replay.game import GameState, Spawn
from twenty48_replay.store import MoveOutcome, Store

from .play_app import GameScreen, PlayApp


class RemoteSession:
    """A fair game on a server, shaped like :class:`twenty48_replay.store.GameSession`."""

    def __init__(self, game: RemoteGame) -> None:
        self.game = game
        self.id = game.id
        self.player: str | None = game.player
        self.state = self._shown(game.state)

    def _shown(self, state: GameState) -> GameState:
        # The game seed is secret until the end; the screen shows the commitment instead.
        return GameState(
            f"fair, commitment {self.game.commitment[:16]}…", state.board, state.score, state.moves
        )

    def play(self, direction: Direction, *, assisted: bool = False) -> MoveOutcome:
        try:
            answer = self.game.play(direction.letter)
        except MoveRefusedError:
            raise NullMoveError(
                direction.letter, self.state.moves + 1, over=self.state.board.is_over()
            ) from None
        self.state = self._shown(self.game.state)
        spawn = answer["spawn"]
        return MoveOutcome(self.state, int(answer["gained"]), Spawn(spawn["cell"], spawn["value"]))

    def mark_assisted(self) -> None:  # pragma: no cover - hints are off on a server
        raise AssertionError("no hints in a fair game")


class RemoteGameScreen(GameScreen):
    """The game screen without hints or local new games."""

    def action_hint(self) -> None:
        self.set_status("no hints in a fair game", notice=True)

    def action_new_game(self) -> None:
        self.set_status("one fair game per run: quit, then play --server again", notice=True)


class RemotePlayApp(PlayApp):
    """``twenty48 play --server``."""

    def __init__(self, store: Store, session: RemoteSession) -> None:
        super().__init__(store, session)  # type: ignore[arg-type]
        self.game_screen = RemoteGameScreen(store, session)  # type: ignore[arg-type]


def run_remote_app(store: Store, session: RemoteSession) -> Any:
    """Run the UI until the player quits; returns the app."""
    app = RemotePlayApp(store, session)
    app.run()
    return app
