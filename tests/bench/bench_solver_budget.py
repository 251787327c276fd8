"""Benchmark of how the C search's default spends its nodes: settings against a deep search.

Run from the project root after installing (with the extension built):

    python tests/bench/bench_solver_budget.py                      # the default and a few others
    python tests/bench/bench_solver_budget.py --step 50 2000000:1e-4:8 2500000:5e-4:9

Positions: every ``--step``-th position of the 20,000-move solver game in
tests/data/long-20000.json.  Each position is searched once by nneonneo's
current rule (no budget, uncapped depth, cut-off 1e-4: what
bench_solver_search.py calls ``NNEONNEO``), whose values are the yardstick;
then by each candidate ``NODES:CUTOFF:MAX_PLIES`` (``NODES`` 0: no budget).
For each candidate it prints how often its move is the deep search's, the
expected value its move gives up by the deep search's values (mean and worst,
relative to the best), the nodes and the CPU time per position (mean, and the
slowest position: a hint's search time).  A game's
strength is not read here (bench_solver.py plays games); this is the quick
way to compare settings at equal cost.  Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import NamedTuple

from bench_solver_search import NNEONNEO, positions

from twenty48_replay import Board
from twenty48_replay.solver import SearchSettings, Strength, native_search
from twenty48_replay.solver.strength import settings_for


class Row(NamedTuple):
    agreed: int
    mean_loss: float
    worst_loss: float
    nodes: float
    cpu_ms: float
    worst_cpu_ms: float


def parse(spec: str) -> SearchSettings:
    """``NODES:CUTOFF:MAX_PLIES`` -> settings (``NODES`` 0: no budget)."""
    nodes, cutoff, plies = spec.split(":")
    budget = int(nodes)
    return SearchSettings(max_nodes=budget or None, cutoff=float(cutoff), max_plies=int(plies))


def best_code(values: dict[int, float]) -> int:
    return max(values, key=values.__getitem__)


def compare(
    settings: SearchSettings, boards: list[Board], deep: list[dict[int, float]], module: object
) -> Row:
    agreed = 0
    losses = []
    nodes = 0
    times = []
    for board, wanted in zip(boards, deep, strict=True):
        cpu = time.process_time()
        result = native_search.search(board, settings, module)
        times.append(time.process_time() - cpu)
        chosen = best_code(result.values)
        best = best_code(wanted)
        agreed += chosen == best
        losses.append((wanted[best] - wanted[chosen]) / wanted[best])
        nodes += result.nodes
    n = len(boards)
    return Row(
        agreed, sum(losses) / n, max(losses), nodes / n, 1000 * sum(times) / n, 1000 * max(times)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--step", type=int, default=50, help="every STEP-th position")
    parser.add_argument(
        "candidates",
        nargs="*",
        default=["2000000:1e-4:8", "4000000:1e-4:8", "2500000:5e-4:9"],
        help="NODES:CUTOFF:MAX_PLIES (NODES 0: no budget); the default strength is always run",
    )
    args = parser.parse_args(argv)
    module = native_search.solver_module()
    if module is None:
        print("the C search is not built (or TWENTY48_ENGINE=python): nothing to compare")
        return 2
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load}")
    boards = positions(args.step)
    cpu = time.process_time()
    deep = [native_search.search(b, NNEONNEO, module).values for b in boards]
    print(f"{len(boards)} positions; deep search {time.process_time() - cpu:.1f} s of CPU")
    default = settings_for(Strength.DEFAULT, native=True)
    candidates = [("default", default)] + [(spec, parse(spec)) for spec in args.candidates]
    print(
        f"{'settings':<18} {'same move':>11} {'mean loss':>9} {'worst':>7}"
        f" {'nodes/pos':>10} {'CPU ms/pos':>10} {'max ms':>6}"
    )
    for name, settings in candidates:
        row = compare(settings, boards, deep, module)
        print(
            f"{name:<18} {row.agreed:>5} / {len(boards):<3} {100 * row.mean_loss:>8.4f}%"
            f" {100 * row.worst_loss:>6.2f}% {row.nodes:>10,.0f} {row.cpu_ms:>10.1f}"
            f" {row.worst_cpu_ms:>6.1f}",
            flush=True,
        )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
