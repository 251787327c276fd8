"""Long fuzz run: hostile records, metadata, file names, databases and option values.

Usage: python tests/support/fuzz_records.py [--seconds 600] [--seed N] [--native-seconds S]

Half of the time goes to mutated records through the reader, verify and
import in this process (tests/core/test_fuzz.py's checks), with a CLI batch of
them every 2,000 inputs; the other half to the CLI scenarios of
tests/support/fuzz_scenarios.py in turn: hostile metadata through every command,
hostile file names, damaged and hostile database files, and out-of-range
option values.  It prints how many inputs went each way, the slowest
command, and the peak memory of this process and of the largest command it
ran.  Exits 1 on the first broken promise (a traceback, an exit status other
than 0/1/2, a raw control byte on output, a refused database that changed,
a hang), printing the case number that reproduces it.

``--native-seconds S`` first spends S seconds on differential cases for the
native core (tests/support/native_diff.py: Unicode seeds, move strings up to
1,000,000, boards up to 131072, mutated records), each compared field by
field with the pure-Python engine; ``--seconds 0`` runs only those.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from itertools import cycle
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: support.*

from support.fuzz_scenarios import SCENARIOS, STATS, BrokenPromiseError, run
from support.fuzzing import check_library, mutant
from support.native_diff import check_case
from twenty48_replay.core import native
from twenty48_replay.store import Store


def peak_mb(who: int) -> float:
    """Peak resident memory in MB (Linux reports KiB)."""
    return resource.getrusage(who).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--native-seconds", type=float, default=0)
    args = parser.parse_args()
    if args.native_seconds > 0 and not native_differences(args.native_seconds, args.seed):
        return 1
    if args.seconds <= 0:
        return 0
    counts: Counter[str] = Counter()
    started = time.monotonic()
    deadline = started + args.seconds
    scenarios = cycle(SCENARIOS.items())
    library_time = scenario_time = 0.0
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        store = Store(str(tmp / "fuzz.sqlite3"))
        case = args.seed
        batch: list[bytes] = []
        while time.monotonic() < deadline:
            case += 1
            rng = random.Random(case)
            began = time.monotonic()
            if library_time <= scenario_time:
                data = mutant(rng)
                try:
                    counts[check_library(data, store)] += 1
                except Exception as exc:
                    print(f"CRASH on case {case}: {type(exc).__name__}: {exc}", file=sys.stderr)
                    return 1
                batch.append(data.replace(b"\n", b" "))
                if len(batch) == 2000:
                    path = tmp / "batch.jsonl"
                    path.write_bytes(b"\n".join(batch) + b"\n")
                    batch.clear()
                    try:
                        run(["verify", "--json", str(path)], json_lines=True)
                        run(["import", "--db", str(tmp / "c.db"), str(path)])
                    except BrokenPromiseError as exc:
                        print(f"CLI FAILURE near case {case}: {exc}", file=sys.stderr)
                        return 1
                    counts["cli batches"] += 1
                library_time += time.monotonic() - began
            else:
                name, scenario = next(scenarios)
                try:
                    counts[scenario(rng, tmp)] += 1
                except BrokenPromiseError as exc:
                    print(f"FAILURE in scenario {name!r}, case {case}: {exc}", file=sys.stderr)
                    return 1
                scenario_time += time.monotonic() - began
        store.close()
    library = sum(counts[k] for k in ("valid", "invalid", "unreadable"))
    scenario_counts = ", ".join(f"{k} {counts[k]}" for k in SCENARIOS)
    print(
        f"{time.monotonic() - started:.0f} s from seed {args.seed}: {library} mutated records "
        f"(valid {counts['valid']}, invalid {counts['invalid']}, unreadable "
        f"{counts['unreadable']}) and {counts['cli batches']} CLI batches; scenarios: "
        f"{scenario_counts}; {int(STATS.get('commands', 0))} CLI commands, slowest "
        f"{STATS.get('slowest', 0.0):.1f} s; 0 tracebacks, 0 raw control bytes on output; peak "
        f"memory {peak_mb(resource.RUSAGE_SELF):.0f} MB here, "
        f"{peak_mb(resource.RUSAGE_CHILDREN):.0f} MB in the largest command"
    )
    return 0


def native_differences(seconds: float, seed: int) -> bool:
    """Native core against pure Python on random cases for ``seconds``; False on a difference."""
    if native.core is None:
        print("the native core is not built (or TWENTY48_ENGINE=python)", file=sys.stderr)
        return False
    counts: Counter[str] = Counter()
    started = time.monotonic()
    case = seed
    while time.monotonic() - started < seconds:
        case += 1
        try:
            counts[check_case(random.Random(case))] += 1
        except AssertionError as exc:
            print(f"NATIVE DIFFERENCE on case {case}: {exc}", file=sys.stderr)
            return False
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
    print(
        f"native core ({native.describe()}) against pure Python, "
        f"{time.monotonic() - started:.0f} s from seed {seed}: "
        f"{sum(counts.values())} cases ({kinds}); 0 differences"
    )
    return True


if __name__ == "__main__":
    raise SystemExit(main())
