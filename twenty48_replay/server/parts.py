"""The running server's parts: the store, the key, the writer, the analyzer and the sweeper.

Its own module so that the application (:mod:`.app`) and the pages
(:mod:`.pages`) both take it from below, neither from the other.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any

from twenty48_replay.core.errors import KeyFileError
from twenty48_replay.fairplay.signing import ServerKey
from twenty48_replay.server import key_rules
from twenty48_replay.server.bots import Analyzer
from twenty48_replay.server.config import ServerConfig, key_path
from twenty48_replay.server.guard.quotas import RateLimits
from twenty48_replay.server.writes import write_jobs
from twenty48_replay.server.writes.checkpoints import Checkpointer
from twenty48_replay.server.writes.health import Readiness
from twenty48_replay.server.writes.record_checks import RecordChecker
from twenty48_replay.server.writes.sweeper import Sweeper
from twenty48_replay.server.writes.writer import GroupWriter
from twenty48_replay.store import Store

#: Seconds between the interpreter's forced thread switches in a server process.
SWITCH_INTERVAL = 0.0005


class Server:
    """The running server's parts: store, key, writer, analyzer, record checker and sweeper."""

    def __init__(
        self, config: ServerConfig, observe: Callable[[int, int], None] | None = None
    ) -> None:
        """``observe(jobs, moves)`` is told of each committed write batch (the metrics)."""
        self.config = config
        self.limits = RateLimits.from_settings(config.rate_limits, config.rate_limit_specs)
        self.store = Store(config.db)
        try:
            self.key = ServerKey.load_or_create(key_path(config))
            with self.store.reading() as connection:
                problem = key_rules.refuse_stale_signer(connection, self.key.key_id)
            if problem is not None:  # ``serve`` settled the key; another process changed it
                raise KeyFileError(problem)
        except BaseException:
            self.store.close()
            raise
        self.writer = GroupWriter(self.store, self.key, observe=observe, limits=self.limits)
        self.readiness = Readiness(self.writer, self.store)
        self.analyzer = Analyzer(self.store, config) if config.analyze else None
        self.records = RecordChecker(config.max_record_extra_bytes)
        self.sweeper = Sweeper(self.store, self.writer, config)
        self.checkpointer: Checkpointer | None = None

    def key_document(self) -> dict[str, Any]:
        """The published key set (SPEC 11.6): every key this server signed with, read from
        the database's key history; this key alone before any was recorded."""
        return key_rules.key_set(key_rules.key_history(self.store)) or self.key.well_known()

    def start(self) -> None:
        """Start the threads and processes (the sweeper needs the event loop: its own start)."""
        # The writer thread releases the interpreter lock for every database call
        # (sqlite3 and psycopg do) and must then wait for the event loop thread to
        # hand it back, which a busy loop does only every switch interval (5 ms by
        # default): several waits per commit.  Measured under the benchmark's closed
        # loop: 0.5 ms took the same machine from ~2,050 to ~2,500-2,900 moves/s.
        sys.setswitchinterval(SWITCH_INTERVAL)
        # The modules, the schema and the routes are loaded for good by now.  A full
        # collection walks every object the process holds with the interpreter lock
        # held: 60-80 ms of a stopped server every few seconds under the abuse
        # benchmark, nearly all of it these.  Frozen, they are never walked again
        # (measured: a full collection then takes about 6 ms).
        gc.collect()
        gc.freeze()
        if self.store.can_checkpoint():
            self.checkpointer = Checkpointer(self.store)
            self.checkpointer.start()
        self.writer.start()
        self.records.start()
        if self.analyzer is not None:
            self.analyzer.start()

    def stop(self) -> None:
        if self.analyzer is not None:
            self.analyzer.stop()
        self.records.stop()
        self.writer.stop()
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self.store.close()
        gc.unfreeze()  # what start froze may be garbage now (a test process runs many servers)

    async def charge(self, name: str, subject: str) -> None:
        """Charge one request of ``subject`` (an address) to the rate limit ``name``.

        Raises :class:`ApiError` 429 with ``Retry-After`` when over the limit;
        nothing when the limit is not in force.  The hook for endpoints whose
        work is not a write job: a submitted record is charged before it is
        read, a name (``POST /api/players``) before it is registered, with
        :data:`twenty48_replay.server.guard.quotas.REGISTER_NAME`.
        """
        charge = self.limits.charge(name, subject)
        if charge is not None:
            await self.writer.run(write_jobs.TakeToken(charge))
