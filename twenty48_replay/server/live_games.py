"""A fair game's live state on the server: what the writer keeps of each game it serves.

:class:`GameEntry` is immutable: the writer derives the next entry from the
current one and keeps it only once the transaction that stored it has
committed, so a failed commit leaves the cache as it was.
"""

from __future__ import annotations

import attrs
from sqlalchemy.engine import Connection

from twenty48_replay.board import Direction
from twenty48_replay.game import GameState
from twenty48_replay.record import Record, only_move_letters
from twenty48_replay.replay import final_state
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store.fair_games import FairRow


@attrs.frozen(slots=True)
class GameEntry:
    """One fair game as the writer knows it.

    ``state`` is None until the game is started; ``letters`` is its log;
    ``finished`` means the record is signed and stored (no more moves).
    """

    row: FairRow
    state: GameState | None
    letters: str
    finished: bool

    @property
    def fair_id(self) -> int:
        """The game's id in the API."""
        return self.row.id

    @property
    def moves(self) -> int:
        """Moves played so far."""
        return 0 if self.state is None else self.state.moves


def load_entry(connection: Connection, fair_id: int) -> GameEntry | None:
    """Read a fair game and replay its log (None if there is no such game)."""
    row = fair_store.load(connection, fair_id)
    if row is None:
        return None
    if row.game_id is None or row.client_seed is None:
        return GameEntry(row, None, "", finished=row.finished_ms is not None)
    info, letters = fair_store.game_log(connection, row.game_id)
    state = replay_to(info.seed, letters)
    return GameEntry(row, state, letters, finished=row.finished_ms is not None)


def replay_to(seed: str, letters: str) -> GameState:
    """The state after playing ``letters`` from the opening of ``seed``.

    One engine call (native where built), raising what playing the letters one
    by one raises: the :class:`NullMoveError` of the first move that changes
    nothing, and for a letter outside U, D, L, R the same ValueError.
    """
    if not only_move_letters(letters):
        state = GameState.new(seed)
        for letter in letters:
            state = state.play(Direction(letter))[0]
        return state
    state, null_move = final_state(Record(seed, letters, 0))
    if null_move is not None:
        raise null_move
    return state


@attrs.frozen(slots=True)
class Facts:
    """What a state's board implies, computed once (``over`` tries all four slides)."""

    max_tile: int
    won: bool
    over: bool

    @classmethod
    def of(cls, state: GameState) -> Facts:
        return cls(state.max_tile, state.won, state.over)
