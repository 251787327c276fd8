"""``GET /healthz`` and ``GET /readyz``: is the process answering, can it take games.

``/healthz`` is answered by the event loop alone (a process that answers
is alive: restart it when it does not).  ``/readyz`` sends a
:class:`~twenty48_replay.server.writes.write_jobs.Ping` through the writer's
queue: it is answered only if the writer thread takes jobs, the database
opens a write transaction and answers a query, and this process's key is
still the key in use.  Otherwise it is 503 with the reason (send no players
here).  It also follows the hash chains of the moderation log and the key
history (:mod:`twenty48_replay.store.log_chain`), in a thread of its own
with a reading connection, never in the writer: a rewrite behind the
server's back makes it 503 with where the chain breaks, and a ready answer
publishes each log's length and head, to compare with heads written down
earlier.  Following the chains reads every row of both logs, so it is done
at most every :data:`CHAIN_SECONDS`.

A check costs a transaction, and a load balancer may ask often: one check
runs at a time, every caller meanwhile shares its outcome, and an outcome
is reused for :data:`REUSE_SECONDS`.  A check that takes longer than
:data:`TIMEOUT_SECONDS` is "not ready" (the writer or the database is stuck).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final

from starlette.concurrency import run_in_threadpool

from twenty48_replay.core.errors import Twenty48Error
from twenty48_replay.server.api_errors import ApiError
from twenty48_replay.server.writes import write_jobs
from twenty48_replay.server.writes.writer import GroupWriter, UnavailableError
from twenty48_replay.store import Store, log_chain

REUSE_SECONDS: Final = 1.0
TIMEOUT_SECONDS: Final = 5.0
#: Seconds a verdict on the chains is reused.
CHAIN_SECONDS: Final = 10.0


class Readiness:
    """The outcome of the latest readiness check: None when ready, else why not.

    ``heads``: each chained log's length and head, as last followed (None before).
    """

    def __init__(self, writer: GroupWriter, store: Store) -> None:
        self.writer = writer
        self.store = store
        self._checked_at = -REUSE_SECONDS
        self._outcome: str | None = None
        self._running: asyncio.Task[str | None] | None = None
        self._chains_at = -CHAIN_SECONDS
        self._chains: log_chain.ChainReport | None = None

    @property
    def heads(self) -> dict[str, Any] | None:
        """The chains' heads as ``/readyz`` publishes them, once followed and intact."""
        if self._chains is None or not self._chains.intact:
            return None
        return self._chains.as_json()

    async def reason(self) -> str | None:
        """Why the server is not ready (None: ready); at most one check at a time."""
        if time.monotonic() - self._checked_at < REUSE_SECONDS:
            return self._outcome
        if self._running is None or self._running.done():
            self._running = asyncio.ensure_future(self._check())
        return await asyncio.shield(self._running)

    async def _check(self) -> str | None:
        outcome = await self._probe()
        self._outcome = outcome
        self._checked_at = time.monotonic()
        return outcome

    async def _probe(self) -> str | None:
        if not self.writer.alive:
            return "the writer thread is not running"
        try:
            await asyncio.wait_for(self.writer.run(write_jobs.Ping()), TIMEOUT_SECONDS)
        except TimeoutError:
            return f"the writer did not answer within {TIMEOUT_SECONDS:g} s"
        except UnavailableError:
            return "the database does not answer (unavailable, or busy for too long)"
        except ApiError as refusal:  # 503: this process's key is no longer the key in use
            return refusal.reason
        return await self._chain_problem()

    async def _chain_problem(self) -> str | None:
        """Where a chained log was rewritten, or None (followed again every CHAIN_SECONDS)."""
        fresh = time.monotonic() - self._chains_at < CHAIN_SECONDS
        if self._chains is not None and fresh:
            report = self._chains
        else:
            try:
                report = await asyncio.wait_for(
                    run_in_threadpool(self.store.chains), TIMEOUT_SECONDS
                )
            except TimeoutError:
                return f"the logs' hash chains could not be read within {TIMEOUT_SECONDS:g} s"
            except Twenty48Error:
                return "the database does not answer (unavailable, or busy for too long)"
            self._chains, self._chains_at = report, time.monotonic()
        if report.intact:
            return None
        return (
            "the moderation log or the key history was changed behind the server's back: "
            + report.problems[0].describe()
        )
