"""Training the solver's n-tuple network by TD learning.

The games and the learning run in C (``twenty48_replay._solver.ntuple_train``,
_native/t48_ntuple.c); this module owns the arrays, the threads, the
checkpoints and the progress.  Without the C extension there is no
training (a pure-Python trainer would be some thousand times slower);
:func:`training_module` says so in one line.

* **Rounds.** Games are numbered from 0; round ``k`` plays games
  ``k * round_games`` to ``(k + 1) * round_games - 1``.  With one thread the
  games run in order on the weights.  With ``threads`` T > 1, thread ``t``
  plays games ``t, t + T, ...`` of the round on a private copy of the arrays,
  and at the end of the round the copies are merged into the shared arrays
  (each block of weights some thread changed gets the sum of the threads'
  changes, in thread order; ``ntuple_merge``), and every copy starts the
  next round from the merged arrays.
* **Determinism.** A game's spawns come from its own PRNG (seeded from the
  training seed and the game's number), and its moves from the weights, so
  the network after N games depends only on the seed, the rule and rate,
  the shape, the number of threads and the round size.  Checkpoints are
  written only between rounds and hold everything the next round reads:
  resuming from one gives, bit for bit, the arrays an uninterrupted run
  gives (the tests check it).  A run stopped inside a round (Ctrl-C) throws
  that round away; its last checkpoint stays as it was.
* **Checkpoints** are weights files (:mod:`~twenty48_replay.solver.weights`)
  of float32 arrays: the weights, and under TC the two accumulators, with
  the training's settings, its game count and its curve in the metadata.
  Each is written to a temporary file and renamed over the last.
"""

from __future__ import annotations

import concurrent.futures
import functools
import math
import time
from collections.abc import Callable
from typing import Any, ClassVar, Final

import attrs
import numpy as np
import numpy.typing as npt

from twenty48_replay.core import native
from twenty48_replay.core.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.solver import weights as wf
from twenty48_replay.solver.weights import DEFAULT_SHAPE, NetworkShape, WeightsError

RULES: Final = {"td": 0, "tc": 1}
#: The largest tiles whose rates the progress shows (exponents).
MILESTONES: Final = (11, 13, 14, 15)
FORMAT_KIND: Final = "checkpoint"
MAX_THREADS: Final = 64

FloatArray = npt.NDArray[np.float32]


class TrainingUnavailableError(Twenty48Error):
    """Training needs the C extension, which is not built or not chosen (exit 2)."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self) -> None:
        super().__init__(wf.NO_TRAINER)


def training_module() -> Any:
    """The C extension that trains, or a :class:`TrainingUnavailableError`."""
    module = native.module("_solver") if native.ENGINE != "python" else None
    if module is None or not hasattr(module, "ntuple_train"):
        raise TrainingUnavailableError
    return module


@attrs.frozen
class TrainConfig:
    """Everything the weights after N games depend on (besides N)."""

    shape: NetworkShape = DEFAULT_SHAPE
    rule: str = "tc"
    rate: float = 1.0
    seed: int = 1
    threads: int = 1
    round_games: int = 1000

    def __attrs_post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(RULES)}, not {self.rule!r}")
        if not (0.0 < self.rate <= 16.0):
            raise ValueError(f"rate must be above 0 and at most 16, not {self.rate}")
        if not 0 <= self.seed < 1 << 64:
            raise ValueError("seed must be from 0 to 2**64 - 1")
        if not 1 <= self.threads <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}")
        if self.round_games < self.threads:
            raise ValueError("a round has at least one game per thread")

    @property
    def n_arrays(self) -> int:
        """Arrays the rule keeps: the weights, and TC's two accumulators."""
        return 3 if self.rule == "tc" else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "tuples": [list(c) for c in self.shape.tuples],
            "stages": list(self.shape.stages),
            "rule": self.rule,
            "rate": self.rate,
            "seed": self.seed,
            "threads": self.threads,
            "round_games": self.round_games,
        }

    @classmethod
    def from_json(cls, shape: NetworkShape, data: dict[str, Any]) -> TrainConfig:
        return cls(
            shape=shape,
            rule=str(data["rule"]),
            rate=float(data["rate"]),
            seed=int(data["seed"]),
            threads=int(data["threads"]),
            round_games=int(data["round_games"]),
        )


@attrs.frozen
class WindowStats:
    """The games of one progress window."""

    games: int  # games played in all, at the end of the window
    window: int  # games in the window
    mean_score: float
    mean_moves: float
    rates: dict[int, float]  # exponent of a tile -> share of games that reached it
    moves_per_cpu_second: float
    cpu_seconds: float  # in all
    wall_seconds: float  # in all

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "window": self.window,
            "mean_score": round(self.mean_score, 1),
            "mean_moves": round(self.mean_moves, 1),
            "rates": {str(2**e): round(r, 5) for e, r in self.rates.items()},
            "moves_per_cpu_second": round(self.moves_per_cpu_second),
            "cpu_seconds": round(self.cpu_seconds, 1),
            "wall_seconds": round(self.wall_seconds, 1),
        }


