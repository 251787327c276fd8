"""Benchmark of ``twenty48 serve``: acknowledged durable moves per second and latency.

Starts a real server (``--no-access-log --no-analysis --rate-limits off``) on SQLite (a file in
a temporary folder, ``synchronous=FULL``) and/or PostgreSQL (``--pg URL``),
then:

* **load**: ``--players`` simulated players (default 200), each on its own
  keep-alive HTTP/1.1 connection from its own loopback address (127.0.1.1,
  127.0.1.2, ...: serve bounds the connections of one address).  With ``--rate
  R`` each player plays R moves per second (a move every 1/R s from a random
  phase; a person plays 2-4, so the default 10 is a fast player, and 200 of
  them offer 2,000 moves/s); a move is never sent before the previous one is
  acknowledged, so if the server falls behind, the rate drops instead of
  piling up.  With ``--rate 0`` every player sends its next move as soon as
  the previous one is acknowledged (a closed loop: the most the server
  sustains, latency = players / throughput).  A player whose game ends starts
  a new one.  Moves are chosen from the board in each answer (first of L, D,
  R, U that changes it).  After ``--warmup`` seconds, acknowledged moves and
  their latencies are counted for ``--seconds`` seconds.
* **single**: one player alone, ``--single`` moves one after another: the
  latency of one move with nothing else running.

The load generator is asyncio (uvloop when installed) over raw sockets with
a minimal HTTP/1.1 reader, so its own CPU cost stays low on a 2-core machine
that also runs the server; its CPU time and the server's are printed.

    python tests/bench/bench_server.py                 # SQLite: rate 10/player, then closed loop
    python tests/bench/bench_server.py --pg URL        # and PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support.server_harness import ServerProcess  # noqa: E402

from twenty48_replay.core.board import Board, Direction  # noqa: E402

T = TypeVar("T")
ORDER = (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP)


def next_move(rows: list[list[int]]) -> str | None:
    board = Board.from_rows(rows)
    for direction in ORDER:
        if board.slide(direction).changed:
            return direction.letter
    return None


def source_address(i: int) -> str:
    """Player ``i``'s loopback address (127.0.1.1, ...): serve bounds connections per address."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


class Player:
    """One simulated player on one keep-alive connection, from its own source address."""

    def __init__(self, host: str, port: int, source: str | None = None) -> None:
        self.host = host
        self.port = port
        self.source = source
        self.latencies: list[float] = []
        self.counting = False
        self.errors = 0

    async def connect(self) -> None:
        local = (self.source, 0) if self.source else None
        self.reader, self.writer = await asyncio.open_connection(
            self.host, self.port, local_addr=local
        )

    async def call(
        self, method: str, path: str, body: dict[str, object] | None, token: str | None
    ) -> tuple[int, dict[str, Any]]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}",
            f"Content-Length: {len(payload)}",
        ]
        if token:
            head.append(f"Authorization: Bearer {token}")
        if body is not None or method == "POST":
            head.append("Content-Type: application/json")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        return status, json.loads(data)

    async def new_game(self) -> None:
        _, created = await self.call("POST", "/api/games", {"player": "bench"}, None)
        self.id, self.token = created["id"], str(created["token"])
        _, opening = await self.call(
            "POST", f"/api/games/{self.id}/start", {"client_seed": "bench"}, self.token
        )
        self.rows: list[list[int]] = opening["board"]
        self.n = 1

    async def run(self, stop: asyncio.Event, rate: float = 0.0) -> int:
        await self.connect()
        await self.new_game()
        moves = 0
        loop = asyncio.get_running_loop()
        period = 1.0 / rate if rate > 0 else 0.0
        due = loop.time() + random.uniform(0, period)
        while not stop.is_set():
            if period:
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                due = max(due + period, loop.time())
            letter = next_move(self.rows)
            if letter is None:
                await self.new_game()
                continue
            start = time.perf_counter()
            status, answer = await self.call(
                "POST", f"/api/games/{self.id}/moves", {"move": letter, "n": self.n}, self.token
            )
            elapsed = time.perf_counter() - start
            if status != 200:
                self.errors += 1
                await self.new_game()
                continue
            if self.counting:
                self.latencies.append(elapsed)
                moves += 1
            self.n += 1
            self.rows = answer["board"]
            if answer.get("finished"):
                await self.new_game()
        self.writer.close()
        return moves


async def load(
    host: str, port: int, players: int, warmup: float, seconds: float, rate: float
) -> dict[str, float]:
    crowd = [Player(host, port, source_address(i)) for i in range(players)]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.run(stop, rate)) for p in crowd]
    await asyncio.sleep(warmup)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    for p in crowd:
        p.counting = True
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    for p in crowd:
        p.counting = False
    elapsed = time.perf_counter() - start
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    stop.set()
    counts = await asyncio.gather(*tasks)
    latencies = sorted(x for p in crowd for x in p.latencies)
    total = sum(counts)
    return {
        "moves": total,
        "moves_per_s": total / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
        "max_ms": 1000 * latencies[-1],
        "errors": sum(p.errors for p in crowd),
        "generator_cpu_s": (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime),
        "seconds": elapsed,
    }


