"""Benchmark of the n-tuple network (issue 34): the trainer's speed, and a network's strength.

Run from the project root after installing (the native solver must be built):

    python tests/bench/bench_ntuple.py speed                       # 20,000 games, 1 thread
    python tests/bench/bench_ntuple.py speed --games 40000 --threads 2
    python tests/bench/bench_ntuple.py strength CHECKPOINT_OR_WEIGHTS --games 2000
    python tests/bench/bench_ntuple.py strength CHECKPOINT --budgets 50 30 20   # MB

``speed`` trains a new network of the default shape (TC, rate 1.0) from
nothing for ``--games`` games, without checkpoints, and prints the games and
moves per CPU second (the process's CPU time: all threads, the merges
included) and per wall second.  Early games are short and the network's
tables still small, so the figure depends on how far training has got:
``--from CHECKPOINT`` measures from a trained network instead.

``strength`` plays ``--games`` greedy games (the move with the best reward
plus the network's value of its afterstate; no search) with the training
PRNG under ``--seed`` (default 2**63 + 34: not a training seed), with the
weights as given (float32 for a checkpoint), as the shipped int16 file
(dense), and as the sparse shipped file pruned to each of ``--budgets``
megabytes: what quantising and pruning cost in strength, measured on the same
games.  Rates are printed with their 95% (Wilson) intervals.  It asserts
nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rates import wilson

from twenty48_replay.solver import training
from twenty48_replay.solver import weights as wf
from twenty48_replay.solver.training import TrainConfig, TrainState

MILESTONES = (11, 12, 13, 14, 15)


def speed(args: argparse.Namespace) -> None:
    module = training.training_module()
    if args.start:
        state = training.load_checkpoint(args.start)
        state = TrainState(
            attrs_evolve(state.config, threads=args.threads), state.games, state.values
        )
    else:
        state = TrainState.new(TrainConfig(threads=args.threads, round_games=args.round))
    start_games, start_moves = state.games, state.moves
    cpu, wall = time.process_time(), time.perf_counter()
    training.train(state, start_games + args.games, window=args.games, module=module)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    games = state.games - start_games
    moves = state.moves - start_moves
    print(
        f"trainer: {games:,} games from {start_games:,}, {args.threads} thread(s), "
        f"{moves / games:,.0f} moves a game"
    )
    print(
        f"  {games / cpu:,.1f} games and {moves / cpu:,.0f} moves per CPU second; "
        f"{games / wall:,.1f} games and {moves / wall:,.0f} moves per wall second "
        f"({cpu:.1f} s CPU, {wall:.1f} s wall)"
    )


def attrs_evolve(config: TrainConfig, **changes: Any) -> TrainConfig:
    import attrs

    return attrs.evolve(config, **changes)


def play(module: Any, net: Any, games: int, seed: int) -> np.ndarray:
    results = np.zeros((games, 2), np.uint64)
    played = module.ntuple_play(net, seed, 0, 1, games, results, None)
    assert played == games
    return results


def report(name: str, results: np.ndarray, seconds: float) -> None:
    scores = results[:, 0].astype(np.float64)
    moves = (results[:, 1] & 0xFFFFFFFF).astype(np.float64)
    largest = results[:, 1] >> 32
    n = len(results)
    parts = []
    for e in MILESTONES:
        k = int(np.sum(largest >= e))
        low, high = wilson(k, n)
        parts.append(f"{2**e} {100 * k / n:.1f}% ({100 * low:.0f}-{100 * high:.0f})")
    print(
        f"{name:<28} score {scores.mean():>9,.0f}  " + "  ".join(parts) + f"  "
        f"{moves.sum() / seconds / 1000:,.0f}k moves/s"
    )


def strength(args: argparse.Namespace) -> None:
    module = training.training_module()
    loaded = wf.load(args.weights)
    print(
        f"{args.weights}: {loaded.shape.describe()}, {loaded.header.metadata.get('games', '?')} "
        f"games of training; {args.games:,} greedy games, seed {args.seed}"
    )
    runs: list[tuple[str, Any]] = [(f"as stored ({loaded.header.dtype})", loaded.network(module))]
    if loaded.header.value_type == wf.FLOAT32:
        state = TrainState(
            TrainConfig(shape=loaded.shape, rule="td"),
            int(loaded.header.metadata.get("games", 0)),
            np.frombuffer(loaded.arrays[0], np.float32).reshape(-1, 1).copy(),
        )
        q, scale = training.quantise(state.weights)
        runs.append(
            (
                "int16 dense",
                module.ntuple_load(
                    loaded.shape.tuples, loaded.shape.stages, wf.KIND_I16, scale, q, None
                ),
            )
        )
        with tempfile.TemporaryDirectory() as folder:
            for budget in args.budgets:
                path = Path(folder) / f"{budget}.t48w"
                info = training.export(state, str(path), max_bytes=int(budget * 1e6))
                shipped = wf.load(path)
                size = path.stat().st_size / 1e6
                label = (
                    f"sparse {size:.1f} MB (|q|>={info['pruned_below']})"
                    if info["pruned_below"]
                    else f"sparse {size:.1f} MB (all)"
                )
                runs.append((label, shipped.network(module)))
    for name, net in runs:
        started = time.process_time()
        results = play(module, net, args.games, args.seed)
        report(name, results, time.process_time() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--games", type=int, default=20_000)
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--round", type=int, default=1000)
    s.add_argument("--from", dest="start", help="a checkpoint to start from")
    t = sub.add_parser("strength")
    t.add_argument("weights")
    t.add_argument("--games", type=int, default=2000)
    t.add_argument("--seed", type=int, default=2**63 + 34)
    t.add_argument("--budgets", type=float, nargs="*", default=[50.0])
    args = parser.parse_args()
    if args.command == "speed":
        speed(args)
    else:
        strength(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