@attrs.define(eq=False)
class TrainState:
    """A training in memory: its settings, its arrays and what it has done.

    ``values`` holds ``config.n_arrays`` float32 numbers per weight, side by
    side (shape ``(total, n_arrays)``): the weight, and under TC its E and A,
    so that an update touches one cache line; :attr:`arrays` are the columns.
    """

    config: TrainConfig
    games: int
    values: FloatArray
    curve: list[dict[str, Any]] = attrs.field(factory=list)
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    moves: int = 0

    @classmethod
    def new(cls, config: TrainConfig) -> TrainState:
        return cls(config, 0, np.zeros((config.shape.total, config.n_arrays), np.float32))

    @property
    def arrays(self) -> list[FloatArray]:
        """The weights, and under TC E and A (views of :attr:`values`)."""
        return [self.values[:, k] for k in range(self.values.shape[1])]

    @property
    def weights(self) -> FloatArray:
        return self.values[:, 0]

    def metadata(self) -> dict[str, Any]:
        return {
            "kind": FORMAT_KIND,
            "training": self.config.to_json(),
            "games": self.games,
            "moves": self.moves,
            "cpu_seconds": round(self.cpu_seconds, 1),
            "wall_seconds": round(self.wall_seconds, 1),
            "curve": self.curve,
        }


def save_checkpoint(path: str, state: TrainState) -> None:
    """Write the training's arrays and state (atomically)."""
    columns = [
        functools.partial(np.ascontiguousarray, column) for column in state.arrays
    ]  # one column copied at a time, while it is written
    wf.write(path, state.config.shape, columns, metadata=state.metadata())


