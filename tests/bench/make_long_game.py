"""Find a very long valid game (a test fixture), by a search that knows the spawns.

Usage: python tests/bench/make_long_game.py SEED MOVES OUT.json [--width 40]

Benchmarks need a real 20,000-move record (opening, replaying and jumping in
long games), and a game that long must build a 32768 tile.  The product's
solver plays fair (it never sees the seed); this generator does not have to:
knowing every future spawn, it runs a beam search over exact positions,
scored by the solver's row heuristic, which makes long games cheap to
find.  The result is an ordinary record that verifies like any other.
Nothing in the product imports this.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import cache
from pathlib import Path

from twenty48_replay import Record, verify
from twenty48_replay.core import rows
from twenty48_replay.core.engine import opening_state
from twenty48_replay.core.game import rng_for
from twenty48_replay.solver.tables import tables


@cache
def row_value(key: int) -> float:
    """The solver's heuristic (nneonneo/2048-ai's row table) of one engine row key.

    The engine packs a cell in 5 bits; the solver's table is indexed by the
    low 4 bits of the four cells, then their fifth bits at bits 16..19.
    """
    solver_key = 0
    for cell, exponent in enumerate(rows.unpack_row(key)):
        solver_key |= (exponent & 15) << (4 * cell) | (exponent >> 4) << (16 + cell)
    return float(tables().heur[solver_key])


def value(state: int) -> float:
    v = 0.0
    for half in (state, state >> 80):
        for line in range(4):
            v += row_value((half >> (20 * line)) & rows.ROW_MASK)
    return v


def beam_search(seed: str, moves: int, width: int) -> str:
    """The best line of ``moves`` moves found by a beam of ``width`` exact positions.

    Every position of a layer is extended by each valid direction (its spawn
    is known: spawn k = n + 2 depends only on the move number and the board),
    the children are deduplicated and the ``width`` best by heuristic kept.
    Dead ends simply drop out of the beam, so the line found survives as long
    as any position of the beam does.
    """
    rng = rng_for(seed)
    layer: list[tuple[float, int, int]] = [(0.0, opening_state(seed), -1)]
    history: list[list[tuple[int, int]]] = []  # per layer: (parent index, direction code)
    start = time.perf_counter()
    for n in range(moves):
        selector, four = rng.draw(n + 2)
        spawn_add = rows.SPAWN_ADD[2 if four else 1]
        children: dict[int, tuple[float, int, int]] = {}
        for index, (_, state, _) in enumerate(layer):
            for code in (rows.UP, rows.DOWN, rows.LEFT, rows.RIGHT):
                moved = rows.move_state(state, code)
                if not (moved ^ state) & rows.BOARD_MASK:
                    continue
                empties = rows.empties_of_mask(moved >> rows.EMPTY_SHIFT & rows.EMPTY_MASK)
                child = (moved & rows.STATE_MASK) + spawn_add[empties[selector % len(empties)]]
                if child not in children:
                    children[child] = (value(child), index, code)
        if not children:
            break
        best = sorted(children.items(), key=lambda kv: -kv[1][0])[:width]
        history.append([(index, code) for _, (_, index, code) in best])
        layer = [(v, child, index) for child, (v, index, _) in best]
        if (n + 1) % 1000 == 0:
            print(f"{n + 1} moves, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    letters = []
    position = 0  # the best position of the last layer
    for entries in reversed(history):
        parent, code = entries[position]
        letters.append("UDLR"[code])
        position = parent
    return "".join(reversed(letters))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("seed")
    parser.add_argument("moves", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--width", type=int, default=40)
    args = parser.parse_args()
    start = time.perf_counter()
    moves = beam_search(args.seed, args.moves, args.width)
    result = verify(Record(args.seed, moves, 0))
    record = Record(
        args.seed,
        moves,
        result.score,
        max_tile=result.max_tile,
        extra={
            "player": "fixture search (knows the spawns)",
            "notes": "tests/bench/make_long_game.py",
        },
    )
    assert verify(record).valid
    args.out.write_text(record.to_json() + "\n")
    print(
        f"{len(moves)} moves, score {result.score}, max tile {result.max_tile}, over "
        f"{result.over}, {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
