"""Benchmark of the pictures: GIF export time and size, SVG time per step.

Run from the project root after installing:  python tests/bench/bench_pictures.py

The game is the first 1,000 moves of tests/data/long-2000.json (1,001 frames
with the opening board).  "cold" is the first GIF in the process: it includes
drawing and palettising the sprites (tiles, glyphs, arrows) for that size;
"warm" reuses them, as a second export of the same size would.  The goal is
under 5 MB and a few seconds for 1,000 moves.  Prints figures, asserts nothing.
"""

from __future__ import annotations

import resource
import time
from pathlib import Path

from twenty48_replay import Record, replay
from twenty48_replay.pictures import replay_gif, step_svg

ROOT = Path(__file__).resolve().parents[2]
MOVES = 1000


def main() -> None:
    record = Record.from_json((ROOT / "tests" / "data" / "long-2000.json").read_text("utf-8"))
    steps = list(replay(record))[: MOVES + 1]
    print(f"game: long-2000.json, first {MOVES:,} moves ({len(steps):,} frames)")
    for size in (240, 200, 320):
        start = time.perf_counter()
        data = replay_gif(steps, size=size)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        replay_gif(steps, size=size)
        warm = time.perf_counter() - start
        print(
            f"GIF size={size}: {len(data) / 1e6:.2f} MB "
            f"({len(data) / len(steps) / 1e3:.1f} kB/frame), "
            f"cold {cold:.2f} s, warm {warm:.2f} s"
        )
    start = time.perf_counter()
    total = sum(len(step_svg(step, MOVES)) for step in steps)
    elapsed = time.perf_counter() - start
    print(
        f"SVG: {elapsed / len(steps) * 1e3:.2f} ms per step, "
        f"{total / len(steps) / 1e3:.1f} kB per step"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
