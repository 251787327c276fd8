"""Group commit: one writer thread stores the moves of every game in shared transactions.

A durable commit costs a disk flush (2-3 ms on SQLite with
``synchronous=FULL``), so committing each move alone caps a server at a
few hundred moves per second.  Here request handlers hand their job to
one thread; it takes everything that is waiting, runs it in one
transaction, commits once, and only then answers every request of the
batch.  A move is therefore acknowledged only once it is durable, and the
flush is shared by all the games that moved meanwhile.  Batches form by
themselves: while one commit is flushing, the next requests queue up.

Inside a batch the moves are not written one by one: their appends are
collected and written as one multi-row compare-and-set UPDATE and one
multi-row INSERT (:func:`fair_games.append_moves`), because every database
call releases the interpreter lock and the event loop thread keeps the
writer waiting for it.  If any game had moved on (another process
appended), the batch is rolled back and run again move by move, where each
append checks its own row.

Jobs are sorted by game id inside a batch so that several server processes
on one PostgreSQL database lock rows in the same order (no deadlock).  If
a batch's transaction fails, every job in it is retried alone, so one bad
job cannot fail the others.  An ambiguous failure (the connection lost
during COMMIT) is safe to retry too: a move names its ``n``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

import attrs

from twenty48_replay.core.errors import StoreError, Twenty48Error
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.timestamps import now_ms
from twenty48_replay.server.api_errors import ApiError, too_many
from twenty48_replay.server.guard import quotas
from twenty48_replay.server.writes.batch_view import (
    BatchConflictError,
    BatchView,
    EntryCache,
    Job,
    Signer,
)
from twenty48_replay.server.writes.write_jobs import Ping
from twenty48_replay.store import Store
from twenty48_replay.store import fair_games as fair_store

log = logging.getLogger("twenty48.server")

#: Jobs in one transaction at most (bounds a transaction's length).
MAX_BATCH = 1000

_Item = tuple[Job, "asyncio.Future[dict[str, Any]]"]
_Outcome = tuple["asyncio.Future[dict[str, Any]]", "dict[str, Any] | BaseException"]


class UnavailableError(ApiError):
    """503: the database could not take the write (locked, gone); nothing was stored."""

    def __init__(self, reason: str | Reason) -> None:
        super().__init__(503, reason)


class GroupWriter:
    """The writer thread; :meth:`run` is what request handlers await."""

    def __init__(
        self,
        store: Store,
        signer: Signer,
        *,
        max_batch: int = MAX_BATCH,
        observe: Callable[[int, int], None] | None = None,
        limits: quotas.RateLimits | None = None,
    ) -> None:
        """``observe(jobs, moves)`` is told of each committed batch (the metrics)."""
        self.store = store
        self.signer = signer
        self.max_batch = max_batch
        self.observe = observe
        self.limits = limits or quotas.RateLimits()
        self.cache = EntryCache()
        self._connection = store.held_connection()  # this thread's alone, kept between batches
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="twenty48-writer", daemon=True)
        self.batches = 0
        self.jobs = 0
        self._appended = 0  # moves appended by the last committed transaction

    def start(self) -> None:
        self._thread.start()

    @property
    def alive(self) -> bool:
        """Whether the writer thread runs (``/readyz``)."""
        return self._thread.is_alive()

    def stop(self) -> None:
        """Finish what is queued, then end the thread."""
        self._queue.put(None)
        self._thread.join(timeout=30)

    async def run(self, job: Job) -> dict[str, Any]:
        """The job's answer once its transaction has committed (or its ApiError).

        The writer settles the futures of a whole batch with one callback on
        the event loop (one wake-up per commit, not one per request).
        """
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._queue.put((job, future))
        return await future

    # ---------------------------------------------------------------- thread

    def _loop(self) -> None:
        try:
            self._serve_queue()
        finally:
            self._connection.close()

    def _serve_queue(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < self.max_batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            try:
                self._write(batch)
            except Exception as exc:  # a bug: fail this batch's requests, keep the thread
                log.error("writer failed: %s", type(exc).__name__)
                for _job, future in batch:
                    failed: list[_Outcome] = [(future, exc)]
                    with contextlib.suppress(RuntimeError):
                        future.get_loop().call_soon_threadsafe(_settle, failed)

    def _write(self, batch: list[_Item]) -> None:
        outcomes: list[_Outcome] = []
        self._settle_into(batch, outcomes)
        by_loop: dict[asyncio.AbstractEventLoop, list[_Outcome]] = {}
        for future, result in outcomes:
            by_loop.setdefault(future.get_loop(), []).append((future, result))
        for loop, settled in by_loop.items():
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, settled)

    def _settle_into(self, batch: list[_Item], outcomes: list[_Outcome]) -> None:
        batch.sort(key=lambda item: item[0].order)
        try:
            try:
                results = self._transaction(batch, deferred=len(batch) > 1)
            except BatchConflictError:  # another process appended meanwhile: decide move by move
                results = self._transaction(batch, deferred=False)
        except Exception as exc:
            if len(batch) > 1:
                for item in batch:
                    self._settle_into([item], outcomes)
                return
            outcomes.append((batch[0][1], _as_answerable(exc)))
            return
        self.batches += 1
        self.jobs += len(batch)
        requests = sum(not isinstance(job, Ping) for job, _future in batch)
        if self.observe is not None and requests:  # readiness checks are not traffic
            self.observe(requests, self._appended)
        outcomes.extend(
            (future, result) for (_job, future), result in zip(batch, results, strict=True)
        )

    def _transaction(
        self, batch: list[_Item], *, deferred: bool
    ) -> list[dict[str, Any] | ApiError]:
        results: list[dict[str, Any] | ApiError | None] = [None] * len(batch)
        view: BatchView | None = None
        try:
            with self._connection.transaction() as connection:
                view = BatchView(
                    connection,
                    self.cache,
                    self.signer,
                    now_ms(),
                    deferred=deferred,
                    limits=self.limits,
                )
                _charge(view, [job for job, _future in batch], results)
                for i, (job, _future) in enumerate(batch):
                    if results[i] is not None:
                        continue
                    try:
                        results[i] = job.run(view)
                    except ApiError as refusal:
                        results[i] = refusal
                view.flush()
        except BaseException:
            if view is not None:
                view.discard()
            raise
        view.commit()
        self._appended = view.appended
        return [result for result in results if result is not None]


def _charge(
    view: BatchView, jobs: list[Job], results: list[dict[str, Any] | ApiError | None]
) -> None:
    """Charge the batch's rate limits in one go; a job over its limit gets its 429 in ``results``.

    Several jobs of one key (moves of one game, games of one address) are
    one charge of that many requests; those beyond what was granted are
    refused, the later ones first.
    """
    by_key: dict[str, list[int]] = {}
    charges: dict[str, fair_store.Charge] = {}
    for i, job in enumerate(jobs):
        try:
            charge = job.quota(view)
        except ApiError as refusal:  # refused before any charge (a wrong token)
            results[i] = refusal
            continue
        if charge is not None:
            by_key.setdefault(charge.key, []).append(i)
            charges[charge.key] = charge
    if not charges:
        return
    grants = view.take(
        [attrs.evolve(charge, count=len(by_key[key])) for key, charge in charges.items()]
    )
    for key, indexes in by_key.items():
        grant = grants[key]
        if grant.granted >= len(indexes):
            continue
        name = key.partition(":")[0]
        wait = grant.retry_after_ms(view.now_ms) / 1000
        for i in indexes[grant.granted :]:
            results[i] = too_many(Reason(quotas.WHAT.get(name, "server.quota.other")), wait)


def _settle(outcomes: list[_Outcome]) -> None:
    """On the event loop: hand every request of a batch its answer or refusal."""
    for future, result in outcomes:
        if future.done():  # the client went away
            continue
        if isinstance(result, BaseException):
            future.set_exception(result)
        else:
            future.set_result(result)


def _as_answerable(exc: Exception) -> Exception:
    """A failed write as the client should see it: 503 for the database, else the bug."""
    if isinstance(exc, StoreError):
        log.warning("write failed: %s", exc)
        return UnavailableError(Reason("server.store_failed"))
    if isinstance(exc, Twenty48Error):
        return ApiError(409, str(exc))
    return exc