async def single(host: str, port: int, count: int) -> dict[str, float]:
    player = Player(host, port)
    stop = asyncio.Event()
    player.counting = True

    async def stopper() -> None:
        while len(player.latencies) < count:
            await asyncio.sleep(0.01)
        stop.set()

    await asyncio.gather(player.run(stop), stopper())
    lat = sorted(player.latencies)
    return {
        "moves": len(lat),
        "p50_ms": 1000 * statistics.median(lat),
        "p99_ms": 1000 * lat[int(len(lat) * 0.99)],
    }


def family(pid: int) -> list[int]:
    """A process and its descendants (uvicorn's workers with --workers N)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            found.extend(family(int(child)))
    return found


def server_cpu(pid: int) -> float:
    """User + system CPU seconds of a process, its live descendants and finished children."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for member in family(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / ticks
    return total


def run_and_wait(pid: int) -> tuple[float, float]:
    """Seconds a process's threads ran on a CPU and waited for one (runnable, not running).

    From /proc/PID/task/*/schedstat: a large wait means other processes on the
    machine held the cores (the figures then say more about the machine's load
    than about the server).
    """
    ran = waited = 0.0
    for member in family(pid):
        for task in Path(f"/proc/{member}/task").iterdir():
            try:
                fields = (task / "schedstat").read_text().split()
            except OSError:
                continue
            ran += int(fields[0]) / 1e9
            waited += int(fields[1]) / 1e9
    return ran, waited


def bench(name: str, db: str, args: argparse.Namespace, folder: Path) -> None:
    extra = (
        "--no-access-log",
        "--no-analysis",
        *(("--rate-limits", "off") if args.rate_limits == "off" else ()),
        "--workers",
        str(args.workers),
    )
    with ServerProcess(db, folder, *extra) as server:
        assert server.process is not None
        host, port = "127.0.0.1", server.port
        run = asyncio.run if not args.uvloop else _uvloop_run
        one = run(single(host, port, args.single))
        print(
            f"{name}: one move alone ({one['moves']:.0f} moves): "
            f"p50 {one['p50_ms']:.2f} ms, p99 {one['p99_ms']:.2f} ms",
            flush=True,
        )
        for rate in args.rates:
            pid = server.process.pid
            cpu0, (ran0, waited0) = server_cpu(pid), run_and_wait(pid)
            result = run(load(host, port, args.players, args.warmup, args.seconds, rate))
            cpu1, (ran1, waited1) = server_cpu(pid), run_and_wait(pid)
            report(name, args, rate, result, cpu1 - cpu0, (ran1 - ran0, waited1 - waited0))


def report(
    name: str,
    args: argparse.Namespace,
    rate: float,
    result: dict[str, float],
    cpu: float,
    sched: tuple[float, float],
) -> None:
    offered = f"{rate:g} moves/s each" if rate else "closed loop"
    print(
        f"{name}: {args.players} players ({offered}), {args.seconds:.0f} s: "
        f"{result['moves_per_s']:,.0f} acknowledged durable moves/s "
        f"({result['moves']:,.0f} moves), p50 {result['p50_ms']:.1f} ms, "
        f"p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms, "
        f"errors {result['errors']:.0f}; CPU: generator "
        f"{result['generator_cpu_s'] / result['seconds']:.2f} cores, server "
        f"{cpu / (result['seconds'] + args.warmup):.2f} cores (incl. warm-up); server "
        f"threads ran {sched[0]:.1f} s and waited {sched[1]:.1f} s for a CPU; "
        f"load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def _uvloop_run(coro: Coroutine[Any, Any, T]) -> T:
    import uvloop

    return uvloop.run(coro)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--single", type=int, default=500)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--rates",
        type=lambda text: [float(x) for x in text.split(",")],
        default=[10.0, 0.0],
        help="moves per second per player, comma-separated runs (0: closed loop)",
    )
    parser.add_argument("--pg", help="also run against this PostgreSQL database URL")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--no-uvloop", dest="uvloop", action="store_false")
    parser.add_argument(
        "--rate-limits",
        choices=["off", "default"],
        default="off",
        help="serve's rate limits: off (the default here: scripts, not people) or its defaults",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not args.no_sqlite:
            bench("SQLite", str(folder / "bench.sqlite3"), args, folder)
        if args.pg:
            bench("PostgreSQL", args.pg, args, folder)


if __name__ == "__main__":
    main()
