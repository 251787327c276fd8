"""Benchmark of the built-in solver: strength and speed on fixed seeds.

Run from the project root after installing:

    python tests/bench/bench_solver.py                  # bench-1 .. bench-20 until 16384
    python tests/bench/bench_solver.py --games 4 --target 4096
    python tests/bench/bench_solver.py --seeds 6 7 13 16 20   # only these seeds
    python tests/bench/bench_solver.py --prefix tune --games 40  # tune-1 .. tune-40 (tuning)
    python tests/bench/bench_solver.py --crowded-nodes 5000000 --crowded-empty 1  # a rule
    nice -n 5 taskset -c 1 python tests/bench/bench_solver.py --workers 1   # one core
    python tests/bench/bench_solver.py --strength deep --games 8 --target 32768 --workers 1

The search is the one ``twenty48 autoplay`` uses: the C search when the
extension is built, else NumPy (``TWENTY48_ENGINE=python`` forces it), at
``--strength`` (default or deep) unless ``--max-nodes`` overrides the budget
(``--crowded-nodes``/``--crowded-empty``: the crowded-board rule's).
Games run in parallel (``--workers``, default 2: one per core of the CI
machine).  Every game is verified with :func:`twenty48_replay.verify`
after it is played.  It prints a row per game as it finishes (with the
search's nodes per move and the CPU time per node), then how often each
tile was reached, the median and overall speed, the wall time and the load
average before and after; it asserts nothing (the goals are read, not tested).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from typing import NamedTuple

import attrs

from twenty48_replay import Direction, GameState, Record, verify
from twenty48_replay.solver.settings import SearchSettings

TILES = (2048, 4096, 8192, 16384, 32768, 65536)


class GameResult(NamedTuple):
    seed: str
    score: int
    max_tile: int
    moves: int
    seconds: float
    valid: bool
    nodes: int
    cpu_seconds: float


def play_one(job: tuple[str, int | None, SearchSettings, int]) -> GameResult:
    """Play and verify one seed (runs in a worker process)."""
    from twenty48_replay.solver import play_game

    seed, target, settings, every = job
    started = time.perf_counter()

    def progress(state: GameState, _direction: Direction) -> None:
        if every and state.moves % every == 0:
            elapsed = time.perf_counter() - started
            print(
                f"  {seed}: move {state.moves}, max tile {state.max_tile},"
                f" {elapsed:.0f} s, {state.moves / elapsed:.1f} moves/s, load {load()}",
                file=sys.stderr,
                flush=True,
            )

    cpu = time.process_time()
    played = play_game(seed, target, settings=settings, progress=progress)
    cpu = time.process_time() - cpu
    result = verify(Record(seed, played.moves, played.state.score))
    return GameResult(
        seed,
        played.state.score,
        played.state.max_tile,
        len(played.moves),
        played.seconds,
        result.valid and result.max_tile == played.state.max_tile,
        played.nodes,
        cpu,
    )


def load() -> str:
    """The 1, 5 and 15 minute load averages, as uptime prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    from twenty48_replay.solver import Strength, default_settings, engine_name

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=20, help="play PREFIX-1 .. PREFIX-N")
    parser.add_argument("--first", type=int, default=1, help="start at PREFIX-FIRST (resume a run)")
    parser.add_argument(
        "--prefix",
        default="bench",
        help="seed names PREFIX-N (default bench: the benchmark's own seeds; tune settings on"
        " another prefix, so that the bench seeds stay unseen)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="play only PREFIX-N for these N (instead of --first .. --games)",
    )
    parser.add_argument("--target", type=int, default=16384, help="stop a game at this tile")
    parser.add_argument("--workers", type=int, default=2, help="parallel games")
    parser.add_argument(
        "--strength", choices=[s.value for s in Strength], default=Strength.DEFAULT.value
    )
    parser.add_argument("--max-nodes", type=int, default=None, help="override the node budget")
    parser.add_argument(
        "--crowded-nodes",
        type=int,
        default=None,
        metavar="N",
        help="the crowded-board rule: budget N where the board has at most --crowded-empty"
        " empty cells (0 turns the rule off; default: the strength's)",
    )
    parser.add_argument(
        "--crowded-empty",
        type=int,
        default=None,
        metavar="K",
        help="a board with at most K empty cells is crowded (default: the strength's)",
    )
    parser.add_argument(
        "--progress", type=int, default=0, help="a line on stderr every N moves of a game"
    )
    args = parser.parse_args(argv)

    settings = default_settings(Strength(args.strength))
    if args.max_nodes is not None:
        settings = attrs.evolve(settings, max_nodes=args.max_nodes)
    if args.crowded_nodes is not None:
        settings = attrs.evolve(settings, crowded_max_nodes=args.crowded_nodes or None)
    if args.crowded_empty is not None:
        settings = attrs.evolve(settings, crowded_empty=args.crowded_empty)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load()}")
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores, {args.workers} workers")
    print(f"engine {engine_name()}, strength {args.strength}: {settings}")
    jobs = [
        (f"{args.prefix}-{i}", args.target, settings, args.progress)
        for i in (args.seeds or range(args.first, args.games + 1))
    ]
    header = (
        f"{'seed':<10} {'score':>8} {'max tile':>8} {'moves':>6} {'seconds':>8} {'moves/s':>8}"
        f" {'CPU moves/s':>11} {'nodes/move':>10} {'ns/node':>7}"
    )
    print(header)
    print("-" * len(header), flush=True)
    start = time.perf_counter()
    results: list[GameResult] = []
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for r in pool.imap_unordered(play_one, jobs):
            results.append(r)
            flag = "" if r.valid else "  INVALID"
            per_node = 1e9 * r.cpu_seconds / max(1, r.nodes)
            print(
                f"{r.seed:<10} {r.score:>8} {r.max_tile:>8} {r.moves:>6} "
                f"{r.seconds:>8.1f} {r.moves / r.seconds:>8.1f}"
                f" {r.moves / max(r.cpu_seconds, 1e-9):>11.1f}"
                f" {r.nodes / max(1, r.moves):>10.0f} {per_node:>7.1f}{flag}",
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
    moves = sum(r.moves for r in results)
    seconds = sum(r.seconds for r in results)
    cpu = sum(r.cpu_seconds for r in results)
    print(
        f"median speed: {statistics.median(speeds):.1f} moves/s; overall {moves / seconds:.1f}"
        f" (per CPU second: {moves / cpu:.1f}; wall time counts the machine's other load)"
    )
    print(f"total moves: {moves}, wall time: {wall:.0f} s")
    nodes = sum(r.nodes for r in results)
    print(f"CPU time per node (search and play): {1e9 * cpu / max(1, nodes):.1f} ns")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load()}")
    if not all(r.valid for r in results):
        print("some games did not verify")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
