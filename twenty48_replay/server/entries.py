"""A fair game's live state on the server, and the JSON answers built from it.

:class:`GameEntry` is immutable: the writer derives the next entry from the
current one and keeps it only once the transaction that stored it has
committed, so a failed commit leaves the cache as it was.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import attrs
from sqlalchemy.engine import Connection

from twenty48_replay.board import Direction
from twenty48_replay.game import GameState, Spawn
from twenty48_replay.record import MOVE_LETTERS, Record
from twenty48_replay.replay import final_state
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store.fair_games import FairRow

#: Rows of a board as the API sends them.
Rows = list[list[int]]


def token_hash(token: str) -> str:
    """How a bearer token is stored: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented token with the stored hash."""
    return hmac.compare_digest(token_hash(token), stored_hash)


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
    if not MOVE_LETTERS.issuperset(letters):
        state = GameState.new(seed)
        for letter in letters:
            state = state.play(Direction(letter))[0]
        return state
    state, null_move = final_state(Record(seed, letters, 0))
    if null_move is not None:
        raise null_move
    return state


def board_rows(state: GameState) -> Rows:
    """The board as 4 rows of 4 integers."""
    return [list(row) for row in state.board.to_rows()]


@attrs.frozen(slots=True)
class Facts:
    """What a state's board implies, computed once (``over`` tries all four slides)."""

    max_tile: int
    won: bool
    over: bool

    @classmethod
    def of(cls, state: GameState) -> Facts:
        return cls(state.max_tile, state.won, state.over)


def state_answer(state: GameState, facts: Facts | None = None) -> dict[str, Any]:
    """Board, score, moves and flags of a state."""
    facts = facts or Facts.of(state)
    return {
        "board": board_rows(state),
        "score": state.score,
        "moves": state.moves,
        "max_tile": facts.max_tile,
        "won": facts.won,
        "over": facts.over,
    }


def move_answer(
    fair_id: int,
    letter: str,
    state: GameState,
    gained: int,
    spawn: Spawn,
    *,
    finished: bool,
    facts: Facts | None = None,
) -> dict[str, Any]:
    """The answer to move number ``state.moves``: the board after the move and its spawn."""
    answer = {
        "id": fair_id,
        "n": state.moves,
        "move": letter,
        **state_answer(state, facts),
        "gained": gained,
        "spawn": spawn.to_json(),
        "finished": finished,
    }
    if finished:
        answer["record_url"] = record_url(fair_id)
    return answer


def replayed_answer(entry: GameEntry, n: int) -> dict[str, Any]:
    """The answer move ``n`` got, rebuilt from the log (for a retried ``n``)."""
    assert entry.state is not None
    before = replay_to(entry.state.seed, entry.letters[: n - 1])
    letter = entry.letters[n - 1]
    after, gained, spawn = before.play(Direction(letter))
    facts = Facts.of(after)
    # The first answer said "finished" only if this move ended the game (game over
    # finishes it at once); a later /finish must not change the repeated answer.
    finished = entry.finished and n == entry.moves and facts.over
    return move_answer(entry.fair_id, letter, after, gained, spawn, finished=finished, facts=facts)


def record_url(fair_id: int) -> str:
    """Where a finished game's signed record is served."""
    return f"/api/games/{fair_id}/record"


def public_view(entry: GameEntry) -> dict[str, Any]:
    """What anyone may see of a game: never the server seed before it is finished."""
    row = entry.row
    view: dict[str, Any] = {
        "id": row.id,
        "player": row.player,
        "commitment": row.commitment,
        "started": entry.state is not None,
        "finished": entry.finished,
    }
    if entry.state is not None:
        view.update(state_answer(entry.state))
        view["client_seed"] = row.client_seed
    if entry.finished:
        view["server_seed"] = row.server_seed
        view["record_url"] = record_url(row.id)
    return view