def load_checkpoint(path: str) -> TrainState:
    """A training from its checkpoint (arrays copied into memory, writable)."""
    weights = wf.load(path)
    try:
        header = weights.header
        meta = header.metadata
        if meta.get("kind") != FORMAT_KIND or header.value_type != wf.FLOAT32:
            raise WeightsError(path, wf.NOT_CHECKPOINT)
        try:
            config = TrainConfig.from_json(header.shape, meta["training"])
            games = int(meta["games"])
            curve = list(meta.get("curve", []))
            if len(weights.arrays) != config.n_arrays:
                raise ValueError("arrays")
            values = np.empty((header.shape.total, config.n_arrays), np.float32)
            for k, column in enumerate(weights.arrays):
                values[:, k] = np.frombuffer(column, np.float32)
            state = TrainState(
                config,
                games,
                values,
                curve,
                float(meta.get("cpu_seconds", 0.0)),
                float(meta.get("wall_seconds", 0.0)),
                int(meta.get("moves", 0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise WeightsError(path, wf.BAD_TRAINING, what=str(exc)) from None
        if games % config.round_games:
            raise WeightsError(path, wf.BAD_TRAINING, what="arrays or game count")
        return state
    finally:
        weights.close()


class TrainingInterruptedError(Exception):
    """Ctrl-C during a round: the round was thrown away."""


Progress = Callable[[WindowStats], None]


def train(
    state: TrainState,
    until_games: int,
    *,
    checkpoint: str | None = None,
    checkpoint_every: int = 50_000,
    window: int = 10_000,
    progress: Progress | None = None,
    module: Any = None,
) -> TrainState:
    """Train ``state`` on until ``until_games`` games (rounded up to whole rounds).

    Calls ``progress`` and adds a point to the curve every ``window`` games
    (rounded up to whole rounds); writes a checkpoint to ``checkpoint`` every
    ``checkpoint_every`` games (rounded up to whole windows, so that no
    window spans a resume) and at the end.  Ctrl-C stops the round in progress
    between games and raises :class:`TrainingInterruptedError`; the arrays are
    then those of the last finished round (the checkpoint file is left as it
    was).
    """
    module = module or training_module()
    config = state.config
    per_round = config.round_games
    until = _round_up(until_games, per_round)
    window = _round_up(window, per_round)
    every = _round_up(checkpoint_every, window)
    tuples, stages = config.shape.tuples, config.shape.stages
    rule = RULES[config.rule]
    threads = config.threads
    stop = np.zeros(1, np.int32)
    copies: list[FloatArray] = []
    dirty: list[npt.NDArray[np.uint8]] = []
    blocks = (config.shape.total + 255) >> 8
    if threads > 1:
        copies = [state.values.copy() for _ in range(threads)]
        dirty = [np.zeros(blocks, np.uint8) for _ in range(threads)]
    pending: list[npt.NDArray[np.uint64]] = []
    started_cpu = time.process_time()
    started_wall = time.monotonic()
    base_cpu, base_wall = state.cpu_seconds, state.wall_seconds

    def play(t: int, first: int, count: int, results: npt.NDArray[np.uint64]) -> int:
        played: int = module.ntuple_train(
            tuples,
            stages,
            copies[t] if threads > 1 else state.values,
            dirty[t] if threads > 1 else None,
            rule,
            config.rate,
            config.seed,
            first,
            threads,
            count,
            results,
            stop,
        )
        return played

    with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
        while state.games < until:
            first = state.games
            parts = []
            for t in range(threads):
                count = len(range(t, per_round, threads))
                results = np.zeros((count, 2), np.uint64)
                parts.append((results, pool.submit(play, t, first + t, count, results)))
            try:
                played = [future.result() for _results, future in parts]
            except KeyboardInterrupt:
                stop[0] = 1
                concurrent.futures.wait([future for _results, future in parts])
                raise TrainingInterruptedError from None
            if any(n != len(r) for n, (r, _f) in zip(played, parts, strict=True)):
                raise TrainingInterruptedError
            if threads > 1:
                module.ntuple_merge(state.values, tuple(copies), tuple(dirty), config.n_arrays)
            state.games += per_round
            pending.extend(r for r, _f in parts)
            state.moves += int(sum(int((r[:, 1] & 0xFFFFFFFF).sum()) for r, _f in parts))
            state.cpu_seconds = base_cpu + time.process_time() - started_cpu
            state.wall_seconds = base_wall + time.monotonic() - started_wall
            if state.games % window == 0:
                stats = window_stats(state, np.concatenate(pending), since_last_point(state))
                pending = []
                state.curve.append(stats.to_json())
                if progress is not None:
                    progress(stats)
            if checkpoint is not None and (state.games % every == 0 or state.games >= until):
                save_checkpoint(checkpoint, state)
    return state


def since_last_point(state: TrainState) -> float:
    """CPU seconds since the last point of the curve."""
    if state.curve:
        return state.cpu_seconds - float(state.curve[-1]["cpu_seconds"])
    return state.cpu_seconds


def window_stats(state: TrainState, results: npt.NDArray[np.uint64], cpu: float) -> WindowStats:
    """The figures of the games in ``results`` (one window)."""
    scores = results[:, 0].astype(np.float64)
    moves = (results[:, 1] & 0xFFFFFFFF).astype(np.float64)
    largest = results[:, 1] >> 32
    cpu = max(cpu, 1e-9)
    return WindowStats(
        games=state.games,
        window=len(results),
        mean_score=float(scores.mean()),
        mean_moves=float(moves.mean()),
        rates={e: float(np.mean(largest >= e)) for e in MILESTONES},
        moves_per_cpu_second=float(moves.sum()) / cpu,
        cpu_seconds=state.cpu_seconds,
        wall_seconds=state.wall_seconds,
    )


def _round_up(n: int, k: int) -> int:
    return max(k, math.ceil(n / k) * k)


#: The largest shipped weights file (the wheel's budget).
SHIPPED_MAX_BYTES: Final = 50_000_000
INT16_MAX: Final = 32767


def quantise(weights: FloatArray) -> tuple[npt.NDArray[np.int16], float]:
    """int16 weights and their scale: ``weights ~ q * scale``, the largest at 32767."""
    peak = float(np.abs(weights).max())
    scale = peak / INT16_MAX if peak > 0 else 1.0
    q = np.clip(np.rint(weights / np.float64(scale)), -INT16_MAX, INT16_MAX).astype(np.int16)
    return q, scale


def sparse_parts(q: npt.NDArray[np.int16]) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int16]]:
    """The sparse layout of int16 weights: the index (rank, mask low, mask high per 64) and
    the nonzero values in order."""
    nonzero = (q != 0).reshape(-1, wf.GROUP)
    masks = np.packbits(nonzero, axis=1, bitorder="little").view("<u8").ravel()
    counts = nonzero.sum(axis=1, dtype=np.uint64)
    ranks = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.uint64)
    index = np.empty((len(masks), 3), "<u4")
    index[:, 0] = ranks
    index[:, 1] = masks & 0xFFFFFFFF
    index[:, 2] = masks >> np.uint64(32)
    return index, q[q != 0].astype("<i2")


