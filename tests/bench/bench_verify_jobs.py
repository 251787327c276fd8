"""How ``verify --jobs 2`` scales over ``--jobs 1`` on full games, and what bounds it.

Run from the project root after installing (native core built):
    python tests/bench/bench_verify_jobs.py [--games 3000] [--corpus FILE] [--runs 5]

1. A corpus of full games (tests/bench/native_limit.c's player, seeds ``corpus-0`` ...),
   kept at ``--corpus`` so later runs reuse it.
2. The machine's own ceiling: native_limit.c's tight C replay loop over the corpus, one
   copy alone, then two copies at once; ``2 * alone / together`` is how much two busy
   cores give here (a shared host's boost clock and caches, not the program).
3. The start-up of a whole ``twenty48 verify`` process (one record).
4. ``twenty48 verify --quiet --jobs 1`` and ``--jobs 2`` on the corpus, alternating,
   ``--runs`` pairs: wall time, CPU time of the process and its workers, and the ratio
   of each pair; with Amdahl's bound from the start-up, ``(S + W) / (S + W / 2)``.

Prints figures with the load average before and after; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "twenty48_replay" / "_native"
TWENTY48 = Path(sys.executable).with_name("twenty48")


def load() -> str:
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


def build_limit(out: Path) -> Path:
    """native_limit.c with the flags the extension is built with (-O2, C11)."""
    sources = [ROOT / "tests" / "bench" / "native_limit.c", NATIVE / "t48_rows.c"]
    sources.append(NATIVE / "t48_sha256.c")
    compiler = [os.environ.get("CC", "cc"), "-std=c11", "-O2", "-I", str(NATIVE)]
    subprocess.run([*compiler, *map(str, sources), "-o", str(out)], check=True)
    return out


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of a whole process and its children; it must succeed."""
    cpu = children_cpu()
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started, children_cpu() - cpu


def together(commands: list[list[str]]) -> float:
    """Wall seconds until every one of ``commands``, started at once, has ended."""
    started = time.perf_counter()
    running = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in commands]
    if any(process.wait() != 0 for process in running):
        raise SystemExit("a command failed")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3_000)
    parser.add_argument(
        "--corpus", type=Path, default=Path(tempfile.gettempdir()) / "t48-corpus-3000.jsonl"
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M')} · {os.cpu_count()} cores · {load()}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        limit = build_limit(tmp / "native_limit")
        if not args.corpus.exists():
            subprocess.run([str(limit), "corpus", str(args.games), str(args.corpus)], check=True)
        lines = args.corpus.read_bytes().splitlines()
        moves = sum(len(line.split(b'"moves":"', 1)[1].split(b'"', 1)[0]) for line in lines)
        print(f"corpus {args.corpus}: {len(lines):,} games, {moves:,} moves")

        alone = min(together([[str(limit), "verify", str(args.corpus)]]) for _ in range(3))
        both = min(together([[str(limit), "verify", str(args.corpus)]] * 2) for _ in range(3))
        print(
            f"machine ceiling (C loop, best of 3): one copy {alone:.3f} s, two at once "
            f"{both:.3f} s: two cores give {2 * alone / both:.2f}x"
        )

        one = tmp / "one.jsonl"
        one.write_bytes(lines[0] + b"\n")
        start_up = statistics.median(
            timed([str(TWENTY48), "verify", "--quiet", "--jobs", "1", str(one)])[0]
            for _ in range(7)
        )
        print(f"start-up of a whole verify process (one record, median of 7): {start_up:.3f} s")

        walls: dict[int, list[float]] = {1: [], 2: []}
        cpus: dict[int, list[float]] = {1: [], 2: []}
        ratios = []
        for _ in range(args.runs):
            for jobs in (1, 2):
                command = [str(TWENTY48), "verify", "--quiet", "--jobs", str(jobs)]
                wall, cpu = timed([*command, str(args.corpus)])
                walls[jobs].append(wall)
                cpus[jobs].append(cpu)
            ratios.append(walls[1][-1] / walls[2][-1])
        for jobs in (1, 2):
            print(
                f"--jobs {jobs}: wall min/median/max {min(walls[jobs]):.3f} / "
                f"{statistics.median(walls[jobs]):.3f} / {max(walls[jobs]):.3f} s, "
                f"CPU median {statistics.median(cpus[jobs]):.3f} s, "
                f"{moves / statistics.median(walls[jobs]):,.0f} moves/s"
            )
        work = statistics.median(walls[1]) - start_up
        bound = (start_up + work) / (start_up + work / 2)
        print(
            f"speed-up per pair: {', '.join(f'{r:.2f}' for r in ratios)}; median "
            f"{statistics.median(ratios):.2f}x; Amdahl's bound from the start-up "
            f"{bound:.2f}x; CPU {statistics.median(cpus[2]) / statistics.median(cpus[1]):.2f}"
            " of --jobs 1"
        )
    print(load())


if __name__ == "__main__":
    main()
