"""A fair game's live state on the server: what the writer keeps of each game it serves.

:class:`GameEntry` is immutable: the writer derives the next entry from the
current one and keeps it only once the transaction that stored it has
committed, so a failed commit leaves the cache as it was.

An entry keeps, besides the current state, the state after every
:data:`CHECKPOINT_EVERY` moves, so that the answer to any move can be
rebuilt (a retried ``n``) by replaying fewer than that many moves, never
the whole game; and an entry that another process has moved past is
brought up to date by reading and playing only the moves it lacks.
"""

from __future__ import annotations

from typing import Final

import attrs
from sqlalchemy.engine import Connection

from twenty48_replay.core.board import Direction
from twenty48_replay.core.game import WIN_TILE, GameState
from twenty48_replay.core.record import Record, only_move_letters
from twenty48_replay.core.replay import final_state
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store.fair_games import FairRow

#: Moves between two kept states of a game.
CHECKPOINT_EVERY: Final = 64
#: What one kept state costs in memory, roughly (bytes; for the cache's bound).
CHECKPOINT_BYTES: Final = 200
#: What an entry costs besides its log and states (bytes).
ENTRY_BYTES: Final = 1000


@attrs.frozen(slots=True)
class GameEntry:
    """One fair game as the writer knows it.

    ``state`` is None until the game is started; ``letters`` is its log;
    ``finished`` means the record is signed and stored (no more moves).
    ``checkpoints[i]`` is the state after ``(i + 1) * CHECKPOINT_EVERY`` moves.
    """

    row: FairRow
    state: GameState | None
    letters: str
    finished: bool
    checkpoints: tuple[GameState, ...] = ()

    @property
    def fair_id(self) -> int:
        """The game's id in the API."""
        return self.row.id

    @property
    def moves(self) -> int:
        """Moves played so far."""
        return 0 if self.state is None else self.state.moves

    @property
    def abandoned(self) -> bool:
        """Finished by the server because nobody played it (never ranked)."""
        return self.row.abandoned

    @property
    def weight(self) -> int:
        """About how many bytes this entry holds (the cache's bound counts these)."""
        return ENTRY_BYTES + len(self.letters) + CHECKPOINT_BYTES * len(self.checkpoints)

    @property
    def complete(self) -> bool:
        """Whether every state due to be kept is kept (an entry built from rows has none)."""
        return len(self.checkpoints) == self.moves // CHECKPOINT_EVERY

    def with_checkpoints(self) -> GameEntry:
        """This entry with its kept states, from one replay of its log."""
        assert self.state is not None
        start = attrs.evolve(self, state=GameState.new(self.state.seed), letters="", checkpoints=())
        return _play_on(start, self.letters)

    def played(self, letter: str, after: GameState) -> GameEntry:
        """This entry after ``letter`` took the game to ``after`` (a state is kept if due)."""
        checkpoints = self.checkpoints
        if after.moves % CHECKPOINT_EVERY == 0 and self.complete:
            checkpoints = (*checkpoints, after)
        return attrs.evolve(
            self, state=after, letters=self.letters + letter, checkpoints=checkpoints
        )

    def state_at(self, moves: int) -> GameState:
        """The state after the first ``moves`` moves, from the nearest kept state before it."""
        assert self.state is not None
        assert 0 <= moves <= self.state.moves
        if moves == self.state.moves:
            return self.state
        kept = min(moves // CHECKPOINT_EVERY, len(self.checkpoints))
        state = self.checkpoints[kept - 1] if kept else GameState.new(self.state.seed)
        for letter in self.letters[state.moves : moves]:
            state = state.play(Direction(letter))[0]
        return state


def load_entry(
    connection: Connection, fair_id: int, known: GameEntry | None = None
) -> GameEntry | None:
    """Read a fair game (None if there is no such game).

    ``known``: an older entry of the same game; only the moves it lacks are
    read and played (the log only grows).  Otherwise the log is replayed
    once, keeping a state every :data:`CHECKPOINT_EVERY` moves.
    """
    row = fair_store.load(connection, fair_id)
    if row is None:
        return None
    finished = row.finished_ms is not None
    if row.game_id is None or row.client_seed is None:
        return GameEntry(row, None, "", finished=finished)
    if known is not None and known.state is not None and known.row.game_id == row.game_id:
        info, letters = fair_store.game_log_since(connection, row.game_id, known.moves)
        if info.move_count == known.moves + len(letters):
            entry = _play_on(attrs.evolve(known, row=row, finished=finished), letters)
            return entry
    info, letters = fair_store.game_log(connection, row.game_id)
    start = GameEntry(row, GameState.new(info.seed), "", finished=finished)
    return _play_on(start, letters)


def _play_on(entry: GameEntry, letters: str) -> GameEntry:
    """``entry`` after playing ``letters`` (moves from the log, so every one is valid)."""
    assert entry.state is not None
    state = entry.state
    checkpoints = list(entry.checkpoints)
    keep = entry.complete  # an entry without its kept states gets them all at once, later
    for letter in letters:
        state = state.play(Direction(letter))[0]
        if keep and state.moves % CHECKPOINT_EVERY == 0:
            checkpoints.append(state)
    return attrs.evolve(
        entry, state=state, letters=entry.letters + letters, checkpoints=tuple(checkpoints)
    )


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
        max_tile = state.max_tile
        return cls(max_tile, max_tile >= WIN_TILE, state.over)
