"""The checkpointer: a thread that copies SQLite's write-ahead log into the database file.

Left to SQLite, the commit that takes the log past 1,000 pages copies
every frame into the database file and syncs that file before it returns.
On the server that commit is the group writer's, so every request of its
batch waits for the copy and the sync: under the abuse benchmark, commits
of 100 ms to a second where a plain one takes about 1 ms.  This thread
checkpoints every :data:`INTERVAL_S` on a connection of its own, waiting
for nobody (a reader still using old frames, or the writer adding new
ones, is never blocked; what could not be copied goes next time), so the
commit that crosses 1,000 pages finds little left to copy and only
restarts the log from its start, which keeps the file at a few MB.

Measured with ``bench_abuse.py --via direct`` (calm phase, 200 players at 10
moves/s, the same code otherwise, two runs each): p99 73 and 76 ms with
this thread every 0.25 s; 132 and 450 ms without it; 131 and 159 ms when
commits were kept from checkpointing at all until 10,000 pages (a 40 MB
log, which grows, and an appended file syncs more slowly than one
rewritten in place on this machine's disk).
"""

from __future__ import annotations

import logging
import threading
from typing import Final

from twenty48_replay.core.errors import Twenty48Error
from twenty48_replay.store import Store

log = logging.getLogger("twenty48.server")

#: Seconds between checkpoints.
INTERVAL_S: Final = 0.25


class Checkpointer:
    """Checkpoints ``store`` every ``interval_s`` in a thread of its own, until :meth:`stop`."""

    def __init__(self, store: Store, interval_s: float = INTERVAL_S) -> None:
        self.store = store
        self.interval_s = interval_s
        self.checkpoints = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name="twenty48-checkpointer", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """End the thread after one last checkpoint."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        failing = False
        while True:
            stopping = self._stopping.wait(self.interval_s)
            try:
                self.store.checkpoint()
            except Twenty48Error as exc:  # said once until it works again; commits still do it
                if not failing:
                    log.warning("checkpoint failed (commits still checkpoint): %s", exc)
                failing = True
            else:
                failing = False
                self.checkpoints += 1
            if stopping:
                return
