"""Benchmark of the built-in solver: strength and speed on fixed seeds.

Run from the project root after installing:

    python tests/bench/bench_solver.py                  # bench-1 .. bench-20 until 16384
    python tests/bench/bench_solver.py --games 4 --target 4096

Games run in parallel (``--workers``, default 2: one per core of the CI
machine).  Every game is verified with :func:`twenty48_replay.verify`
after it is played.  It prints a row per game as it finishes, then how
often each tile was reached, the median speed and the wall time; it asserts
nothing (the goals are read, not tested).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from typing import NamedTuple

from twenty48_replay import Record, verify

TILES = (2048, 4096, 8192, 16384, 32768, 65536)


class GameResult(NamedTuple):
    seed: str
    score: int
    max_tile: int
    moves: int
    seconds: float
    valid: bool


def play_one(job: tuple[str, int | None, int | None]) -> GameResult:
    """Play and verify one seed (runs in a worker process)."""
    from twenty48_replay.solver import SearchSettings, play_game

    seed, target, max_nodes = job
    settings = SearchSettings() if max_nodes is None else SearchSettings(max_nodes=max_nodes)
    played = play_game(seed, target, settings=settings)
    result = verify(Record(seed, played.moves, played.state.score))
    return GameResult(
        seed,
        played.state.score,
        played.state.max_tile,
        len(played.moves),
        played.seconds,
        result.valid and result.max_tile == played.state.max_tile,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=20, help="play bench-1 .. bench-N")
    parser.add_argument("--first", type=int, default=1, help="start at bench-FIRST (resume a run)")
    parser.add_argument("--target", type=int, default=16384, help="stop a game at this tile")
    parser.add_argument("--workers", type=int, default=2, help="parallel games")
    parser.add_argument("--max-nodes", type=int, default=None, help="solver node budget")
    args = parser.parse_args(argv)

    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores, {args.workers} workers")
    jobs = [(f"bench-{i}", args.target, args.max_nodes) for i in range(args.first, args.games + 1)]
    header = f"{'seed':<10} {'score':>8} {'max tile':>8} {'moves':>6} {'seconds':>8} {'moves/s':>8}"
    print(header)
    print("-" * len(header), flush=True)
    start = time.perf_counter()
    results: list[GameResult] = []
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for r in pool.imap_unordered(play_one, jobs):
            results.append(r)
            flag = "" if r.valid else "  INVALID"
            print(
                f"{r.seed:<10} {r.score:>8} {r.max_tile:>8} {r.moves:>6} "
                f"{r.seconds:>8.1f} {r.moves / r.seconds:>8.1f}{flag}",
                flush=True,
            )
    wall = time.perf_counter() - start
    print()
    n = len(results)
    for tile in TILES:
        if tile > args.target:
            break
        reached = sum(r.max_tile >= tile for r in results)
        print(f"reached {tile:>6}: {reached:>2} / {n} ({100 * reached / n:.0f}%)")
    speeds = [r.moves / r.seconds for r in results]
    print(f"median speed: {statistics.median(speeds):.1f} moves/s")
    print(f"total moves: {sum(r.moves for r in results)}, wall time: {wall:.0f} s")
    if not all(r.valid for r in results):
        print("some games did not verify")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
