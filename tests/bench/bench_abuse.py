"""Benchmark of ``twenty48 serve`` under attack (issue 18, acceptance 2).

A real server with its default limits (``--no-access-log --no-analysis``, as
bench_server.py, on an SQLite file at ``synchronous=FULL``), reached directly
and/or through the shipped nginx configuration (tests/support/nginx_harness.py: TLS
with a certificate made at start, ``deploy/nginx/twenty48.conf``), then:

1. **throughput**: ``--throughput-players`` players (default 200, each from its own
   address) at ``--throughput-rate`` moves per second each (default 14, under the
   default per-game limit of 15/s: the limits stay on) for ``--throughput-seconds``:
   acknowledged durable moves per second with no attack (the issue requires >=
   2,000/s on SQLite; 2,800 offered by default); ``--throughput-rate 0`` is a closed
   loop, which the per-game limit then throttles;
2. **calm**: ``--players`` honest players (default 200) at ``--rate`` moves
   per second each (default 10) for ``--calm-seconds``, no attack;
3. **attack**: the same players for ``--seconds`` while, from another process,
   one client sends an endless header (reconnecting whenever it is cut off),
   ``--slow`` connections (default 1,000) each send a byte every
   ``--slow-interval`` seconds (reconnecting when closed), and ``--posters``
   clients (default 3) post records of ``--record-bytes`` (default the
   reader's maximum, 16 MiB in about 990,000 JSON values) one after another.
   The attackers run in a process of their own at niceness ``--attackers-nice``
   (default 19) and the scheduling policy ``--attackers-policy`` (default
   ``idle``, SCHED_IDLE): they stand for other machines, and on a machine of two
   cores their own CPU would otherwise be taken from the server; what they cost
   the server is the measure (their CPU seconds are reported).

Every simulated client has its own source address (Linux routes all of
127.0.0.0/8 to loopback): honest players 127.0.1.x, the endless header
127.0.2.1, slow connections 127.0.3.1 onwards, posters 127.0.7.x.  For each
phase it prints the honest players' move latency (p50 / p99 / max) and
errors (any answer but 200, a dropped connection, or no answer within 10 s),
what each attacker got, the server's RSS over time (every second, the serve
process and its children), the growth of its database files, and the disk's
own sync times meanwhile (a process beside the server rewrites 4 KiB of a
file next to the database and ``fdatasync``s it every 20 ms: a stall there
is the disk's, which every durable commit shares).  Posting
stops once the files grew by ``--max-disk-mb`` (default 4,096), so that a
server without a storage bound cannot fill the disk.

Where it runs: by default every process shares every CPU.  ``--server-cpus``
(e.g. ``1`` or ``2,3``) pins ``serve`` and nginx (every thread, after start)
to those CPUs and the honest players, the attackers and the disk probe to the
others, as if the clients were other machines.  On 2 cores that was measured
to be worse (README, "Under attack"): the server's own threads (event loop,
writer, checkpointer) then wait for each other's CPU.  Each phase prints how
long the server's threads ran and how long they waited for a CPU, and through
nginx the same for nginx's processes.

    python tests/bench/bench_abuse.py                 # direct, then through nginx
    python tests/bench/bench_abuse.py --via direct --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import random
import resource
import ssl
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_server import (  # noqa: E402
    Player,
    family,
    load,
    next_move,
    run_and_wait,
    source_address,
)
from support.nginx_harness import NginxProcess  # noqa: E402
from support.server_harness import ServerProcess  # noqa: E402

from twenty48_replay.core.record import MAX_INPUT_BYTES, MAX_VALUES  # noqa: E402

T = TypeVar("T")
#: Any move not answered within this many seconds is an error (a hang).
MOVE_TIMEOUT = 10.0
#: Replaced in each posted record, so that every post is a new record to store.
NONCE = b"nonce-0000000000"


def address(block: int, i: int) -> str:
    """The ``i``-th (0-based) source address of a block: 127.0.<block + i // 250>.<1 + i % 250>."""
    return f"127.0.{block + i // 250}.{1 + i % 250}"


