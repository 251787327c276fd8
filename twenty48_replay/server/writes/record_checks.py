"""Submitted records are read and verified off the event loop, in a bounded process pool.

Reading a record is the costly part of ``POST /api/records``: within the
body limit (1 MiB by default) a record can hold half a million JSON values,
and parsing them on the event loop once stalled every player's moves for
over a second.  Here the body goes to a worker process, which parses it,
checks what the server accepts (self-seeded only; the unknown keys at most
``max_extra_bytes`` of canonical JSON), verifies it, and sends back the
record or the refusal.  The worker runs at a lower priority than the
server, so the server's own threads come first on a busy machine.

Concurrency is bounded: at most ``workers`` records are checked at once
and ``waiting`` more wait for a worker; one more is refused at once with
503 and ``Retry-After`` (never an unbounded queue).  A check that takes
too long is answered 503 as well; its slot is freed only when the worker
is done with it, so the bound holds even then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

import attrs

from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.record import METADATA_TYPES, Record, dumps_value
from twenty48_replay.core.replay import VerifyResult, verify
from twenty48_replay.core.workers import quiet_worker
from twenty48_replay.server.api_errors import ApiError, retry_after

log = logging.getLogger("twenty48.server")

#: Records checked at once per server process, and how many more may wait.
WORKERS: Final = 1
WAITING: Final = 2
#: Seconds one check may take before the client is told to try again.
CHECK_SECONDS: Final = 30.0
#: What a client is told to wait when every slot is taken (seconds).
BUSY_RETRY_SECONDS: Final = 5


@attrs.frozen
class Refused:
    """The record is refused: a status and the reason."""

    status: int
    reason: str


@attrs.frozen
class Accepted:
    """The record and its (valid) verification."""

    record: Record
    result: VerifyResult


def unknown_keys_bytes(record: Record) -> int:
    """Bytes of canonical JSON (compact, UTF-8) of the record's unknown top-level keys."""
    unknown = {key: value for key, value in record.extra.items() if key not in METADATA_TYPES}
    if not unknown:
        return 0
    return len(dumps_value(unknown).encode("utf-8", "surrogatepass"))


def check_record(body: bytes, max_extra_bytes: int) -> Accepted | Refused:
    """Read, bound and verify one submitted record (runs in a worker process)."""
    try:
        record = Record.from_json(body)
    except RecordError as exc:
        return Refused(400, f"unreadable record: {exc}")
    if "fair" in record.extra or "signature" in record.extra:
        return Refused(422, "only self-seeded records can be submitted; fair games are played live")
    size = unknown_keys_bytes(record)
    if size > max_extra_bytes:
        return Refused(
            413,
            f"the record's unknown keys hold {size:,} bytes of canonical JSON, "
            f"over the limit of {max_extra_bytes:,}",
        )
    result = verify(record)
    if not result.valid:
        return Refused(422, "invalid record: " + "; ".join(result.reasons))
    return Accepted(record, result)


def _worker_setup(parent_pid: int) -> None:
    """A quiet pool worker that exits with the server, at a lower priority than it."""
    quiet_worker(parent_pid)
    with contextlib.suppress(OSError):
        os.nice(10)


def _ready() -> bool:
    return True


class RecordChecker:
    """The bounded pool that checks submitted records (one per server process)."""

    def __init__(
        self,
        max_extra_bytes: int,
        *,
        workers: int = WORKERS,
        waiting: int = WAITING,
        timeout: float = CHECK_SECONDS,
    ) -> None:
        self.max_extra_bytes = max_extra_bytes
        self.workers = workers
        self.capacity = workers + waiting
        self.timeout = timeout
        self.busy = 0
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        """Start the worker processes now (in the background), not at the first record."""
        self._new_pool().submit(_ready)

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _new_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_setup,
                initargs=(os.getpid(),),
            )
        return self._pool

    async def check(self, body: bytes) -> Accepted:
        """The checked record, or :class:`ApiError` (4xx with the reason, 503 when busy)."""
        if self.busy >= self.capacity:
            raise retry_after(
                503,
                "the server is checking as many records as it can; try again",
                BUSY_RETRY_SECONDS,
            )
        pool = self._new_pool()
        try:
            future = pool.submit(check_record, body, self.max_extra_bytes)
        except BrokenProcessPool:
            self._replace(pool)
            raise retry_after(503, "the record checker restarted; try again", 1) from None
        self.busy += 1
        future.add_done_callback(self._done_callback(asyncio.get_running_loop()))
        try:
            outcome = await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
        except TimeoutError:
            raise retry_after(
                503, "checking the record took too long; try again later", BUSY_RETRY_SECONDS
            ) from None
        except BrokenProcessPool:  # a worker died (killed, out of memory)
            log.warning("record checker stopped; starting another")
            self._replace(pool)
            raise retry_after(503, "the record checker stopped; try again", 1) from None
        if isinstance(outcome, Refused):
            raise ApiError(outcome.status, outcome.reason)
        return outcome

    def _done_callback(
        self, loop: asyncio.AbstractEventLoop
    ) -> Callable[[Future[Accepted | Refused]], None]:
        def done(_future: Future[Accepted | Refused]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody counts
                loop.call_soon_threadsafe(self._release)

        return done

    def _release(self) -> None:
        self.busy -= 1

    def _replace(self, pool: ProcessPoolExecutor) -> None:
        if self._pool is pool:
            pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
