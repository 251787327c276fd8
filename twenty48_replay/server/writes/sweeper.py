"""The expiry sweeper: unstarted games removed, idle games finished as abandoned.

A task on each server process's event loop; every ``sweep_interval_s`` it
asks the writer for the database's sweeper lease (one row,
compare-and-set), and only the process holding it sweeps, so several
processes on one database sweep once, and another takes over within a few
intervals when the holder dies.  A pass is bounded:

* at most :data:`MAX_EXPIRED` games never started within
  ``unstarted_expiry_s`` are removed (and as many spent rate-limit rows);
* at most :data:`MAX_ABANDONED` started games with no move for
  ``abandon_after_s`` are finished as abandoned, reading at most
  :data:`MAX_MOVES_READ` moves of their logs.

Finishing an abandoned game is the writer's: the record is signed (with
``"abandoned": true``) and stored only if the game still has the moves it
had when the sweeper read it, so a move that arrives meanwhile wins.  The
sweeper reads a game's state from its rows (projection and log, checked
against each other), never by replaying it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from typing import Final

import attrs
from starlette.concurrency import run_in_threadpool

from twenty48_replay.core.timestamps import now_ms
from twenty48_replay.server.config import ServerConfig
from twenty48_replay.server.writes import write_jobs
from twenty48_replay.server.writes.live_games import GameEntry
from twenty48_replay.server.writes.writer import GroupWriter
from twenty48_replay.store import Store
from twenty48_replay.store import fair_games as fair_store

log = logging.getLogger("twenty48.server")

#: The lease's name in ``server_leases``.
LEASE: Final = "expiry-sweeper"
#: Unstarted games removed in one pass, at most.
MAX_EXPIRED: Final = 500
#: Idle games finished in one pass, at most, and moves of their logs read.
MAX_ABANDONED: Final = 20
MAX_MOVES_READ: Final = 200_000


@attrs.frozen
class SweepReport:
    """What one pass did (``held``: this process held the lease and swept)."""

    held: bool
    removed: tuple[int, ...] = ()
    abandoned: tuple[int, ...] = ()


class Sweeper:
    """The sweeper of one server process (see the module docstring)."""

    def __init__(self, store: Store, writer: GroupWriter, config: ServerConfig) -> None:
        self.store = store
        self.writer = writer
        self.config = config
        self.holder = f"{socket.gethostname()[:64]}:{os.getpid()}:{secrets.token_hex(4)}"
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Run passes on the current event loop until :meth:`stop`."""
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="twenty48-sweeper")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_interval_s)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a database that is busy now; the next pass tries again
                log.warning("expiry sweep failed: %s", getattr(exc, "reason", type(exc).__name__))

    async def sweep(self) -> SweepReport:
        """One pass (if this process holds the lease)."""
        duration_ms = int(max(3 * self.config.sweep_interval_s, 10.0) * 1000)
        lease = await self.writer.run(write_jobs.ClaimLease(LEASE, self.holder, duration_ms))
        if not lease["held"]:
            return SweepReport(held=False)
        now = now_ms()
        expired = await self.writer.run(
            write_jobs.ExpireUnstarted(
                now - int(self.config.unstarted_expiry_s * 1000), MAX_EXPIRED
            )
        )
        idle = await run_in_threadpool(self._idle, now - int(self.config.abandon_after_s * 1000))
        abandoned = []
        for game, entry in idle:
            done = await self.writer.run(write_jobs.AbandonGame(game, entry))
            if done["abandoned"]:
                abandoned.append(game.fair_id)
        if expired["removed"] or abandoned:
            log.info(
                "expiry: %d unstarted games removed, %d idle games finished as abandoned",
                len(expired["removed"]),
                len(abandoned),
            )
        return SweepReport(True, tuple(expired["removed"]), tuple(abandoned))

    def _idle(self, idle_before_ms: int) -> list[tuple[fair_store.IdleGame, GameEntry]]:
        """The idle games to finish this pass, each as its rows have it (bounded)."""
        found: list[tuple[fair_store.IdleGame, GameEntry]] = []
        moves = 0
        with self.store.reading() as connection:
            for game in fair_store.idle_games(connection, idle_before_ms, MAX_ABANDONED):
                if moves + game.moves > MAX_MOVES_READ and found:
                    break
                rows = fair_store.idle_game_state(connection, game.fair_id)
                if rows is None:
                    log.warning(
                        "expiry: game %d is not as its log says; left as it is", game.fair_id
                    )
                    continue
                row, state, letters = rows
                moves += len(letters)
                found.append((game, GameEntry(row, state, letters, finished=False)))
        return found
