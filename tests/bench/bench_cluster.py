"""Benchmark of `twenty48 verify --scheduler` (issue 12): a Dask cluster versus the local pool.

Run from the project root after installing with the [cluster] extra:
    python tests/bench/bench_cluster.py [--size-mb 1000] [--workers 2] [--file PATH]

Builds (or reuses, when its size matches) a JSON Lines archive of valid
records: a pool of a few thousand real records (prefixes of random length of
the long solver games and the vector games, correct claims) repeated in a
shuffled order up to the size.  Then times, back to back, `twenty48 verify
--quiet --jobs N FILE` (the local pool) and `twenty48 verify --quiet
--scheduler ADDRESS FILE` on a LocalCluster of N single-threaded worker
processes started here, and prints both, the ratio, records/s and moves/s
per worker, the client's peak memory and the load average (the machine is
shared: other work slows either run).  Last, a projection (not a
measurement) of the time to verify 1 billion moves on clusters of N workers
at the measured rate per worker.  Prints figures, asserts only that every
record was counted valid.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from twenty48_replay import Record
from twenty48_replay.core.engine import run

ROOT = Path(__file__).resolve().parents[2]
POOL = 4000
SUMMARY = re.compile(r"(\d+) records: (\d+) valid")


def pool(count: int) -> list[tuple[bytes, int]]:
    """``count`` real records (JSON Lines, LF included) and their moves."""
    bases = [
        Record.from_json(p.read_text()) for p in sorted((ROOT / "tests" / "data").glob("*.json"))
    ]
    games = json.loads((ROOT / "schema" / "vectors" / "games.json").read_text())["games"]
    bases += [Record(g["seed"], g["moves"], 0) for g in games]
    chooser = random.Random(12)
    out = []
    for _ in range(count):
        base = chooser.choice(bases)
        moves = base.moves[: chooser.randint(1, min(len(base.moves), 2000))]
        record = Record(base.seed, moves, run(base.seed, moves).score)
        out.append((record.to_json().encode() + b"\n", len(moves)))
    return out


def build(path: Path, size: int) -> dict[str, int]:
    """The archive at ``path`` of at least ``size`` bytes, and its counts (reused when there)."""
    meta_path = path.with_name(path.name + ".meta.json")
    if path.exists() and meta_path.exists():
        meta: dict[str, int] = json.loads(meta_path.read_text())
        if meta.get("target") == size and path.stat().st_size == meta.get("bytes"):
            print(f"reusing {path}")
            return meta
    started = time.perf_counter()
    lines = pool(POOL)
    chooser = random.Random(13)
    records = moves = written = 0
    with path.open("wb", buffering=1 << 22) as out:
        while written < size:
            batch = chooser.sample(lines, len(lines))
            for line, count in batch:
                out.write(line)
                written += len(line)
                records += 1
                moves += count
                if written >= size:
                    break
    meta = {"target": size, "bytes": written, "records": records, "moves": moves}
    meta_path.write_text(json.dumps(meta))
    print(f"built {path} in {time.perf_counter() - started:.0f} s")
    return meta


def timed(command: list[str], records: int) -> tuple[float, float]:
    """Wall seconds and the process's peak memory (MB) of one verify run."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    err = process.stderr.read().decode()
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    found = SUMMARY.search(err)
    if os.waitstatus_to_exitcode(status) != 0 or found is None:
        sys.exit(f"verify failed: {' '.join(command)}\n{err}")
    assert found.group(1) == found.group(2) == str(records), err
    return wall, usage.ru_maxrss / 1024


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def local_run(exe: str, n: int, path: Path, records: int, moves: int) -> float:
    print(f"load average before local run: {load()}", flush=True)
    local, local_mb = timed([exe, "verify", "--quiet", "--jobs", str(n), str(path)], records)
    print(
        f"local  --jobs {n}: {local:8.1f} s  {records / local:9,.0f} records/s  "
        f"{moves / local:11,.0f} moves/s  ({moves / local / n:,.0f} per process), "
        f"main process peak {local_mb:.0f} MB; load after: {load()}",
        flush=True,
    )
    return local


def cluster_run(
    exe: str, n: int, path: Path, records: int, partition_bytes: int | None
) -> tuple[float, float]:
    import distributed

    # Any: distributed is only partly typed.
    local_cluster: Any = distributed.LocalCluster
    client_class: Any = distributed.Client
    with (
        local_cluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        client_class(cluster) as client,
    ):
        client.wait_for_workers(n)
        command = [exe, "verify", "--quiet", "--scheduler", cluster.scheduler_address]
        if partition_bytes:
            command += ["--partition-bytes", str(partition_bytes)]
        print(f"load average before cluster run: {load()}", flush=True)
        remote, remote_mb = timed([*command, str(path)], records)
    print(f"cluster run: {remote:.1f} s; load after: {load()}", flush=True)
    return remote, remote_mb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="local --jobs and cluster workers")
    parser.add_argument("--file", type=Path, default=None, help="where the archive is kept")
    parser.add_argument("--partition-bytes", type=int, default=None)
    parser.add_argument(
        "--cluster-first", action="store_true", help="run the cluster before the local pool"
    )
    args = parser.parse_args()
    path = args.file or Path("/tmp") / f"twenty48-bench-{args.size_mb}mb.jsonl"
    meta = build(path, args.size_mb * 1_000_000)
    records, moves, size = meta["records"], meta["moves"], meta["bytes"]
    print(
        f"archive: {size / 1e6:,.0f} MB, {records:,} records, {moves:,} moves "
        f"(mean {moves // records}); {os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M')}"
    )
    exe = str(Path(sys.executable).with_name("twenty48"))
    n = args.workers

    if args.cluster_first:
        remote, remote_mb = cluster_run(exe, n, path, records, args.partition_bytes)
        local = local_run(exe, n, path, records, moves)
    else:
        local = local_run(exe, n, path, records, moves)
        remote, remote_mb = cluster_run(exe, n, path, records, args.partition_bytes)
    per_worker = moves / remote / n
    print(
        f"cluster {n} workers: {remote:6.1f} s  {records / remote:9,.0f} records/s  "
        f"{moves / remote:11,.0f} moves/s  ({records / remote / n:,.0f} records/s, "
        f"{per_worker:,.0f} moves/s per worker), client peak {remote_mb:.0f} MB"
    )
    print(f"cluster / local wall time: {remote / local:.3f} (goal <= 1.10)")
    print("PROJECTION (not measured): 1 billion moves at the measured rate per worker,")
    print("assuming workers scale linearly (they share nothing but the scheduler):")
    for workers in (2, 8, 32, 128, 512):
        seconds = 1e9 / (per_worker * workers)
        print(f"  {workers:4d} workers: {seconds:8,.0f} s ({seconds / 60:6.1f} min)")


if __name__ == "__main__":
    main()
