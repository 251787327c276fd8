"""10,000 random games: the fast engine agrees with the simple list-based one.

Random games are played by the fast engine's own transition (picking a
random direction among those that change the board), then replayed by
``engine.run`` (the verify path), the independent reference implementation
in tests/support/reference_impl.py, and for a tenth of them step by step through
``replay``.  Python's ``random`` only chooses the moves here; spawns come
from the specified RNG.
"""

from __future__ import annotations

import random

from support import reference_impl as ref

from twenty48_replay import Board, Record, replay
from twenty48_replay.core import rows
from twenty48_replay.core.engine import opening_state, run
from twenty48_replay.core.game import rng_for

GAMES = 10_000


def random_moves(seed: str, chooser: random.Random) -> str:
    """Play a random game to its end with the engine's transition."""
    letters: list[str] = []
    n = 0
    state = opening_state(seed)
    while True:
        options = []
        for letter, code in (("U", rows.UP), ("D", rows.DOWN), ("L", rows.LEFT), ("R", rows.RIGHT)):
            moved = rows.move_state(state, code)
            if moved & rows.BOARD_MASK != state & rows.BOARD_MASK:
                options.append((letter, moved))
        if not options:
            return "".join(letters)
        letter, moved = chooser.choice(options)
        letters.append(letter)
        n += 1
        # Spawn through the public RNG so this loop is independent of engine.run.
        empties = rows.empties_of_mask(moved >> rows.EMPTY_SHIFT & rows.EMPTY_MASK)
        cell, value = rng_for(seed).spawn(n + 1, empties)
        state = (moved & rows.STATE_MASK) + rows.SPAWN_ADD[value.bit_length() - 1][cell]


def test_ten_thousand_random_games_agree() -> None:
    chooser = random.Random(20261130)
    total_moves = 0
    for i in range(GAMES):
        seed = f"agree-{i}-{chooser.randrange(1 << 30):x}"
        moves = random_moves(seed, chooser)
        total_moves += len(moves)
        outcome = run(seed, moves)
        ref_steps, ref_null = ref.replay(seed, moves)
        assert ref_null is None, (seed, moves)
        last = ref_steps[-1]
        assert outcome.null_move is None
        assert outcome.moves == len(moves)
        assert outcome.score == last.score, seed
        assert Board(outcome.state & rows.BOARD_MASK).to_rows() == [list(r) for r in last.board]
        assert not ref.can_move([list(r) for r in last.board])  # played to the end
        # One more letter after game over is a null move, for both engines.
        assert run(seed, moves + "L").null_move == len(moves) + 1
        assert ref.replay(seed, moves + "L")[1] == len(moves) + 1
        if i % 10 == 0:
            mine = [(s.board.to_rows(), s.score, s.gained) for s in replay(Record(seed, moves, 0))]
            theirs = [([list(r) for r in s.board], s.score, s.gained) for s in ref_steps]
            assert mine == theirs, seed
    assert total_moves > GAMES * 50
