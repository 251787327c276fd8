"""Players for the bot-signal tests and benchmark: the solver as a bot, and stand-ins for people.

Every player plays a fair game through the real HTTP API (``Client`` and
``RemoteGame``), choosing each move from the board in the server's answer,
optionally waiting a human-like time between moves.  The stand-ins for
people are *not* people: ``random`` plays any valid move, ``greedy`` the
move that scores most now, ``corner`` the classic corner strategy a casual
player learns (down or left first, right next, up only when nothing else
moves).  They show that play unlike the solver's is not flagged; they say
nothing about a strong human who plays much like the solver.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.fairplay.client import Client, RemoteGame

#: A strategy: the move for a board (only called when some move is valid).
Strategy = Callable[[Board, random.Random], Direction]

#: Human-like time between moves: log-normal around this median (seconds) ...
DELAY_MEDIAN = 0.45
#: ... with this spread of the log (a person's times vary by a factor of ~2 either way) ...
DELAY_SIGMA = 0.5
#: ... and now and then a pause to think, of 1.5-5 s.
PAUSE_CHANCE = 0.05


def human_delay(rng: random.Random) -> float:
    """Seconds to wait before a move, drawn from a human-like distribution."""
    delay = DELAY_MEDIAN * math.exp(rng.gauss(0.0, DELAY_SIGMA))
    if rng.random() < PAUSE_CHANCE:
        delay += rng.uniform(1.5, 5.0)
    return delay


def solver_strategy(settings: Any) -> Strategy:
    """The project's solver with these ``SearchSettings`` (None: its default strength)."""
    from twenty48_replay.solver import best_move

    def choose(board: Board, _rng: random.Random) -> Direction:
        direction, _values = best_move(board, settings)
        assert direction is not None
        return direction

    return choose


def random_strategy(board: Board, rng: random.Random) -> Direction:
    return rng.choice(board.valid_directions())


def greedy_strategy(board: Board, rng: random.Random) -> Direction:
    gains = {d: board.slide(d).gained for d in board.valid_directions()}
    best = max(gains.values())
    return rng.choice([d for d, gained in gains.items() if gained == best])


def corner_strategy(board: Board, rng: random.Random) -> Direction:
    order = [Direction.DOWN, Direction.LEFT, Direction.RIGHT, Direction.UP]
    if rng.random() < 0.5:
        order[0], order[1] = order[1], order[0]
    valid = set(board.valid_directions())
    return next(d for d in order if d in valid)


HONEST: dict[str, Strategy] = {
    "random": random_strategy,
    "greedy": greedy_strategy,
    "corner": corner_strategy,
}


def play_remote(
    url: str,
    player: str,
    strategy: Strategy,
    *,
    moves: int,
    delays: bool,
    seed: str,
) -> dict[str, Any]:
    """Play one fair game of at most ``moves`` moves, then finish it; what happened.

    With ``delays`` every move is sent a human-like time after the previous
    answer arrived; the time the strategy spent choosing counts towards it,
    as a careful bot would do.
    """
    rng = random.Random(seed)
    client = Client(url, timeout=60)
    try:
        game = RemoteGame(client, player, client_seed=seed[:64] or None)
        thinking = 0.0
        while game.state.moves < moves and not game.finished:
            board = game.state.board
            if not board.valid_directions():
                break
            started = time.perf_counter()
            direction = strategy(board, rng)
            spent = time.perf_counter() - started
            thinking += spent
            if delays:
                time.sleep(max(0.0, human_delay(rng) - spent))
            game.play(direction.letter)
        game.finish()
        return {
            "id": game.id,
            "player": player,
            "moves": game.state.moves,
            "score": game.state.score,
            "thinking": thinking,
        }
    finally:
        client.close()
