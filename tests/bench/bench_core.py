"""Benchmark of the core (issue 2): replay throughput and `twenty48 verify` wall time.

Run from the project root after installing:  python tests/bench/bench_core.py

It prints figures; it asserts nothing (performance goals are read, not
tested).  Long games are played by a deterministic two-ply strategy (the one
in schema/generate_vectors.py), so they are real games of 400-600 moves;
the move strings are concatenated into nothing, each game is replayed whole.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "schema"))

from generate_vectors import lookahead_moves

from twenty48_replay import Record, replay, verify
from twenty48_replay.core.engine import run

ROOT = Path(__file__).resolve().parents[2]


def best_of(repeats: int, fn: object) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores", flush=True)
    games = [(f"bench-{i}", lookahead_moves(f"bench-{i}", 2000)) for i in range(20)]
    records = [Record(seed, moves, run(seed, moves).score) for seed, moves in games]
    total = sum(len(r.moves) for r in records)
    print(
        f"{len(records)} long games, {total} moves (mean {total // len(records)}, "
        f"max {max(len(r.moves) for r in records)})"
    )

    def run_all() -> None:
        for r in records:
            run(r.seed, r.moves)

    def verify_all() -> None:
        for r in records:
            assert verify(r).valid

    def steps_all() -> None:
        for r in records:
            for _ in replay(r):
                pass

    run(records[0].seed, records[0].moves)  # warm the row tables, as any real run does
    for name, fn in (
        ("engine.run (verify's loop)", run_all),
        ("verify(record)", verify_all),
        ("replay(record) step objects", steps_all),
    ):
        seconds = best_of(5, fn)
        print(f"{name:32} {total / seconds:>12,.0f} moves/s")

    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.json"
        one.write_text(records[0].to_json())
        many = Path(tmp) / "many.jsonl"
        with many.open("w") as f:
            for i in range(1000):
                f.write(records[i % len(records)].to_json() + "\n")
        exe = Path(sys.executable).with_name("twenty48")
        walls = []
        for _ in range(10):
            start = time.perf_counter()
            subprocess.run([str(exe), "verify", str(one)], check=True, capture_output=True)
            walls.append(time.perf_counter() - start)
        print(
            f"twenty48 verify, 1 record ({len(records[0].moves)} moves): "
            f"median {statistics.median(walls):.3f} s, best {min(walls):.3f} s (10 runs)"
        )
        start = time.perf_counter()
        subprocess.run([str(exe), "verify", "--quiet", str(many)], check=True, capture_output=True)
        wall = time.perf_counter() - start
        moves_1000 = sum(len(records[i % len(records)].moves) for i in range(1000))
        print(
            f"twenty48 verify, 1,000 records ({moves_1000} moves): {wall:.2f} s "
            f"({moves_1000 / wall:,.0f} moves/s including start-up)"
        )
        imports = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import twenty48_cli.app"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        heavy = [m for m in ("sqlalchemy", "textual", "numpy") if f" {m}\n" in imports]
        print(f"heavy modules imported by the CLI at start-up: {heavy or 'none'}")
    print(json.dumps({"moves": total}))


if __name__ == "__main__":
    main()
