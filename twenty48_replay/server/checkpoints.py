"""The checkpointer: a thread that copies SQLite's write-ahead log into the database file.

Left to SQLite, the commit that fills the log past 1,000 pages does this
copy and syncs the whole database file before it returns.  On the server
that commit is the group writer's, so every request of its batch waited
for it: commits of 100 ms to a second under the abuse benchmark, when a
plain commit takes about 1 ms.  The writer's commits therefore only
append to the log (:meth:`Store.checkpoint_in_background`), and this
thread checkpoints every :data:`INTERVAL_S` on a connection of its own,
waiting for nobody: a reader still using old frames, or the writer adding
new ones, is never blocked, and what could not be copied goes next time.
Should this thread fall behind or die, commits checkpoint by themselves
again past a backstop (about 40 MB of log).
"""

from __future__ import annotations

import logging
import threading
from typing import Final

from twenty48_replay.errors import Twenty48Error
from twenty48_replay.store import Store

log = logging.getLogger("twenty48.server")

#: Seconds between checkpoints (the log then holds about a second of commits).
INTERVAL_S: Final = 1.0


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
        """End the thread after one last checkpoint, so that a clean stop leaves a short log."""
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
                    log.warning("checkpoint failed (commits will checkpoint instead): %s", exc)
                failing = True
            else:
                failing = False
                self.checkpoints += 1
            if stopping:
                return