class Target:
    """Where the clients connect: serve itself, or nginx with TLS."""

    def __init__(self, host: str, port: int, tls: ssl.SSLContext | None) -> None:
        self.host = host
        self.port = port
        self.tls = tls

    async def open(self, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(
            self.host,
            self.port,
            local_addr=(source, 0),
            ssl=self.tls,
            server_hostname=self.host if self.tls else None,
            limit=1 << 20,
        )


# ------------------------------------------------------------------ honest players


class HonestPlayer(Player):
    """bench_server's player from its own address, through TLS if asked; failures counted."""

    def __init__(self, target: Target, source: str) -> None:
        super().__init__(target.host, target.port, source)
        self.target = target
        self.own_source = source
        self.failures: Counter[str] = Counter()

    async def connect(self) -> None:
        self.reader, self.writer = await self.target.open(self.own_source)

    async def run(self, stop: asyncio.Event, rate: float = 0.0) -> int:
        loop = asyncio.get_running_loop()
        period = 1.0 / rate if rate > 0 else 0.0
        due = loop.time() + random.uniform(0, period)
        moves = 0
        fresh = True
        while not stop.is_set():
            try:
                if fresh:
                    await asyncio.wait_for(self.connect(), MOVE_TIMEOUT)
                    await asyncio.wait_for(self.new_game(), MOVE_TIMEOUT)
                    fresh = False
                if period:
                    wait = due - loop.time()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    due = max(due + period, loop.time())
                letter = next_move(self.rows)
                if letter is None:
                    await asyncio.wait_for(self.new_game(), MOVE_TIMEOUT)
                    continue
                start = time.perf_counter()
                status, answer = await asyncio.wait_for(
                    self.call(
                        "POST",
                        f"/api/games/{self.id}/moves",
                        {"move": letter, "n": self.n},
                        self.token,
                    ),
                    MOVE_TIMEOUT,
                )
                elapsed = time.perf_counter() - start
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                if self.counting:
                    self.failures[type(exc).__name__] += 1
                with contextlib.suppress(Exception):
                    self.writer.close()
                fresh = True
                continue
            if status != 200:
                if self.counting:
                    self.failures[f"HTTP {status}"] += 1
                await asyncio.wait_for(self.new_game(), MOVE_TIMEOUT)
                continue
            if self.counting:
                self.latencies.append(elapsed)
                moves += 1
            self.n += 1
            self.rows = answer["board"]
            if answer.get("finished"):
                await asyncio.wait_for(self.new_game(), MOVE_TIMEOUT)
        with contextlib.suppress(Exception):
            self.writer.close()
        return moves


async def honest_phase(
    target: Target,
    players: int,
    rate: float,
    warmup: float,
    seconds: float,
    sample: Callable[[], None],
) -> dict[str, Any]:
    crowd = [HonestPlayer(target, source_address(i)) for i in range(players)]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.run(stop, rate)) for p in crowd]
    await asyncio.sleep(warmup)
    for p in crowd:
        p.counting = True
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        sample()
        await asyncio.sleep(1.0)
    for p in crowd:
        p.counting = False
    elapsed = time.perf_counter() - start
    stop.set()
    counts = await asyncio.gather(*tasks)
    latencies = sorted(x for p in crowd for x in p.latencies)
    failures: Counter[str] = Counter()
    for p in crowd:
        failures.update(p.failures)
    return {
        "moves": sum(counts),
        "moves_per_s": sum(counts) / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2] if latencies else float("nan"),
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)] if latencies else float("nan"),
        "max_ms": 1000 * latencies[-1] if latencies else float("nan"),
        "errors": sum(failures.values()),
        "failures": dict(failures),
    }


# ------------------------------------------------------------------ attackers (another process)


async def read_status(reader: asyncio.StreamReader, timeout: float) -> str:
    """The status of whatever answer arrives, or why none did."""
    try:
        line = await asyncio.wait_for(reader.readline(), timeout)
    except (TimeoutError, OSError) as exc:
        return type(exc).__name__
    parts = line.split()
    return parts[1].decode("ascii", "replace") if len(parts) > 1 else "closed"


async def endless_header(target: Target, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """Sends one header value for ever; when cut off, connects again at once."""
    answers: Counter[str] = Counter()
    accepted: list[int] = []
    report["endless_header"] = {"answers": answers, "bytes_written_per_attempt": accepted}
    chunk = b"a" * 65536
    while not stop.is_set():
        try:
            reader, writer = await target.open(address(2, 0))
        except OSError as exc:
            answers[f"connect {type(exc).__name__}"] += 1
            await asyncio.sleep(0.05)
            continue
        sent = 0
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: ")
            while not stop.is_set():
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), 30)
                sent += len(chunk)
        except (TimeoutError, OSError):
            pass
        accepted.append(sent)
        answers[await read_status(reader, 2)] += 1
        writer.close()


