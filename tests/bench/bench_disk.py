"""What a durable commit costs on this disk, with nothing else running (issue 18).

Every move the server acknowledges waits for its commit's sync of the
write-ahead log, so a stall of the disk's sync is a stall of every move in
flight, whatever the server does.  This measures the disk alone, the way
bench_abuse.py's probe does beside the server:

1. **sync**: rewrite 4 KiB of a 1 MiB file in place and ``fdatasync`` it,
   every ``--interval`` seconds (default 20 ms), for ``--seconds``: what a
   commit of one batch of moves costs (a rewrite in place, as SQLite's log
   is, so no file system metadata is written);
2. **write only** (``--direct``, Linux): the same 4 KiB written with
   ``O_DIRECT`` and no sync at all, which shows whether the device stalls on
   a plain write too (then no choice of sync could avoid the stalls).

It prints, per part, the count, p50 / p99 / max in milliseconds, how many
took over 50 and over 100 ms, and the times of the stalls (seconds from the
start), then the load average.  For the syncs it also gives what they imply
for a server however fast: a stall of D seconds keeps every move that comes
in during its first D - 0.1 s waiting over 100 ms, so a steady stream of
moves has at least sum(max(0, D - 0.1)) / seconds of them acknowledged
later than 100 ms (a lower bound: the next commit and the 20 ms between
probes add to it); a p99 under 100 ms needs that under 1%.  It asserts
nothing.

    python tests/bench/bench_disk.py                       # 60 s next to the default database
    python tests/bench/bench_disk.py --seconds 30 --direct --folder /var/lib/twenty48
"""

from __future__ import annotations

import argparse
import mmap
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BLOCK = 4096
BLOCKS = 256  # a 1 MiB file, rewritten block by block


def load() -> str:
    """The 1, 5 and 15 minute load averages, as uptime prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def timed_loop(
    seconds: float, interval: float, step: Callable[[int], None]
) -> list[tuple[float, float]]:
    """``step(i)`` every ``interval`` s for ``seconds``: (start offset, duration) of each."""
    times: list[tuple[float, float]] = []
    start = time.perf_counter()
    i = 0
    while (now := time.perf_counter()) - start < seconds:
        step(i)
        times.append((now - start, time.perf_counter() - now))
        i += 1
        time.sleep(interval)
    return times


def synced(folder: Path, seconds: float, interval: float) -> list[tuple[float, float]]:
    """4 KiB rewritten in place and ``fdatasync``-ed: the time of the sync (and its write)."""
    path = folder / "bench-disk-sync"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.pwrite(fd, b"\0" * (BLOCK * BLOCKS), 0)
        os.fsync(fd)
        block = b"s" * BLOCK

        def step(i: int) -> None:
            os.pwrite(fd, block, (i % BLOCKS) * BLOCK)
            os.fdatasync(fd)

        return timed_loop(seconds, interval, step)
    finally:
        os.close(fd)
        path.unlink()


def direct(folder: Path, seconds: float, interval: float) -> list[tuple[float, float]]:
    """4 KiB written with ``O_DIRECT`` (past the page cache) and never synced."""
    path = folder / "bench-disk-direct"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o600)
    try:
        os.ftruncate(fd, BLOCK * BLOCKS)
        os.fsync(fd)
        buffer = mmap.mmap(-1, BLOCK)  # page-aligned, as O_DIRECT requires
        buffer.write(b"d" * BLOCK)

        def step(i: int) -> None:
            os.pwritev(fd, [buffer], (i % BLOCKS) * BLOCK)

        return timed_loop(seconds, interval, step)
    finally:
        os.close(fd)
        path.unlink()


def report(name: str, times: list[tuple[float, float]]) -> None:
    ms = sorted(1000 * duration for _at, duration in times)
    if not ms:
        print(f"{name}: nothing measured")
        return
    stalls = [(at, 1000 * duration) for at, duration in times if duration > 0.05]
    print(
        f"{name}: {len(ms)} in all; p50 {ms[len(ms) // 2]:.2f} ms, "
        f"p99 {ms[int(len(ms) * 0.99)]:.1f} ms, max {ms[-1]:.1f} ms; "
        f"{sum(m > 50 for m in ms)} over 50 ms, {sum(m > 100 for m in ms)} over 100 ms"
    )
    if stalls:
        shown = ", ".join(f"{at:.1f} s: {took:.0f} ms" for at, took in stalls)
        print(f"  stalls over 50 ms (when: how long): {shown}")


def implied_late_share(times: list[tuple[float, float]], seconds: float) -> float:
    """The least share of a steady stream of moves that waits over 100 ms for these syncs."""
    return sum(max(0.0, duration - 0.1) for _at, duration in times) / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each part")
    parser.add_argument("--interval", type=float, default=0.02, help="seconds between writes")
    parser.add_argument(
        "--folder",
        type=Path,
        default=None,
        help="where the test file goes (default: the system's temporary folder)",
    )
    parser.add_argument(
        "--direct", action="store_true", help="also time O_DIRECT writes with no sync"
    )
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 3600 or not 0 <= args.interval <= 10:
        parser.error("--seconds must be in (0, 3600] and --interval in [0, 10]")
    folder = args.folder or Path(tempfile.gettempdir())
    if not folder.is_dir():
        parser.error(f"--folder {folder}: not a folder")
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')}, load average {load()}, folder {folder}")
    try:
        syncs = synced(folder, args.seconds, args.interval)
        report("fdatasync of 4 KiB rewritten in place", syncs)
        share = implied_late_share(syncs, args.seconds)
        print(
            f"  so a server however fast, each move waiting for such a sync, acknowledges at"
            f" least {100 * share:.2f}% of a steady stream of moves later than 100 ms"
            f" (a p99 under 100 ms needs under 1%)"
        )
        if args.direct:
            report("O_DIRECT write of 4 KiB, no sync", direct(folder, args.seconds, args.interval))
    except OSError as exc:
        print(f"{folder}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')}, load average {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
