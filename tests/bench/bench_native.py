"""Benchmark of the native core (issue 21): verify against the machine's limit, and what it lifts.

Run from the project root after installing (a regular install, or the editable one):
    python tests/bench/bench_native.py [--games 10000] [--corpus FILE] [--runs 3] [--cpu 1]

1. A corpus of full games with distinct seeds (to game over; seeds ``corpus-0`` ...),
   played by tests/bench/native_limit.c's look-ahead player and kept at ``--corpus``.
2. The limit: native_limit.c verifying the corpus (the native core's own replay loop in
   a tight C loop, with a minimal JSON reader), whole process, pinned to one core.
3. ``twenty48 verify --jobs 1 --quiet CORPUS`` with the native core, whole process, on
   the same core, alternating with the limit, ``--runs`` times; the ratio of each pair.
4. The pure-Python engine on the first ``--python-games`` records (it is 15x slower).
5. ``replay()`` Steps per second, in this process, both engines where available.
6. ``twenty48 import`` into an empty SQLite file and ``twenty48 check`` of it, on the
   first ``--store-games`` records, each engine.
7. The server's move path: tests/bench/bench_server.py (a real ``twenty48 serve`` on
   SQLite, one player alone, then ``--server-players`` players in a closed loop), each
   engine; the server process inherits ``TWENTY48_ENGINE``.
8. The cluster: tests/bench/bench_cluster.py (``verify --jobs 2`` against a Dask
   LocalCluster of 2 workers) on a ``--cluster-mb`` archive, each engine; the workers
   inherit ``TWENTY48_ENGINE``.  ``--cluster-mb 0`` or ``--server-players 0`` skips one.

It prints figures with the load average before and after, and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "twenty48_replay" / "_native"
BENCH = Path(__file__).resolve().parent
LIMIT_SOURCE = BENCH / "native_limit.c"
TWENTY48 = Path(sys.executable).with_name("twenty48")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def pinned(cpu: int | None) -> list[str]:
    return ["taskset", "-c", str(cpu)] if cpu is not None and shutil.which("taskset") else []


def build_limit(out: Path) -> Path:
    """native_limit.c with the flags setup.py gives the extension (-O2, C11)."""
    cc = os.environ.get("CC", "cc")
    sources = [LIMIT_SOURCE, NATIVE / "t48_rows.c", NATIVE / "t48_sha256.c"]
    subprocess.run(
        [cc, "-std=c11", "-O2", "-I", str(NATIVE), *map(str, sources), "-o", str(out)], check=True
    )
    return out


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall seconds of a whole process, and what it printed (stdout + stderr)."""
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-500:]}")
    return seconds, done.stdout + done.stderr


def corpus_moves(path: Path) -> tuple[int, int]:
    """(records, moves) of a corpus, counted from its JSON."""
    import json

    records = moves = 0
    with path.open("rb") as lines:
        for line in lines:
            if line.strip():
                records += 1
                moves += len(json.loads(line)["moves"])
    return records, moves


def head(path: Path, count: int, out: Path) -> Path:
    with path.open("rb") as source, out.open("wb") as sink:
        for n, line in enumerate(source):
            if n >= count:
                break
            sink.write(line)
    return out


