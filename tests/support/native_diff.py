"""Differential cases for the native core: one random case, both engines, every field compared.

Used by the long fuzz run (``python tests/support/fuzz_records.py --native-seconds N``)
and, in quick form, by tests/core/test_native.py.  A case is drawn from a
``random.Random``: a seed of 1-128 code points from all of Unicode, a move
string (random letters up to 1,000,000, or a random whole game followed by
anything), a board of tiles up to 131072 with any start count, or a mutated
record file (tests/support/fuzzing.py).  Any difference raises AssertionError naming
what differed.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from support.fuzzing import mutant
from twenty48_replay import Board, Direction, GameState, Record, verify
from twenty48_replay.core import engine, rows
from twenty48_replay.core.errors import RecordError

MAX_EXPONENT_IN_GAMES = 17


def random_seed(rng: random.Random) -> str:
    """1-128 code points from all of Unicode but the surrogates, often only ASCII."""
    length = rng.randint(1, 128)
    if rng.random() < 0.3:
        return "".join(rng.choice("0123456789abcdef") for _ in range(length))
    points: list[int] = []
    while len(points) < length:
        point = rng.choice((rng.randint(0x20, 0x7E), rng.randint(0, 0x10FFFF)))
        if not 0xD800 <= point <= 0xDFFF:
            points.append(point)
    return "".join(map(chr, points))


def random_letters(rng: random.Random, most: int = 1_000_000) -> str:
    """Random letters, of a length spread over every order of magnitude up to ``most``."""
    length = int(10 ** rng.uniform(0, 6)) if most >= 1_000_000 else rng.randint(0, most)
    return "".join(rng.choices("UDLR", k=min(length, most)))


def whole_game(seed: str, rng: random.Random, limit: int = 3_000) -> str:
    """Random valid moves from the opening until game over (or ``limit``)."""
    state = GameState.new(seed)
    played: list[str] = []
    while len(played) < limit:
        choices = state.board.valid_directions()
        if not choices:
            break
        direction = rng.choice(choices)
        state = state.play(direction)[0]
        played.append(direction.letter)
    return "".join(played)


def random_board(rng: random.Random) -> Board:
    top = rng.randint(1, MAX_EXPONENT_IN_GAMES)
    empty = rng.random() * 0.6
    cells = [0 if rng.random() < empty else rng.randint(1, top) for _ in range(16)]
    return Board(sum(e << (5 * i) for i, e in enumerate(cells)))


def both(call: Callable[[], Any]) -> Any:
    """A call's value, or its exception's type and text."""
    try:
        value = call()
        return list(value) if hasattr(value, "__next__") else value
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def same(what: str, native: Any, python: Any) -> None:
    if native != python:
        raise AssertionError(f"{what}: native {native!r} != python {python!r}")


def python_verify(record: Record) -> Any:
    """verify() with engine.verdict bound to pure Python for the call."""
    saved = engine.verdict
    engine.verdict = engine.python_verdict
    try:
        return verify(record)
    finally:
        engine.verdict = saved


def check_case(rng: random.Random) -> str:
    """Draw one case, compare the engines on it; returns the kind of case."""
    kind = rng.choice(("letters", "game", "board", "record"))
    seed = random_seed(rng)
    if kind == "letters":
        moves = random_letters(rng)
        same(
            "run",
            both(lambda: engine.run(seed, moves)),
            both(lambda: engine.python_run(seed, moves)),
        )
        same(
            "verdict",
            both(lambda: engine.verdict(seed, moves)),
            both(lambda: engine.python_verdict(seed, moves)),
        )
    elif kind == "game":
        moves = whole_game(seed, rng) + random_letters(rng, most=50)
        same("run", engine.run(seed, moves), engine.python_run(seed, moves))
        same("steps", list(engine.steps(seed, moves)), list(engine.python_steps(seed, moves)))
        record = Record(seed, moves, engine.python_run(seed, moves).score + rng.choice((0, 0, 2)))
        same("verify", verify(record), python_verify(record))
    elif kind == "board":
        board = random_board(rng)
        start = rng.choice((0, rng.randint(0, 1_000_000)))
        moves = random_letters(rng, most=200)
        state = board.state()
        same(
            "run from a board",
            both(lambda: engine.run(seed, moves, state, start)),
            both(lambda: engine.python_run(seed, moves, state, start)),
        )
        same(
            "steps from a board",
            both(lambda: engine.steps(seed, moves, state, start)),
            both(lambda: engine.python_steps(seed, moves, state, start)),
        )
        game = GameState(seed, board, rng.randint(0, 10**6), start)
        for direction in Direction:
            same(
                f"play {direction.letter}",
                both(lambda d=direction: game.play(d)),  # type: ignore[misc]
                both(lambda d=direction: game._play_python(d)),  # type: ignore[misc]
            )
            python = rows.move_state(state, direction.code)
            slid = board.slide(direction)
            same(f"slide {direction.letter}", slid.board.packed, python & rows.BOARD_MASK)
            same(f"gained {direction.letter}", slid.gained, python >> rows.GAIN_SHIFT)
        same("is_over", board.is_over(), not board.valid_directions())
    else:
        data = mutant(rng)
        try:
            record = Record.from_json(data)
        except RecordError:
            return "unreadable record"
        same("verify", both(lambda: verify(record)), both(lambda: python_verify(record)))
    return kind


if __name__ == "__main__":  # python tests/support/native_diff.py N: N cases from seed 0
    for case in range(int(sys.argv[1]) if len(sys.argv) > 1 else 100):
        check_case(random.Random(case))
    print("ok")
