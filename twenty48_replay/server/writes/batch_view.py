"""The games as one write batch sees them, and what a write job is.

Every job reads its game through a :class:`BatchView` (the entries this
batch already changed, else the writer's :class:`EntryCache`, else the
database), does its SQL on the batch's connection, and returns its answer
or raises :class:`ApiError` without writing anything.  The view's changes
reach the cache only after the batch's transaction committed.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Protocol

import attrs
from sqlalchemy.engine import Connection

from twenty48_replay.core.game import GameState
from twenty48_replay.server import key_rules
from twenty48_replay.server.api_errors import ApiError, not_found
from twenty48_replay.server.guard.quotas import RateLimits
from twenty48_replay.server.writes.live_games import Facts, GameEntry, load_entry
from twenty48_replay.store import fair_games as fair_store

#: Games whose state the writer keeps in memory, at most.
CACHE_SIZE = 20_000
#: And at most this many bytes of their logs and kept states (see GameEntry.weight).
CACHE_BYTES = 64 * 1024 * 1024


class Signer(Protocol):
    """What the writer needs of the server key (``signing.ServerKey``)."""

    @property
    def key_id(self) -> str: ...

    def sign_record(self, record_dict: dict[str, Any]) -> dict[str, Any]: ...


class EntryCache:
    """Recently used games, least recently used dropped first (writer thread only).

    Bounded twice: at most ``size`` games and ``max_bytes`` of their logs and
    kept states (:attr:`GameEntry.weight`), so a few very long games cannot
    make it grow without end; the entry just put is always kept.
    """

    def __init__(self, size: int = CACHE_SIZE, max_bytes: int = CACHE_BYTES) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[int, GameEntry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, fair_id: int) -> GameEntry | None:
        entry = self._entries.get(fair_id)
        if entry is not None:
            self._entries.move_to_end(fair_id)
        return entry

    def put(self, entry: GameEntry) -> None:
        self.drop(entry.fair_id)
        self._entries[entry.fair_id] = entry
        self.bytes += entry.weight
        while len(self._entries) > 1 and (
            len(self._entries) > self.size or self.bytes > self.max_bytes
        ):
            _fair_id, oldest = self._entries.popitem(last=False)
            self.bytes -= oldest.weight

    def drop(self, fair_id: int) -> None:
        entry = self._entries.pop(fair_id, None)
        if entry is not None:
            self.bytes -= entry.weight


@attrs.define
class BatchView:
    """The games as one batch sees them; its changes reach the cache only after commit."""

    connection: Connection
    cache: EntryCache
    signer: Signer
    now_ms: int
    #: Batch the appends into one compare-and-set at :meth:`flush` (the fast path);
    #: False runs each append at once (the path after a conflict).
    deferred: bool = False
    #: The rate limits in force (see :meth:`Job.quota`).
    limits: RateLimits = attrs.field(factory=RateLimits)
    changed: dict[int, GameEntry] = attrs.field(factory=dict)
    #: Games this batch found gone (expired): dropped from the cache at commit.
    gone: set[int] = attrs.field(factory=set)
    appends: list[fair_store.Append] = attrs.field(factory=list)
    #: Moves appended in this transaction (for the metrics, once it commits).
    appended: int = 0
    _pending: set[int] = attrs.field(factory=set)
    _signer_checked: bool = False

    def append(
        self, game_id: int, letters: str, letter: str, after: GameState, facts: Facts
    ) -> bool:
        """Append ``letter`` to the log ``letters`` (now, or at the next flush).

        False if the game moved on.
        """
        append = fair_store.move_append(
            game_id,
            letters,
            letter,
            after,
            self.now_ms,
            max_tile=facts.max_tile,
            won=facts.won,
            over=facts.over,
        )
        if not self.deferred:
            done = fair_store.append_moves(self.connection, [append])
            self.appended += done
            return done
        if game_id in self._pending:
            self.flush()
        self._pending.add(game_id)
        self.appends.append(append)
        self.appended += 1
        return True

    def check_signer(self) -> None:
        """503 unless this process's key is still the one in use (before anything is signed).

        Another process on the same database may have rotated the key since
        this one started; a record it signed now would name a retired key
        after its period and fail every verification.  Asked once per batch.
        """
        if self._signer_checked:
            return
        problem = key_rules.refuse_stale_signer(self.connection, self.signer.key_id)
        if problem is not None:
            raise ApiError(503, problem)
        self._signer_checked = True

    def flush(self) -> None:
        """Write the deferred appends; :class:`BatchConflict` if any game had moved on."""
        if not self.appends:
            return
        appends, self.appends = self.appends, []
        self._pending.clear()
        if not fair_store.append_moves(self.connection, appends):
            raise BatchConflictError

    def get(self, fair_id: int, *, fresh: bool = False, hint: GameEntry | None = None) -> GameEntry:
        """The game as this batch sees it; ``fresh``: as the database has it now.

        A fresh read of a game this process knows (or of ``hint``, an entry
        read elsewhere) reads only the moves it lacks.
        """
        known = self.changed.get(fair_id) or self.cache.get(fair_id) or hint
        if not fresh and known is not None:
            return known
        if fresh:
            self.flush()  # the database must hold this batch's own appends first
        entry = load_entry(self.connection, fair_id, known)
        if entry is None:
            self.forget(fair_id)
            raise not_found(fair_id)
        self.changed[fair_id] = entry
        return entry

    def forget(self, fair_id: int) -> None:
        """The game is gone (expired): drop it from the cache once this batch commits."""
        self.changed.pop(fair_id, None)
        self.gone.add(fair_id)

    def take(self, charges: list[fair_store.Charge]) -> dict[str, fair_store.Grant]:
        """Charge rate limits in this batch's transaction (see store.quotas)."""
        self.flush()
        return fair_store.take_rate_limits(self.connection, charges, self.now_ms)

    def put(self, entry: GameEntry) -> None:
        self.changed[entry.fair_id] = entry

    def commit(self) -> None:
        for fair_id in self.gone:
            self.cache.drop(fair_id)
        for entry in self.changed.values():
            self.cache.put(entry)

    def discard(self) -> None:
        """After a failed transaction: forget what this batch loaded or changed."""
        for fair_id in self.changed:
            self.cache.drop(fair_id)


class BatchConflictError(Exception):
    """A deferred append found its game changed: roll back, run the batch move by move."""


class Job(Protocol):
    """One write request; ``order`` sorts a batch so every process locks rows in one order.

    ``quota`` says which rate limit the request is charged to (None: none),
    or raises :class:`ApiError` for a request refused before any charge (a
    move with the wrong token charges nothing to the game).  The writer
    charges a whole batch at once before it runs the jobs it let through.
    """

    @property
    def order(self) -> int: ...

    def quota(self, view: BatchView) -> fair_store.Charge | None: ...

    def run(self, view: BatchView) -> dict[str, Any]: ...
