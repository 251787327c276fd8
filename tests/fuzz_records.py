"""Long fuzz run: mutated records through the reader, verify, import and the CLI.

Usage: python tests/fuzz_records.py [--seconds 600] [--seed N]

Runs the checks of tests/test_fuzz.py in a loop until time is up, plus a CLI
batch every few thousand inputs, and prints how many inputs went each way.
Exits 1 on the first crash (any exception other than the documented ones,
a traceback from the CLI, or an exit code other than 0/1/2), printing the
seed that reproduces it.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzzing import mutant
from test_fuzz import check_library

from twenty48_replay.store import Store


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    exe = Path(sys.executable).with_name("twenty48")
    counts: Counter[str] = Counter()
    deadline = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "fuzz.sqlite3"))
        case = args.seed
        batch: list[bytes] = []
        while time.monotonic() < deadline:
            case += 1
            data = mutant(random.Random(case))
            try:
                counts[check_library(data, store)] += 1
            except Exception as exc:
                print(f"CRASH on case {case}: {type(exc).__name__}: {exc}", file=sys.stderr)
                return 1
            batch.append(data.replace(b"\n", b" "))
            if len(batch) == 2000:
                path = Path(tmp) / "batch.jsonl"
                path.write_bytes(b"\n".join(batch) + b"\n")
                batch.clear()
                for command in (["verify", "--json"], ["import", "--db", str(Path(tmp) / "c.db")]):
                    done = subprocess.run(
                        [str(exe), *command, str(path)], capture_output=True, text=True, check=False
                    )
                    if done.returncode not in (0, 1, 2) or "Traceback" in done.stderr:
                        print(
                            f"CLI CRASH near case {case}: {command}: {done.stderr[-2000:]}",
                            file=sys.stderr,
                        )
                        return 1
                    counts["cli batches"] += 1
        store.close()
    total = sum(v for k, v in counts.items() if k != "cli batches")
    print(
        f"{total} inputs in {args.seconds:.0f} s from seed {args.seed}: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        + "; 0 crashes"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