async def slow_connection(
    target: Target, source: str, interval: float, stop: asyncio.Event, answers: Counter[str]
) -> None:
    """A byte every ``interval`` seconds; a new connection whenever the server ends one."""
    await asyncio.sleep(random.uniform(0, interval))
    while not stop.is_set():
        try:
            reader, writer = await target.open(source)
        except OSError as exc:
            answers[f"connect {type(exc).__name__}"] += 1
            await asyncio.sleep(interval)
            continue
        answers["opened"] += 1
        answer = asyncio.ensure_future(read_status(reader, 3600))
        try:
            writer.write(b"GET / HTTP/1.1\r\n")
            while not stop.is_set() and not answer.done():
                await asyncio.wait([answer], timeout=interval)
                if not answer.done():
                    writer.write(b"X")
                    await writer.drain()
        except OSError:
            pass
        if answer.done():
            answers[answer.result()] += 1
        else:
            answer.cancel()
        writer.close()


def big_record(size: int) -> bytes:
    """A valid record (examples/valid.json) padded with an unknown key to at most ``size`` bytes."""
    record = json.loads((ROOT / "examples" / "valid.json").read_text())
    record["nonce"] = NONCE.decode()
    base = len(json.dumps(record, separators=(",", ":")))
    item = "x" * 14
    each = len(item) + 3  # the quotes and a comma
    count = max(0, min((size - base - 20) // each, MAX_VALUES - 1000))
    record["padding"] = [item] * count
    body = json.dumps(record, separators=(",", ":")).encode()
    assert len(body) <= size, (len(body), size)
    return body


async def poster(
    target: Target, source: str, body: bytes, stop: asyncio.Event, results: list[tuple[str, float]]
) -> None:
    """Posts ``body`` (a new nonce each time) to /api/records, one after another."""
    head = (
        f"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    at = body.index(NONCE)
    before, after = body[:at], memoryview(body)[at + len(NONCE) :]
    while not stop.is_set():
        start = time.perf_counter()
        try:
            reader, writer = await target.open(source)
            nonce = f"nonce-{random.getrandbits(32):010d}".encode()
            # In parts: a copy of the whole body for every post was most of this
            # process's CPU, which the machine's two cores share with the server.
            writer.write(head + before + nonce)
            writer.write(after)
            status = await read_status(reader, 300)
            writer.close()
        except OSError as exc:
            status = type(exc).__name__
        results.append((status, time.perf_counter() - start))
        if status not in ("200", "201"):
            await asyncio.sleep(0.05)  # refused: try again (almost) at once


async def attack(
    settings: dict[str, Any], stop_flag: EventType, halt_posting: EventType
) -> dict[str, Any]:
    # A TLS connection the server cut off may make uvloop report an error on the
    # closed transport; that is the attack working, not a failure of this script.
    asyncio.get_running_loop().set_exception_handler(lambda _loop, _context: None)
    tls = None
    if settings["cafile"]:
        tls = ssl.create_default_context(cafile=settings["cafile"])
    target = Target(settings["host"], settings["port"], tls)
    stop = asyncio.Event()
    stop_posting = asyncio.Event()
    report: dict[str, Any] = {}
    slow_answers: Counter[str] = Counter()
    posted: list[tuple[str, float]] = []
    body = big_record(settings["record_bytes"])
    tasks = [asyncio.create_task(endless_header(target, stop, report))]
    tasks += [
        asyncio.create_task(
            slow_connection(target, address(3, i), settings["slow_interval"], stop, slow_answers)
        )
        for i in range(settings["slow"])
    ]
    tasks += [
        asyncio.create_task(poster(target, address(7, i), body, stop_posting, posted))
        for i in range(settings["posters"])
    ]
    while not stop_flag.is_set():
        if halt_posting.is_set():
            stop_posting.set()
        await asyncio.sleep(0.2)
    stop.set()
    stop_posting.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    statuses = Counter(status for status, _ in posted)
    endless = report.pop("endless_header")
    written = endless["bytes_written_per_attempt"]
    report["endless_header"] = {
        "attempts": len(written),
        "answers": dict(endless["answers"]),
        "max_bytes_written_per_attempt": max(written, default=0),
    }
    report["slow"] = dict(slow_answers)
    report["posters"] = {
        "record_bytes": len(body),
        "answers": dict(statuses),
        "mean_seconds": round(sum(t for _, t in posted) / len(posted), 2) if posted else None,
    }
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    report["attacker_cpu_s"] = round(cpu.ru_utime + cpu.ru_stime, 1)
    return report


def attack_process(
    settings: dict[str, Any], stop_flag: EventType, halt_posting: EventType, out: Any
) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # The attackers stand for other machines.  Here they share two cores with the
    # server, nginx and the honest players, so their own work (encrypting and sending
    # megabytes of records, a thousand connections) runs at the lowest priority: what
    # is measured is what they cost the server, not the CPU they burn themselves.
    # The report gives their CPU seconds; --attackers-nice 0 runs them as any process.
    os.nice(settings["nice"])
    if settings["idle"]:
        # SCHED_IDLE: a task of the normal policy that wakes takes the CPU from them at
        # once.  Niceness alone lets the running attacker finish its time slice first
        # (the kernel's EEVDF scheduler runs a task to its slice's end), a delay every
        # wakeup of the server, nginx or a player's client may then wait behind.
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # "SSL connection is closed": cut off
    out.send(run_loop(attack(settings, stop_flag, halt_posting)))


# ------------------------------------------------------------------ measuring the server


def disk_probe(folder: str, interval: float, stop: EventType, out: Any) -> None:
    """Rewrites 4 KiB in place and ``fdatasync``s it every ``interval`` s; sends the sync times.

    What a commit's sync of the write-ahead log costs on this disk at that
    moment, without the server: a stall here is the disk's, not the code's.
    """
    path = Path(folder) / "disk-probe"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, b"\0" * (1 << 20), 0)
        os.fsync(fd)
        block, times, i = b"p" * 4096, [], 0
        while not stop.is_set():
            os.pwrite(fd, block, (i % 256) * 4096)
            i += 1
            start = time.perf_counter()
            os.fdatasync(fd)
            times.append(time.perf_counter() - start)
            stop.wait(interval)
    finally:
        os.close(fd)
        path.unlink()
    out.send(times)


class DiskProbe:
    """:func:`disk_probe` in a process of its own for the duration of a ``with`` block."""

    def __init__(self, folder: Path, interval: float = 0.02) -> None:
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._receiving, sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=disk_probe, args=(str(folder), interval, self._stop, sending)
        )
        self.times: list[float] = []

    def __enter__(self) -> DiskProbe:
        self._process.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        if self._receiving.poll(30):
            self.times = sorted(self._receiving.recv())
        self._process.join(30)

    def summary(self) -> str:
        times = self.times
        if not times:
            return "the disk probe reported nothing"
        ms = [1000 * t for t in times]
        return (
            f"the disk meanwhile (fdatasync of 4 KiB rewritten in place every 20 ms, "
            f"{len(ms)} syncs): p50 {ms[len(ms) // 2]:.2f} ms, "
            f"p99 {ms[int(len(ms) * 0.99)]:.1f} ms, "
            f"max {ms[-1]:.1f} ms, {sum(m > 50 for m in ms)} over 50 ms, "
            f"{sum(m > 100 for m in ms)} over 100 ms"
        )


def rss_mb(pid: int) -> float:
    total = 0
    for member in family(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def disk_bytes(db: Path) -> int:
    return sum(
        path.stat().st_size
        for path in db.parent.iterdir()
        if path.name.startswith(db.name) and path.is_file()
    )


def parse_cpus(text: str) -> set[int] | None:
    """``--server-cpus``: ``all`` (no placement) or a comma-separated list of CPU numbers."""
    if text == "all":
        return None
    cpus = {int(part) for part in text.split(",") if part.strip()}
    available = os.sched_getaffinity(0)
    if not cpus or not cpus <= available:
        raise SystemExit(f"--server-cpus {text}: this process may use CPUs {sorted(available)}")
    if cpus == available:
        raise SystemExit(f"--server-cpus {text}: no CPU would be left for the clients")
    return cpus


def place(pid: int, cpus: set[int] | None) -> None:
    """Pin every thread of a process and its descendants to ``cpus`` (``None``: leave them)."""
    if cpus is None:
        return
    for member in family(pid):
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{member}/task").iterdir():
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(int(task.name), cpus)


def run_loop(coro: Coroutine[Any, Any, T]) -> T:
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def bench(via: str, args: argparse.Namespace, folder: Path) -> None:
    db = folder / f"abuse-{via}.sqlite3"
    extra = ["--no-access-log", "--no-analysis"]
    if via == "nginx":
        extra += ["--forwarded-allow-ips", "127.0.0.1"]
    with ServerProcess(str(db), folder, *extra) as server:
        assert server.process is not None
        pid = server.process.pid
        place(pid, args.server_cpu_set)
        nginx = NginxProcess(server.port).start() if via == "nginx" else None
        if nginx is not None and nginx.process is not None:
            place(nginx.process.pid, args.server_cpu_set)
        try:
            host, port = "127.0.0.1", nginx.https_port if nginx else server.port
            cafile = str(nginx.cert) if nginx else None
            tls = ssl.create_default_context(cafile=cafile) if cafile else None
            target = Target(host, port, tls)
            print(f"== {via} ({'https://' if nginx else 'http://'}{host}:{port})", flush=True)
            if args.throughput_seconds > 0 and not nginx:
                result = run_loop(
                    load(
                        host,
                        port,
                        args.throughput_players,
                        3.0,
                        args.throughput_seconds,
                        args.throughput_rate,
                    )
                )
                offered = (
                    f"at {args.throughput_rate:g} moves/s each "
                    f"({args.throughput_players * args.throughput_rate:,.0f} offered)"
                    if args.throughput_rate > 0
                    else "in a closed loop"
                )
                print(
                    f"{via}: throughput without attack, {args.throughput_players} players "
                    f"{offered}, {args.throughput_seconds:.0f} s: "
                    f"{result['moves_per_s']:,.0f} acknowledged durable moves/s, "
                    f"p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, "
                    f"errors {result['errors']:.0f}; load average {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
            rss: list[float] = []
            disk0 = disk_bytes(db)

            def sample() -> None:
                rss.append(rss_mb(pid))

            if args.calm_seconds > 0:
                sched0, proxy0 = run_and_wait(pid), proxy_times(nginx)
                with DiskProbe(folder) as probe:
                    calm = run_loop(
                        honest_phase(
                            target, args.players, args.rate, 3.0, args.calm_seconds, sample
                        )
                    )
                print_phase(via, "no attack", args, calm, rss, 0, sched0, run_and_wait(pid))
                print_proxy(via, "no attack", proxy0, proxy_times(nginx))
                print(f"{via}, no attack: {probe.summary()}", flush=True)
            rss.clear()
            disk0 = disk_bytes(db)
            settings = {
                "host": host,
                "port": port,
                "cafile": cafile,
                "slow": args.slow,
                "slow_interval": args.slow_interval,
                "posters": args.posters,
                "record_bytes": args.record_bytes,
                "nice": args.attackers_nice,
                "idle": args.attackers_policy == "idle",
            }
            context = multiprocessing.get_context("spawn")
            stop_flag, halt_posting = context.Event(), context.Event()
            receiving, sending = context.Pipe(duplex=False)
            attacker = context.Process(
                target=attack_process, args=(settings, stop_flag, halt_posting, sending)
            )
            attacker.start()
            time.sleep(args.slow_interval + 2)  # every slow connection is open

            def sample_and_guard() -> None:
                rss.append(rss_mb(pid))
                if disk_bytes(db) - disk0 > args.max_disk_mb * 1024 * 1024:
                    halt_posting.set()

            sched0, proxy0 = run_and_wait(pid), proxy_times(nginx)
            with DiskProbe(folder) as probe:
                under = run_loop(
                    honest_phase(
                        target, args.players, args.rate, 2.0, args.seconds, sample_and_guard
                    )
                )
            sched1, proxy1 = run_and_wait(pid), proxy_times(nginx)
            stop_flag.set()
            report = receiving.recv() if receiving.poll(120) else {"error": "no report"}
            attacker.join(30)
            print_phase(
                via, "under attack", args, under, rss, disk_bytes(db) - disk0, sched0, sched1
            )
            print_proxy(via, "under attack", proxy0, proxy1)
            print(f"{via}, under attack: {probe.summary()}", flush=True)
            if halt_posting.is_set():
                print(f"{via}: posting stopped: the files grew past {args.max_disk_mb} MB")
            print(f"{via}: attackers: {json.dumps(report)}", flush=True)
        finally:
            if nginx is not None:
                nginx.stop()


def proxy_times(nginx: NginxProcess | None) -> tuple[float, float] | None:
    """Seconds nginx's processes ran on a CPU and waited for one; ``None`` without nginx."""
    if nginx is None or nginx.process is None:
        return None
    return run_and_wait(nginx.process.pid)


def print_proxy(
    via: str, phase: str, before: tuple[float, float] | None, after: tuple[float, float] | None
) -> None:
    """What nginx's TLS and proxying cost in a phase: the cores it shares with the server."""
    if before is not None and after is not None:
        print(
            f"{via}, {phase}: nginx's processes ran {after[0] - before[0]:.1f} s and "
            f"waited {after[1] - before[1]:.1f} s for a CPU",
            flush=True,
        )


def print_phase(
    via: str,
    phase: str,
    args: argparse.Namespace,
    result: dict[str, Any],
    rss: list[float],
    disk_growth: int,
    sched0: tuple[float, float],
    sched1: tuple[float, float],
) -> None:
    """One phase's line; ``sched*``: the server's CPU time run and waited for, before and after."""
    ran, waited = sched1[0] - sched0[0], sched1[1] - sched0[1]
    timeline = " ".join(f"{value:.0f}" for value in rss[:: max(1, len(rss) // 12)])
    print(
        f"{via}, {phase}: {args.players} players at {args.rate:g} moves/s: "
        f"{result['moves_per_s']:,.0f} moves/s acknowledged, p50 {result['p50_ms']:.1f} ms, "
        f"p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms, "
        f"errors {result['errors']} {result['failures'] or ''}; "
        f"server RSS max {max(rss, default=0):.0f} MB (over time: {timeline}); "
        f"database files grew {disk_growth / 1e6:,.1f} MB; server threads ran {ran:.1f} s "
        f"and waited {waited:.1f} s for a CPU; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--via", choices=["direct", "nginx", "both"], default="both")
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--calm-seconds", type=float, default=15.0)
    parser.add_argument("--throughput-players", type=int, default=200)
    parser.add_argument("--throughput-rate", type=float, default=14.0)
    parser.add_argument("--throughput-seconds", type=float, default=10.0)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--slow-interval", type=float, default=3.0)
    parser.add_argument("--posters", type=int, default=3)
    parser.add_argument("--record-bytes", type=int, default=MAX_INPUT_BYTES)
    parser.add_argument("--max-disk-mb", type=int, default=4096)
    parser.add_argument(
        "--attackers-nice",
        type=int,
        default=19,
        help="niceness of the attacking process (default 19: it stands for other machines)",
    )
    parser.add_argument(
        "--attackers-policy",
        choices=["idle", "normal"],
        default="idle",
        help="scheduling policy of the attacking process: SCHED_IDLE (the default: it runs "
        "only when nothing else waits for the CPU, as other machines would) or the normal one",
    )
    parser.add_argument(
        "--server-cpus",
        default="all",
        help="CPUs for serve and nginx, comma-separated, or 'all' (the default: no pinning); "
        "the players, the attackers and the disk probe get the others",
    )
    args = parser.parse_args()
    args.server_cpu_set = parse_cpus(args.server_cpus)
    if args.server_cpu_set is not None:
        # Clients stand for other machines: they run on the CPUs the server does not
        # (spawned processes inherit this), so their CPU is not taken from the server.
        os.sched_setaffinity(0, os.sched_getaffinity(0) - args.server_cpu_set)
        print(
            f"serve and nginx on CPU {sorted(args.server_cpu_set)}; players, attackers "
            f"and the disk probe on CPU {sorted(os.sched_getaffinity(0))}",
            flush=True,
        )
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory() as tmp:
        for via in ("direct", "nginx") if args.via == "both" else (args.via,):
            bench(via, args, Path(tmp))


if __name__ == "__main__":
    main()
