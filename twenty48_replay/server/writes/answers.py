"""The JSON answers of the game API, built from a game's live state.

Nothing here reveals more than a client may see: the server seed is in
:func:`public_view` only once the game is finished.
"""

from __future__ import annotations

from typing import Any

from twenty48_replay.core.board import Direction
from twenty48_replay.core.game import GameState, Spawn
from twenty48_replay.server.writes.live_games import Facts, GameEntry
from twenty48_replay.store.fair_games import FairRow, Projection

#: Rows of a board as the API sends them.
Rows = list[list[int]]


def board_rows(state: GameState) -> Rows:
    """The board as 4 rows of 4 integers."""
    return state.board.to_rows()  # new lists each time


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
    """The answer move ``n`` got, rebuilt (for a retried ``n``) from the nearest kept state."""
    assert entry.state is not None
    before = entry.state_at(n - 1)
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


def public_view(row: FairRow, game: Projection | None) -> dict[str, Any]:
    """What anyone may see of a game: never the server seed before it is finished.

    From the game's rows as they stand (``game``: its projection, None
    before the start): no log is read, nothing is replayed.
    """
    finished = row.finished_ms is not None
    view: dict[str, Any] = {
        "id": row.id,
        "player": row.player,
        "commitment": row.commitment,
        "started": game is not None,
        "finished": finished,
    }
    if game is not None:
        view.update(
            {
                "board": [list(r) for r in game.board.to_rows()],
                "score": game.score,
                "moves": game.moves,
                "max_tile": game.max_tile,
                "won": game.won,
                "over": game.over,
            }
        )
        view["client_seed"] = row.client_seed
    if finished:
        view["server_seed"] = row.server_seed
        view["record_url"] = record_url(row.id)
        view["abandoned"] = row.abandoned
    return view
