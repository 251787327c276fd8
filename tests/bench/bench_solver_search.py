"""Benchmark of one search: ns per node, hint latency, the C search against NumPy and nneonneo.

Run from the project root after installing (with the extension built):

    python tests/bench/bench_solver_search.py
    nice -n 5 taskset -c 1 python tests/bench/bench_solver_search.py --nneonneo /path/to/2048.so

Positions: every ``--step``-th position of the 20,000-move solver game in
tests/data/long-20000.json (tiles up to 32768).  It prints:

* **per node**: the C search with nneonneo's current rule (``--strength
  deep`` without its cap of 8 plies, so that both programs search the same
  depth) on every position: nodes (afterstates + spawned boards), moves tried
  (4 per spawned board, what nneonneo counts as "moves evaluated"), CPU time,
  and the nanoseconds per node and per move tried;
* **hint latency**: ``best_move`` at the default strength on every position
  (median, 99th percentile, max), and the wall time of whole
  ``twenty48 hint --board ...`` processes;
* **the network's search** (``--only-network``, positions up to move 12,000,
  where tiles stay under 32768): the default strength with the shipped
  network, every position in order with one table as ``autoplay`` searches:
  nodes, CPU time, ns per node, searches per CPU second, and a SHA-256 digest
  of every value found, so that two builds can be shown to search the same
  tree to the last bit (the same digest) at different speeds;
* **against NumPy** (``--numpy N`` positions): the default strengths' choices,
  agreement and the expected value the C choice gives up by NumPy's values;
* **against nneonneo** (``--nneonneo`` names its ``bin/2048.so``, built from
  https://github.com/nneonneo/2048-ai; nothing of it is in this project):
  the same positions through its ``score_toplevel_move`` (one search per
  direction, as its own player does), its moves evaluated (parsed from its
  output), CPU time, ns per move, and how often it picks the move our search
  with its rule picks (positions with tiles above 32768 are skipped: its 4-bit
  boards cannot hold them).

CPU times (``time.process_time``) are used for the per-node figures, so the
machine's other load inflates them less than wall time would; the load
average is printed before and after.  Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import hashlib
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_verify_jobs import timed

from twenty48_replay import Board, Record
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.solver import (
    SearchSettings,
    Strength,
    best_move,
    default_settings,
    dispatch,
    expectimax,
    native_search,
)
from twenty48_replay.solver.network import EXPAND_AFTER
from twenty48_replay.solver.settings import plies_for
from twenty48_replay.solver.strength import settings_for

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "tests" / "data" / "long-20000.json"
#: The network's positions: the game's first 12,000 moves (its tiles reach 32768 later).
NETWORK_POSITIONS = 12_000


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def positions(step: int, until: int | None = None) -> list[Board]:
    timeline = Timeline(Record.from_json(GAME.read_text(encoding="utf-8")))
    last = timeline.last if until is None else min(until, timeline.last)
    boards = [timeline[i].board for i in range(0, last, step)]
    return [b for b in boards if b.valid_directions()]


def best_code(values: dict[int, float]) -> int:
    return max(values, key=values.__getitem__)


#: nneonneo's current search: its depth rule without the cap of --strength deep, its cut-off.
NNEONNEO = SearchSettings(max_nodes=None, min_plies=2, max_plies=16)


def per_node(module: Any, boards: list[Board]) -> dict[int, dict[int, float]]:
    deep = NNEONNEO
    nodes = moves = 0
    cpu = 0.0
    found: dict[int, dict[int, float]] = {}
    for i, board in enumerate(boards):
        plies = plies_for(board, deep)
        start = time.process_time()
        values, _depth, n, m, _hits, _wide = module.search(
            board.packed,
            plies - 1,
            1,
            deep.cutoff,
            0,
            1,
            native_search.UNBOUNDED_TABLE_BITS,
            int(deep.table_per_move),
        )
        cpu += time.process_time() - start
        nodes += n
        moves += m
        found[i] = {code: v for code, v in enumerate(values) if v is not None}
    print(
        f"C search, nneonneo's rule uncapped (max_plies 16, no budget), {len(boards)} positions:"
        f" {cpu:.2f} s CPU"
    )
    print(f"  nodes (afterstates + spawned boards): {nodes:,}: {1e9 * cpu / nodes:.2f} ns per node")
    print(f"  moves tried (nneonneo's count):       {moves:,}: {1e9 * cpu / moves:.2f} ns per move")
    print(f"  {nodes / len(boards):,.0f} nodes per position, {len(boards) / cpu:.1f} positions/s")
    return found


def hint_latency(boards: list[Board], runs: int) -> None:
    settings = default_settings()
    best_move(boards[0], settings)  # the first call allocates the transposition table
    walls = []
    cpus = []
    for board in boards:
        start, cpu = time.perf_counter(), time.process_time()
        best_move(board, settings)
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - start)
    for label, times in (("wall", walls), ("CPU", cpus)):
        times.sort()
        print(
            f"best_move at the default strength ({settings.max_nodes:,} nodes),"
            f" {len(boards)} positions, {label}: median {1e3 * statistics.median(times):.1f} ms,"
            f" p99 {1e3 * times[int(0.99 * (len(times) - 1))]:.1f} ms, max {1e3 * times[-1]:.1f} ms"
        )
    crowded = min(boards, key=lambda b: len(b.empty_cells()) - 0.01 * len(set(b)))
    text = "/".join(" ".join(str(crowded[4 * r + c]) for c in range(4)) for r in range(4))
    walls = []
    process_cpus = []
    command = [sys.executable, "-m", "twenty48_cli", "hint", "--json", "--board", text]
    for _ in range(runs):
        wall, cpu = timed(command)
        walls.append(wall)
        process_cpus.append(cpu)
    print(
        f"twenty48 hint --board '{text}' (whole process, {runs} runs):"
        f" median {1e3 * statistics.median(walls):.0f} ms, min {1e3 * min(walls):.0f} ms;"
        f" CPU median {1e3 * statistics.median(process_cpus):.0f} ms,"
        f" max {1e3 * max(process_cpus):.0f} ms"
    )


def network_per_node(boards: list[Board], repeat: int) -> None:
    settings = default_settings()
    if settings.evaluation != "network":
        print("no network can be used here (see `twenty48 solver weights`): nothing to measure")
        return
    # What autoplay does from its ninth search on: the weights copied dense into memory.
    for board in boards[:EXPAND_AFTER]:
        dispatch.search(board, settings)
    for run in range(repeat):
        digest = hashlib.sha256()
        nodes = 0
        start = time.process_time()
        for board in boards:
            result = dispatch.search(board, settings)
            nodes += result.nodes
            digest.update(repr(sorted(result.values.items())).encode())
        cpu = time.process_time() - start
        print(
            f"the network's search at the default strength, run {run + 1}: {len(boards)} positions,"
            f" {nodes:,} nodes, {cpu:.2f} s CPU, {1e9 * cpu / nodes:.1f} ns a node,"
            f" {len(boards) / cpu:.1f} searches per CPU second;"
            f" values digest {digest.hexdigest()[:16]}"
        )


def against_numpy(module: Any, boards: list[Board]) -> None:
    numpy_default = settings_for(Strength.DEFAULT, native=False)
    native_default = settings_for(Strength.DEFAULT, native=True)
    agreed = 0
    losses = []
    numpy_cpu = native_cpu = 0.0
    numpy_nodes = 0
    for board in boards:
        start = time.process_time()
        wanted = expectimax.search(board, numpy_default)
        numpy_cpu += time.process_time() - start
        numpy_nodes += wanted.nodes
        start = time.process_time()
        got = native_search.search(board, native_default, module)
        native_cpu += time.process_time() - start
        chosen = best_code(got.values)
        agreed += chosen == best_code(wanted.values)
        best = max(wanted.values.values())
        losses.append((best - wanted.values[chosen]) / best)
    n = len(boards)
    differing = sorted(x for x in losses if x > 0)
    print(
        f"default strengths, C vs NumPy, {n} positions: same move {agreed}/{n}"
        f" ({100 * agreed / n:.0f}%); where they differ, the C move gives up"
        f" {100 * statistics.median(differing) if differing else 0:.3f}% median,"
        f" {100 * max(losses):.3f}% max of NumPy's expected value"
    )
    print(
        f"  NumPy {1e3 * numpy_cpu / n:.1f} ms per position"
        f" ({1e9 * numpy_cpu / max(1, numpy_nodes):.0f} ns per node),"
        f" C {1e3 * native_cpu / n:.1f} ms per position (CPU)"
    )


@contextlib.contextmanager
def captured_stdout() -> Iterator[Path]:
    """The C library's stdout (file descriptor 1) into a file, for nneonneo's printf lines."""
    libc = ctypes.CDLL(None)
    with tempfile.NamedTemporaryFile(suffix=".out", delete=False) as tmp:
        path = Path(tmp.name)
    sys.stdout.flush()
    saved = os.dup(1)
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    os.dup2(fd, 1)
    try:
        yield path
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(fd)
        os.close(saved)


def against_nneonneo(
    library: Path, boards: list[Board], deep_values: dict[int, dict[int, float]]
) -> None:
    lib = ctypes.CDLL(str(library))
    lib.init_tables()
    lib.score_toplevel_move.argtypes = [ctypes.c_uint64, ctypes.c_int]
    lib.score_toplevel_move.restype = ctypes.c_float
    usable = [i for i, b in enumerate(boards) if b.max_tile <= 32768]
    choices: dict[int, int] = {}
    with captured_stdout() as out:
        start = time.process_time()
        for i in usable:
            board = boards[i]
            nibbles = sum(board.exponent(c) << (4 * c) for c in range(16))
            # nneonneo's direction codes are ours (0 up, 1 down, 2 left, 3 right).
            scores = [lib.score_toplevel_move(nibbles, move) for move in range(4)]
            choices[i] = max(range(4), key=lambda m: (scores[m], -m))
        cpu = time.process_time() - start
    text = out.read_text(encoding="utf-8", errors="replace")
    out.unlink()
    moves = sum(int(n) for n in re.findall(r"eval'd (\d+) moves", text))
    same = sum(choices[i] == best_code(deep_values[i]) for i in usable)
    losses = []
    for i in usable:
        values = deep_values[i]
        best = max(values.values())
        losses.append((best - values.get(choices[i], 0.0)) / best)
    differing = sorted(x for x in losses if x > 0)
    print(f"nneonneo/2048-ai ({library}), {len(usable)} positions: {cpu:.2f} s CPU")
    print(f"  moves evaluated: {moves:,}: {1e9 * cpu / max(1, moves):.2f} ns per move")
    print(
        f"  same move as ours: {same}/{len(usable)} ({100 * same / len(usable):.0f}%);"
        f" where they differ, nneonneo's move gives up"
        f" {100 * statistics.median(differing) if differing else 0:.3f}% median of our value"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--step", type=int, default=100, help="every STEP-th position")
    parser.add_argument("--numpy", type=int, default=50, help="positions compared with NumPy")
    parser.add_argument("--hint-runs", type=int, default=10, help="whole hint processes timed")
    parser.add_argument("--nneonneo", type=Path, default=None, help="nneonneo's bin/2048.so")
    parser.add_argument(
        "--only-hint", action="store_true", help="only the hint latency (no per-node run)"
    )
    parser.add_argument(
        "--only-network", action="store_true", help="only the network's search, per node"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of --only-network")
    args = parser.parse_args(argv)

    module = native_search.solver_module()
    if module is None:
        print("the C solver is not built (or TWENTY48_ENGINE=python): nothing to measure")
        return 2
    boards = positions(args.step)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load()}")
    print(f"python {sys.version.split()[0]}, {len(boards)} positions of {GAME.name}")
    if args.only_hint:
        hint_latency(boards, args.hint_runs)
        return 0
    if args.only_network:
        network_per_node(positions(args.step, NETWORK_POSITIONS), args.repeat)
        print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load()}")
        return 0
    deep_values = per_node(module, boards)
    hint_latency(boards, args.hint_runs)
    if args.numpy:
        against_numpy(module, boards[:: max(1, len(boards) // args.numpy)][: args.numpy])
    if args.nneonneo is not None:
        against_nneonneo(args.nneonneo, boards, deep_values)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
