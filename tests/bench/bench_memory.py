"""Memory of `twenty48 verify` on big JSON Lines files (issue 6: it must stay flat).

Run from the project root after installing:
    python tests/bench/bench_memory.py [--sizes 50,200] [--jobs 2]

Writes JSON Lines files of the given sizes in MB (real records: short
prefixes of the vector games, each with its correct score), verifies each
with the real CLI and prints the peak resident memory of the whole process
tree's largest process (GNU time's %M).  Flat means the
peak does not grow with the file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from twenty48_replay import Record
from twenty48_replay.engine import run

ROOT = Path(__file__).resolve().parents[2]


def lines() -> list[bytes]:
    games = json.loads((ROOT / "schema" / "vectors" / "games.json").read_text())["games"]
    out = []
    for game in games:
        for length in range(5, 60, 3):
            moves = game["moves"][:length]
            record = Record(game["seed"], moves, run(game["seed"], moves).score)
            out.append(record.to_json().encode() + b"\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="50,200")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    pool = lines()
    exe = Path(sys.executable).with_name("twenty48")
    with tempfile.TemporaryDirectory() as tmp:
        for size_mb in (int(x) for x in args.sizes.split(",")):
            path = Path(tmp) / f"{size_mb}.jsonl"
            with path.open("wb") as f:
                written = count = 0
                while written < size_mb * 1_000_000:
                    line = pool[count % len(pool)]
                    f.write(line)
                    written += len(line)
                    count += 1
            start = time.perf_counter()
            done = subprocess.run(
                [
                    "/usr/bin/time",
                    "-f",
                    "%M",
                    str(exe),
                    "verify",
                    "--quiet",
                    "--jobs",
                    str(args.jobs),
                    str(path),
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.perf_counter() - start
            peak_main_kb = int(done.stderr.strip().splitlines()[-1])
            print(
                f"{size_mb:>5} MB, {count:,} records: exit {done.returncode}, {wall:.1f} s, "
                f"peak RSS (largest process of the tree) {peak_main_kb / 1024:.0f} MB"
            )
            summary = [x for x in done.stderr.splitlines() if "records:" in x]
            print("       " + (summary[0] if summary else done.stderr[-300:]))


if __name__ == "__main__":
    main()
