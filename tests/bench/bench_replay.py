"""Benchmark of replay random access (issue 4): open a 20,000-move record, jump anywhere.

Run from the project root after installing:  python tests/bench/bench_replay.py

Uses tests/data/long-20000.json (a real 20,000-move game).  Prints the time
to read the record and build its timeline, the time of jumps to random
steps, and the wall time of `twenty48 replay FILE --at -1` including
interpreter start.  Prints figures, asserts nothing.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from twenty48_replay import Record
from twenty48_replay.core.timeline import Timeline

RECORD = Path(__file__).resolve().parents[1] / "data" / "long-20000.json"


def main() -> None:
    text = RECORD.read_text()
    opens = []
    for _ in range(5):
        start = time.perf_counter()
        timeline = Timeline(Record.from_json(text))
        last = timeline[-1]
        opens.append(time.perf_counter() - start)
    print(
        f"{len(timeline) - 1:,}-move record: read + timeline + jump to the last step: "
        f"median {statistics.median(opens) * 1000:.1f} ms, best {min(opens) * 1000:.1f} ms "
        f"(score {last.score}, max tile {last.max_tile})"
    )
    chooser = random.Random(4)
    jumps = []
    for _ in range(500):
        step = chooser.randrange(len(timeline))
        start = time.perf_counter()
        timeline[step]
        jumps.append(time.perf_counter() - start)
    print(
        f"random jumps (500): median {statistics.median(jumps) * 1000:.2f} ms, "
        f"max {max(jumps) * 1000:.2f} ms"
    )
    exe = Path(sys.executable).with_name("twenty48")
    walls = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(
            [str(exe), "replay", str(RECORD), "--at", "-1"], check=True, capture_output=True
        )
        walls.append(time.perf_counter() - start)
    print(
        f"`twenty48 replay FILE --at -1` wall time incl. start-up: "
        f"median {statistics.median(walls):.2f} s"
    )


if __name__ == "__main__":
    main()
