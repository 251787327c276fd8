"""Benchmark of batch verification (issue 6): records/s and moves/s, --jobs 1 and 2.

Run from the project root after installing:
    python tests/bench/bench_verify.py [--records 10000]

Builds a JSON Lines file of real records of mixed length (prefixes, of
random length, of the long solver games in tests/data/ and the vector
games, with correct claims), then times `twenty48 verify --quiet` on it
with one and with two worker processes.  Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from twenty48_replay import Record
from twenty48_replay.core.engine import run

ROOT = Path(__file__).resolve().parents[2]


def sources() -> list[Record]:
    found = [
        Record.from_json(p.read_text()) for p in sorted((ROOT / "tests" / "data").glob("*.json"))
    ]
    games = json.loads((ROOT / "schema" / "vectors" / "games.json").read_text())["games"]
    found += [Record(g["seed"], g["moves"], 0) for g in games]
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    args = parser.parse_args()
    chooser = random.Random(6)
    bases = sources()
    lines = []
    total_moves = 0
    for _ in range(args.records):
        base = chooser.choice(bases)
        length = chooser.randint(1, len(base.moves))
        moves = base.moves[:length]
        score = run(base.seed, moves).score
        total_moves += length
        lines.append(Record(base.seed, moves, score).to_json())
    exe = Path(sys.executable).with_name("twenty48")
    print(
        f"{args.records} records, {total_moves:,} moves (mean {total_moves // args.records}), "
        f"{os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "batch.jsonl"
        path.write_text("\n".join(lines) + "\n")
        print(f"input {path.stat().st_size / 1e6:.1f} MB")
        for jobs in (1, 2):
            start = time.perf_counter()
            done = subprocess.run(
                [str(exe), "verify", "--quiet", "--jobs", str(jobs), str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            wall = time.perf_counter() - start
            summary = re.search(r"(\d+) records: (\d+) valid", done.stderr)
            assert summary is not None
            assert summary.group(1) == summary.group(2) == str(args.records)
            print(
                f"--jobs {jobs}: {wall:.2f} s wall, {args.records / wall:,.0f} records/s, "
                f"{total_moves / wall:,.0f} moves/s ({total_moves / wall / jobs:,.0f} per core)"
            )


if __name__ == "__main__":
    main()
