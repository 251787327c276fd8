"""The running server's parts: the store, the key, the writer and the analyzer.

Its own module so that the application (:mod:`.app`) and the pages
(:mod:`.pages`) both take it from below, neither from the other.
"""

from __future__ import annotations

import sys

from twenty48_replay.server.bots import Analyzer
from twenty48_replay.server.config import ServerConfig, key_path
from twenty48_replay.server.writer import GroupWriter
from twenty48_replay.signing import ServerKey
from twenty48_replay.store import Store

#: Seconds between the interpreter's forced thread switches in a server process.
SWITCH_INTERVAL = 0.0005


class Server:
    """The running server's parts: store, key, writer and analyzer."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store = Store(config.db)
        try:
            self.key = ServerKey.load_or_create(key_path(config))
        except BaseException:
            self.store.close()
            raise
        self.writer = GroupWriter(self.store, self.key)
        self.analyzer = Analyzer(self.store, config) if config.analyze else None

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