def prune(q: npt.NDArray[np.int16], most: int) -> tuple[npt.NDArray[np.int16], int]:
    """Zero the smallest weights until at most ``most`` are nonzero; returns the weights
    and the smallest magnitude kept (0 when nothing was pruned)."""
    magnitudes = np.abs(q[q != 0].astype(np.int32))
    if len(magnitudes) <= most:
        return q, 0
    # The smallest threshold whose survivors fit (ties at the threshold all go).
    threshold = (
        int(np.partition(magnitudes, len(magnitudes) - most - 1)[len(magnitudes) - most - 1]) + 1
    )
    pruned = q.copy()
    pruned[np.abs(q.astype(np.int32)) < threshold] = 0
    return pruned, threshold


def export(
    state: TrainState, path: str, *, max_bytes: int = SHIPPED_MAX_BYTES, sparse: bool = True
) -> dict[str, Any]:
    """Write the weights of a training as a file to ship: int16 with one scale, sparse
    (only the nonzero weights, and an index) unless ``sparse`` is false, pruned (the
    smallest weights zeroed) until the file fits ``max_bytes``.  Returns what was done."""
    shape = state.config.shape
    q, scale = quantise(state.weights)
    nonzero = int(np.count_nonzero(q))
    threshold = 0
    info: dict[str, Any] = {"scale": scale, "nonzero": nonzero, "total": shape.total}
    metadata = {
        "kind": "weights",
        "training": state.config.to_json(),
        "games": state.games,
        "moves": state.moves,
        "cpu_seconds": round(state.cpu_seconds, 1),
        "curve": state.curve,
        "quantisation": info,
    }
    if not sparse:
        wf.write(
            path, shape, [q.astype("<i2")], value_type=wf.INT16, scale=scale, metadata=metadata
        )
        return info
    index_bytes = shape.total // wf.GROUP * wf.GROUP_BYTES
    head = len(
        wf.encode_header(
            shape,
            value_type=wf.INT16,
            n_arrays=1,
            scale=scale,
            metadata={
                **metadata,
                "quantisation": {**info, "pruned_below": 2**15, "kept": shape.total},
            },
        )
    )
    most = max(0, (max_bytes - head - index_bytes) // 2)
    q, threshold = prune(q, most)
    info.update({"pruned_below": threshold, "kept": int(np.count_nonzero(q))})
    index, values = sparse_parts(q)
    wf.write(
        path,
        shape,
        [values],
        value_type=wf.INT16,
        scale=scale,
        metadata=metadata,
        sparse_index=index,
    )
    return info


def progress_line(stats: WindowStats) -> str:
    """One line of progress (English; the command line translates its own)."""
    rates = "  ".join(f"{2**e} {100 * r:.1f}%" for e, r in stats.rates.items())
    return (
        f"games {stats.games:,}  score {stats.mean_score:,.0f}  moves {stats.mean_moves:,.0f}  "
        f"{rates}  (last {stats.window:,})  {stats.moves_per_cpu_second / 1000:,.0f}k moves/CPU s"
        f"  CPU {stats.cpu_seconds / 3600:.2f} h  wall {stats.wall_seconds / 3600:.2f} h"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m twenty48_replay.solver.training``: train or resume (for scripts).

    The command line's ``twenty48 solver train`` does the same with translated
    messages; both write and resume the same checkpoints.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m twenty48_replay.solver.training")
    parser.add_argument("checkpoint", help="checkpoint file (resumed when it exists)")
    parser.add_argument("--games", type=int, required=True, help="train until this many games")
    parser.add_argument("--rule", choices=sorted(RULES), default="tc")
    parser.add_argument("--rate", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--round", type=int, default=1000, dest="round_games")
    parser.add_argument("--checkpoint-every", type=int, default=50_000)
    parser.add_argument("--window", type=int, default=10_000)
    args = parser.parse_args(argv)
    import signal
    from pathlib import Path

    # A background run (nohup ... &) starts with SIGINT ignored; stop it with
    # SIGTERM (kill PID), which here does what Ctrl-C does.
    signal.signal(signal.SIGTERM, _interrupt)

    try:
        if Path(args.checkpoint).exists():
            state = load_checkpoint(args.checkpoint)
            print(f"resuming {args.checkpoint} at {state.games:,} games", flush=True)
        else:
            config = TrainConfig(
                rule=args.rule,
                rate=args.rate,
                seed=args.seed,
                threads=args.threads,
                round_games=args.round_games,
            )
            state = TrainState.new(config)
            print(f"new training: {config.to_json()}", flush=True)
        train(
            state,
            args.games,
            checkpoint=args.checkpoint,
            checkpoint_every=args.checkpoint_every,
            window=args.window,
            progress=lambda s: print(progress_line(s), flush=True),
        )
    except WeightsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except TrainingInterruptedError:
        print("stopped: the last checkpoint is kept", file=sys.stderr)
        return 130
    return 0


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    raise SystemExit(main())