def steps_per_second(path: Path, count: int) -> float:
    """replay() Steps/s over the first ``count`` records, in this process."""
    from twenty48_replay import Record, replay

    records = [Record.from_json(line) for line in path.read_bytes().splitlines()[:count]]
    started = time.perf_counter()
    steps = sum(1 for record in records for _step in replay(record))
    return steps / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument(
        "--corpus", type=Path, default=Path(tempfile.gettempdir()) / "t48-corpus.jsonl"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=1, help="core to pin to (taskset); -1: none")
    parser.add_argument("--python-games", type=int, default=500)
    parser.add_argument("--store-games", type=int, default=2_000)
    parser.add_argument("--steps-games", type=int, default=300)
    parser.add_argument("--server-players", type=int, default=50)
    parser.add_argument("--cluster-mb", type=int, default=50)
    args = parser.parse_args()
    cpu = None if args.cpu < 0 else args.cpu
    print(f"{time.strftime('%Y-%m-%d %H:%M')} · {os.cpu_count()} cores · {load()}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        limit = build_limit(tmp / "native_limit")
        if not args.corpus.exists():
            started = time.perf_counter()
            subprocess.run([str(limit), "corpus", str(args.games), str(args.corpus)], check=True)
            print(f"corpus made in {time.perf_counter() - started:.1f} s")
        records, moves = corpus_moves(args.corpus)
        size = args.corpus.stat().st_size
        print(
            f"corpus {args.corpus}: {records:,} full games, {moves:,} moves "
            f"(mean {moves // max(records, 1):,}), {size / 1e6:.1f} MB"
        )

        print(
            f"\n-- verify, whole process, {'core ' + str(cpu) if cpu is not None else 'unpinned'}"
        )
        ratios, ours, limits = [], [], []
        for run in range(1, args.runs + 1):
            limit_s, limit_out = timed([*pinned(cpu), str(limit), "verify", str(args.corpus)])
            assert f"{records} records: {records} valid" in limit_out, limit_out
            verify_s, verify_out = timed(
                [*pinned(cpu), str(TWENTY48), "verify", "--jobs", "1", "--quiet", str(args.corpus)],
                env={"TWENTY48_ENGINE": "native"},
            )
            assert f"{records} records: {records} valid" in verify_out.replace(",", ""), verify_out
            found = re.search(r"engine ([^·]+)", verify_out)
            label = found.group(1).strip() if found else "?"
            ours.append(moves / verify_s)
            limits.append(moves / limit_s)
            ratios.append(limit_s / verify_s)
            print(
                f"run {run}: limit {limit_s:.2f} s = {moves / limit_s / 1e6:.2f} M moves/s; "
                f"twenty48 verify ({label}) {verify_s:.2f} s = "
                f"{moves / verify_s / 1e6:.2f} M moves/s, {records / verify_s:,.0f} records/s; "
                f"ratio {limit_s / verify_s:.2f}"
            )
        print(
            f"verify: {min(ours) / 1e6:.2f}-{max(ours) / 1e6:.2f} M moves/s; limit "
            f"{min(limits) / 1e6:.2f}-{max(limits) / 1e6:.2f} M moves/s; ratio "
            f"{min(ratios):.2f}-{max(ratios):.2f} (median {statistics.median(ratios):.2f}) · "
            f"{load()}"
        )

        small = head(args.corpus, args.python_games, tmp / "python.jsonl")
        small_records, small_moves = corpus_moves(small)
        for engine_name in ("native", "python"):
            seconds, _out = timed(
                [*pinned(cpu), str(TWENTY48), "verify", "--jobs", "1", "--quiet", str(small)],
                env={"TWENTY48_ENGINE": engine_name},
            )
            print(
                f"verify, first {small_records:,} games ({small_moves:,} moves), {engine_name}: "
                f"{seconds:.2f} s, {small_moves / seconds / 1e6:.3f} M moves/s"
            )

        print("\n-- replay() Steps per second (this process)")
        from twenty48_replay.core import engine, native

        print(
            f"{native.describe()}: {steps_per_second(args.corpus, args.steps_games):,.0f} Steps/s"
        )
        if native.core is not None:
            saved = engine.steps
            engine.steps = engine.python_steps
            try:
                rate = steps_per_second(args.corpus, args.steps_games)
            finally:
                engine.steps = saved
            print(f"python: {rate:,.0f} Steps/s")

        store_corpus = head(args.corpus, args.store_games, tmp / "store.jsonl")
        store_records, store_moves = corpus_moves(store_corpus)
        print(
            f"\n-- import and check, first {store_records:,} games ({store_moves:,} moves), SQLite"
        )
        for engine_name in ("native", "python"):
            database = tmp / f"{engine_name}.sqlite3"
            env = {"TWENTY48_ENGINE": engine_name}
            seconds, _out = timed(
                [str(TWENTY48), "import", "--db", str(database), str(store_corpus)], env=env
            )
            check_s, _out = timed([str(TWENTY48), "check", "--db", str(database)], env=env)
            print(
                f"{engine_name}: import {seconds:.2f} s = {store_moves / seconds:,.0f} moves/s; "
                f"check {check_s:.2f} s = {store_moves / check_s:,.0f} moves/s"
            )
        if args.server_players:
            print("\n-- the server's move path (tests/bench/bench_server.py, SQLite)")
            for engine_name in ("native", "python"):
                print(f"[TWENTY48_ENGINE={engine_name}]", flush=True)
                subprocess.run(
                    [sys.executable, str(BENCH / "bench_server.py"), "--players",
                     str(args.server_players), "--seconds", "8", "--warmup", "2",
                     "--single", "300", "--rates", "0"],
                    env={**os.environ, "TWENTY48_ENGINE": engine_name},
                    check=True,
                )  # fmt: skip
        if args.cluster_mb:
            print(f"\n-- the cluster (tests/bench/bench_cluster.py, {args.cluster_mb} MB)")
            archive = tmp / "cluster.jsonl"
            for engine_name in ("native", "python"):
                print(f"[TWENTY48_ENGINE={engine_name}]", flush=True)
                subprocess.run(
                    [sys.executable, str(BENCH / "bench_cluster.py"), "--size-mb",
                     str(args.cluster_mb), "--file", str(archive)],
                    env={**os.environ, "TWENTY48_ENGINE": engine_name},
                    check=True,
                )  # fmt: skip
    print(f"\n{load()}")


if __name__ == "__main__":
    main()
