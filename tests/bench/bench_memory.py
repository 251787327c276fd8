"""Memory of `twenty48 verify`: flat on big files, bounded on the worst single record.

Run from the project root after installing:
    python tests/bench/bench_memory.py [--sizes 50,200] [--jobs 2]
    python tests/bench/bench_memory.py --worst [--jobs 3]

The first form writes JSON Lines files of the given sizes in MB (real
records: short prefixes of the vector games, each with its correct score),
verifies each with the real CLI and prints the peak resident memory of the
whole process tree's largest process (GNU time's %M).  Flat means the peak
does not grow with the file.

``--worst`` (issue 9, section 6) builds the costliest records that are
still inside every limit of SPEC 7 (16 MiB, 1,000,000 JSON values, 100
levels): the value budget spent on empty arrays, empty objects, one-member
objects with distinct keys, one object with a million keys, distinct short
strings, floats, integers, deep nesting; one long string that forces the
widest (4 bytes a character) text; a 16-million-digit integer and float; and
the value budget plus a long 4-byte-wide string together.  Each is verified
alone (in-process) and as ``--jobs`` lines of one JSON Lines file, so each
worker holds one; the figure is the largest process's peak RSS.  The goal is
below 512 MB per worker.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from twenty48_replay import Record
from twenty48_replay.core.engine import run
from twenty48_replay.core.record import MAX_INPUT_BYTES, MAX_VALUES

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


HEAD = b'{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":'
#: Values the record itself spends: the object, its five fields and "x".
OWN_VALUES = 7


def _budget(per_item: int) -> int:
    return (MAX_VALUES - OWN_VALUES) // per_item


def _array(items: Iterable[bytes]) -> bytes:
    return b"[" + b",".join(items) + b"]"


def _pad(body: bytes, wide: bool) -> bytes:
    """``body`` as the value of "x", plus a string filling the record to exactly 16 MiB."""
    room = MAX_INPUT_BYTES - len(HEAD) - len(body) - len(b',"y":""}')
    filler = ("\U0001f3b2" + "a" * (room - 4)).encode() if wide else b"a" * room
    return HEAD + body + b',"y":"' + filler + b'"}'


def worst_cases() -> dict[str, bytes]:
    """Records at the edge of the limits, each costly to parse in its own way."""
    n = _budget(1) - 1  # "y" spends one value
    deep = b"[" * 98 + b"]" * 98  # 98 levels inside "x", 100 with the record and the array
    return {
        "empty arrays": _pad(_array([b"[]"] * n), False),
        "empty objects": _pad(_array([b"{}"] * n), False),
        "1-member objects, distinct keys": _pad(
            _array(b'{"k%d":1000}' % i for i in range(n // 2)), False
        ),
        "1 object, distinct keys": _pad(
            b"{" + b",".join(b'"k%d":1000' % i for i in range(n - 1)) + b"}", False
        ),
        "distinct short strings": _pad(_array(b'"s%d"' % i for i in range(n)), False),
        "floats": _pad(_array(b"%d.5" % i for i in range(n)), False),
        "integers": _pad(_array(b"%d" % (1000 + i) for i in range(n)), False),
        "nesting 100 levels": _pad(_array([deep] * (n // 98)), False),
        "one 16 MiB string, 4-byte text": _pad(b"0", True),
        "integer of 16 million digits": HEAD
        + b"1"
        + b"0" * (MAX_INPUT_BYTES - len(HEAD) - 2)
        + b"}",
        "float of 16 million digits": HEAD
        + b"1."
        + b"1" * (MAX_INPUT_BYTES - len(HEAD) - 3)
        + b"}",
        "1-member objects + 4-byte text": _pad(
            _array(b'{"k%d":1000}' % i for i in range(n // 2)), True
        ),
    }


def peak_rss(args: list[str]) -> tuple[int, float, str]:
    """(exit code, peak RSS in MB of the largest process, stderr) of one CLI run."""
    exe = Path(sys.executable).with_name("twenty48")
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", str(exe), *args], capture_output=True, text=True, check=False
    )
    *rest, last = done.stderr.strip().splitlines()
    return done.returncode, int(last) / 1024, "\n".join(rest)


def worst(jobs: int) -> None:
    print(f"limits: {MAX_INPUT_BYTES:,} bytes, {MAX_VALUES:,} values; {jobs} jobs")
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in worst_cases().items():
            assert len(data) <= MAX_INPUT_BYTES, name
            one = Path(tmp) / "one.json"
            one.write_bytes(data)
            start = time.perf_counter()
            code, alone, err = peak_rss(["verify", "--json", str(one)])
            wall = time.perf_counter() - start
            many = Path(tmp) / "many.jsonl"
            many.write_bytes((data + b"\n") * jobs)
            code_many, per_worker, _ = peak_rss(["verify", "--json", "-j", str(jobs), str(many)])
            exe = Path(sys.executable).with_name("twenty48")
            piped = subprocess.run(
                ["/usr/bin/time", "-f", "%M", str(exe), "verify", "--json", "-"],
                input=data,
                capture_output=True,
                check=False,
            )
            stdin_mb = int(piped.stderr.decode().strip().splitlines()[-1]) / 1024
            print(
                f"{name:34} {len(data) / 2**20:5.1f} MiB  exit {code}/{code_many}  "
                f"alone {alone:5.0f} MB ({wall:4.1f} s), on stdin {stdin_mb:5.0f} MB  "
                f"{jobs} lines, -j {jobs}: largest process {per_worker:5.0f} MB"
            )
            if code not in (0, 1):
                print("       " + err[-200:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="50,200")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--worst", action="store_true", help="the costliest in-limit records")
    args = parser.parse_args()
    if args.worst:
        worst(args.jobs)
        return
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
