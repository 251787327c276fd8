"""What the game screen plays on: a local stored game or a fair game on a server.

:class:`twenty48_replay.store.GameSession` (every move committed to the
local store) and :class:`twenty48_cli.tui.remote_app.RemoteSession` (every move
sent to a score server) both satisfy :class:`Session`.
"""

from __future__ import annotations

from typing import Protocol

from twenty48_replay.core.board import Direction
from twenty48_replay.core.game import GameState, MoveOutcome


class Session(Protocol):
    """A game being played one move at a time, wherever its moves are kept."""

    @property
    def id(self) -> int:
        """The game's id where it is kept."""
        ...

    @property
    def state(self) -> GameState:
        """The game after its last move."""
        ...

    @property
    def player(self) -> str | None:
        """Whose game it is (None: no name)."""
        ...

    def play(self, direction: Direction, *, assisted: bool = False) -> MoveOutcome:
        """Play and keep one move (NullMoveError if it changes nothing)."""
        ...

    def mark_assisted(self) -> None:
        """Record that hints were used in this game."""
        ...
