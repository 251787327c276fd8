"""The running server's parts: the store, the key, the writer and the analyzer.

Its own module so that the application (:mod:`.app`) and the pages
(:mod:`.pages`) both take it from below, neither from the other.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from twenty48_replay.errors import KeyFileError
from twenty48_replay.server import key_rules
from twenty48_replay.server.bots import Analyzer
from twenty48_replay.server.config import ServerConfig, key_path
from twenty48_replay.server.health import Readiness
from twenty48_replay.server.writer import GroupWriter
from twenty48_replay.signing import ServerKey
from twenty48_replay.store import Store

#: Seconds between the interpreter's forced thread switches in a server process.
SWITCH_INTERVAL = 0.0005


class Server:
    """The running server's parts: store, key, writer and analyzer."""

    def __init__(
        self, config: ServerConfig, observe: Callable[[int, int], None] | None = None
    ) -> None:
        """``observe(jobs, moves)`` is told of each committed write batch (the metrics)."""
        self.config = config
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
        self.writer = GroupWriter(self.store, self.key, observe=observe)
        self.readiness = Readiness(self.writer)
        self.analyzer = Analyzer(self.store, config) if config.analyze else None

    def key_document(self) -> dict[str, Any]:
        """The published key set (SPEC 11.6): every key this server signed with, read from
        the database's key history; this key alone before any was recorded."""
        return key_rules.key_set(key_rules.key_history(self.store)) or self.key.well_known()

    def start(self) -> None:
        # The writer thread releases the interpreter lock for every database call
        # (sqlite3 and psycopg do) and must then wait for the event loop thread to
        # hand it back, which a busy loop does only every switch interval (5 ms by
        # default): several waits per commit.  Measured under the benchmark's closed
        # loop: 0.5 ms took the same machine from ~2,050 to ~2,500-2,900 moves/s.
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.writer.start()
        if self.analyzer is not None:
            self.analyzer.start()

    def stop(self) -> None:
        if self.analyzer is not None:
            self.analyzer.stop()
        self.writer.stop()
        self.store.close()
