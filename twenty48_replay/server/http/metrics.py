"""``GET /metrics``: what an operator watches, in Prometheus' text format (prometheus-client).

Counted in each process (with ``--workers N`` every process counts its own
requests): moves acknowledged, move latency, commit batch size, refusals by
reason.  ``twenty48 serve`` runs prometheus-client's multiprocess mode
with a private folder (``PROMETHEUS_MULTIPROC_DIR``, made 0700 at start
and removed at exit: :func:`twenty48_replay.server.run.serve`), so whichever
process answers ``/metrics`` reports the sums over all of them.  Open games
and the analysis queue are facts of the database, counted when scraped, so
every process and every host report the same figures.

The environment variable must be set before prometheus-client is imported
(it picks its storage at import): only the application module imports this
one, and uvicorn imports that after ``serve`` has set it.

Who may read it: ``/metrics`` answers only clients whose address is in
``--metrics-allow`` (default: loopback); for everyone else it does not exist
(404).  The figures are not secrets, but how busy a server is and what it
refuses is nobody else's business, and behind a proxy the address checked
is the real client's (``--forwarded-allow-ips``).
"""

from __future__ import annotations

import asyncio
import bisect
import ipaddress
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from twenty48_replay.server.guard.request_guard import REFUSAL_KEY

ENV_VAR: Final = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
#: Who may read /metrics unless ``--metrics-allow`` says otherwise.
DEFAULT_ALLOW: Final = ("127.0.0.0/8", "::1/128")
_MOVES_PATH: Final = re.compile(r"/api/games/[0-9]{1,18}/moves")

MOVES = Counter(
    "twenty48_moves_acknowledged",
    "Moves stored durably and acknowledged (a retried move answered again is not counted).",
    registry=None,
)
MOVE_LATENCY = Histogram(
    "twenty48_move_latency_seconds",
    "Time from a move request's arrival to its answer (commit included; refusals too).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=None,
)
BATCH_SIZE = Histogram(
    "twenty48_commit_batch_size",
    "Write requests committed together in one transaction (group commit).",
    buckets=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
    registry=None,
)
REFUSALS = Counter(
    "twenty48_refusals",
    "Requests answered with an error status, by status and reason.",
    ["status", "reason"],
    registry=None,
)
_OWN: Final = (MOVES, MOVE_LATENCY, BATCH_SIZE, REFUSALS)
#: How often each process adds the move latencies it gathered to the histogram.
LATENCY_FLUSH_S: Final = 1.0


class LatencyTally:
    """Move latencies gathered in this process, added to :data:`MOVE_LATENCY` in bulk.

    In multiprocess mode every increment of a prometheus-client value takes
    a lock, asks the kernel for the process id and writes the mapped file;
    observing each move that way cost about 10 µs, 4% of the server's
    interpreter time at 2,000 moves a second.  Here a move adds to a list
    of bucket counts, and :meth:`flush` (every :data:`LATENCY_FLUSH_S`, and
    before this process answers ``/metrics``) adds each bucket's count at
    once.  So another process's scrape may miss the latencies of this
    process's last second; the counters (moves, batches, refusals) are
    exact at every scrape.  Thread-safe: moves are timed on the event loop,
    a scrape flushes from a worker thread.
    """

    def __init__(self, histogram: Histogram) -> None:
        # prometheus-client has no bulk observe: its bounds and values are read here, as
        # its own ``observe`` uses them (tests/server/test_server_ops.py checks the sums).
        self._histogram = histogram
        self._bounds: tuple[float, ...] = tuple(histogram._upper_bounds)
        self._lock = threading.Lock()
        self._counts = [0] * len(self._bounds)
        self._sum = 0.0

    def observe(self, seconds: float) -> None:
        """One move took ``seconds`` (the histogram's buckets include their upper bound)."""
        index = bisect.bisect_left(self._bounds, seconds)
        with self._lock:
            self._counts[index] += 1
            self._sum += seconds

    def flush(self) -> None:
        """Add what was gathered since the last flush to the histogram."""
        with self._lock:
            counts, self._counts = self._counts, [0] * len(self._bounds)
            total, self._sum = self._sum, 0.0
        if not any(counts):
            return
        self._histogram._sum.inc(total)
        for bucket, count in zip(self._histogram._buckets, counts, strict=True):
            if count:
                bucket.inc(count)


MOVE_LATENCIES: Final = LatencyTally(MOVE_LATENCY)


async def flush_latencies() -> None:
    """Run for the server's life: the gathered latencies into the histogram every second."""
    while True:
        await asyncio.sleep(LATENCY_FLUSH_S)
        MOVE_LATENCIES.flush()


#: The reason label of each error status (the request guard names its own).
REASONS: Final = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "timeout",
    409: "conflict",
    413: "too_large",
    415: "not_json",
    422: "unprocessable",
    429: "too_many_requests",
    431: "header_too_large",
    500: "internal_error",
    503: "unavailable",
}


def observe_commit(jobs: int, moves: int) -> None:
    """A write batch committed: ``jobs`` requests in it, ``moves`` of them new moves."""
    BATCH_SIZE.observe(jobs)
    if moves:
        MOVES.inc(moves)


class Gauges:
    """The database's own figures, read when scraped: ``read()`` gives
    (unstarted games, started games, analysis backlog), or raises when the database fails."""

    def __init__(self, read: Callable[[], tuple[int, int, int]]) -> None:
        self.read = read

    def collect(self) -> Iterator[Metric]:
        try:
            unstarted, started, backlog = self.read()
        except Exception:  # the database is down: /readyz says so; the counters still count
            return
        games = GaugeMetricFamily(
            "twenty48_open_games", "Fair games not finished yet, by state.", labels=["state"]
        )
        games.add_metric(["unstarted"], unstarted)
        games.add_metric(["started"], started)
        yield games
        yield GaugeMetricFamily(
            "twenty48_analysis_queue_length",
            "Finished fair games waiting for their bot signals.",
            value=backlog,
        )


def exposition(gauges: Gauges) -> bytes:
    """The text to answer ``/metrics`` with: every process's counters plus the gauges."""
    MOVE_LATENCIES.flush()
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get(ENV_VAR):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:  # one process, outside ``serve`` (tests, an embedding application)
        for metric in _OWN:
            registry.register(metric)
    registry.register(gauges)
    data: bytes = generate_latest(registry)
    return data


def networks(texts: Iterable[str]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``--metrics-allow`` values as networks (a bare address is a network of one)."""
    return tuple(ipaddress.ip_network(text.strip(), strict=False) for text in texts)


def allowed(
    client: Sequence[Any] | None, allow: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]
) -> bool:
    """Whether the request's client address (after trusted proxy headers) may read /metrics."""
    if not client:
        return False
    try:
        address = ipaddress.ip_address(str(client[0]))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in allow)


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[..., Any], Callable[..., Any]], Any]


class CountingMiddleware:
    """Outermost ASGI layer: each error status as a refusal, each move's latency."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Callable[..., Any], send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = []

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        try:
            await self.app(scope, receive, counted)
        finally:
            code = status[0] if status else 500
            if scope["method"] == "POST" and _MOVES_PATH.fullmatch(scope["path"]):
                MOVE_LATENCIES.observe(time.perf_counter() - started)
            if code >= 400:
                reason = scope.get(REFUSAL_KEY) or REASONS.get(code, "other")
                REFUSALS.labels(str(code), reason).inc()
