"""Rate limits kept in the database: the generic cell rate algorithm, one row per key.

The score server's limits (games created per address, moves per game, ...)
must hold across every server process on one database (``serve --workers
2`` on one PostgreSQL), so their state lives where those processes already
meet: in the database, in the same transaction as the writes they guard.
The ``limits`` library, the obvious choice otherwise, keeps its counters in
memory, Redis, Memcached or MongoDB, none of them SQL: using it would mean
a second service for the operator to run, and a limit that is not part of
the transaction it guards.

The generic cell rate algorithm (GCRA, a token bucket kept as one time)
needs one number per key: ``tat_ms``, the theoretical arrival time of the
next request.  A limit lets a request through every ``interval_ms`` on
average, and up to ``burst`` at once: with ``tolerance = interval *
(burst - 1)``, a request at ``now`` is allowed when ``max(tat, now) - now
<= tolerance``, and then moves ``tat`` on by one interval.  :func:`take_rate_limits`
charges many keys (and several requests per key) in two statements, the
decision computed by the database from the row as it is under its lock, so
two processes charging one key at once are serialised, never both let
through on a stale value.  A key whose ``tat_ms`` has passed is a full
bucket, the same as no row; :func:`sweep_rate_limits` deletes such rows.

Every function here runs inside a transaction its caller owns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import attrs
from sqlalchemy import delete, select
from sqlalchemy.engine import Connection

from twenty48_replay.core.errors import StoreError
from twenty48_replay.core.i18n import N_
from twenty48_replay.store import dialects
from twenty48_replay.store.tables import rate_limits

#: Longest key stored (``<limit>:<subject>``); the column holds 300 characters.
MAX_KEY: Final = 300
#: Times a charge inserts and updates the keys whose rows a concurrent sweep deleted.
MAX_ROUNDS: Final = 3


@attrs.frozen(slots=True)
class Charge:
    """``count`` requests for ``key``, under one request per ``interval_ms``, ``burst`` at once."""

    key: str
    count: int
    interval_ms: int
    burst: int

    @property
    def tolerance_ms(self) -> int:
        """How far ahead of now the bucket's time may run: ``burst - 1`` intervals."""
        return self.interval_ms * (self.burst - 1)


@attrs.frozen(slots=True)
class Grant:
    """What a charge let through: ``granted`` of the requests; ``tat_ms`` the bucket's time after.

    A refused request may be sent again ``retry_after_ms(now)`` later.
    """

    key: str
    granted: int
    tat_ms: int
    tolerance_ms: int

    def retry_after_ms(self, now_ms: int) -> int:
        """Milliseconds until one more request of this key would be let through (at least 1)."""
        return max(1, self.tat_ms - self.tolerance_ms - now_ms)


def take_rate_limits(
    connection: Connection, charges: Sequence[Charge], now_ms: int
) -> dict[str, Grant]:
    """Charge every key its ``count`` requests; what each was granted (all, some or none).

    Keys must be distinct.  One UPDATE ... FROM (VALUES ...) computes, per
    key, how many requests fit and the new time, RETURNING both; the keys it
    did not find are then inserted (a full bucket) and charged by a second
    UPDATE: one statement when every key has its row, three when some are
    new, whatever the number of keys (more only when a sweep races it,
    below).  All SET
    expressions see the row before the update (standard SQL, and SQLite's
    behaviour), so ``granted`` is computed from the old time in the same
    statement that replaces it.
    """
    if not charges:
        return {}
    ordered = sorted(charges, key=lambda c: c.key)
    for charge in ordered:
        if not 0 < len(charge.key) <= MAX_KEY or charge.count < 1 or charge.interval_ms < 1:
            raise ValueError(f"not a rate charge: {charge!r}")
    # Most keys have their row already (a game's moves, charged batch after batch): the
    # UPDATE alone charges them, and only the keys it did not find are inserted.
    grants = _charge_rows(connection, ordered, now_ms)
    waiting = [c for c in ordered if c.key not in grants]
    for _ in range(MAX_ROUNDS):
        if not waiting:
            return grants
        _insert_missing(connection, [c.key for c in waiting])
        grants.update(_charge_rows(connection, waiting, now_ms))
        # A key's row can be gone between the INSERT and the UPDATE: another
        # process's sweep deleted it (a full bucket) and committed in between,
        # which READ COMMITTED lets this transaction see.  Insert it again.
        waiting = [c for c in waiting if c.key not in grants]
    if not waiting:
        return grants
    raise StoreError(N_("the database could not store this (busy or unavailable); try again"))


def _charge_rows(connection: Connection, ordered: list[Charge], now_ms: int) -> dict[str, Grant]:
    """One UPDATE ... FROM (VALUES ...) RETURNING: the grants of the keys whose row exists."""
    postgres = connection.dialect.name == "postgresql"
    mark = dialects.param_mark(connection)
    if postgres:
        row = f"({mark}::varchar, {mark}::bigint, {mark}::bigint, {mark}::bigint, {mark}::bigint)"
    else:
        row = "(" + ", ".join([mark] * 5) + ")"
    # v.column1 key, column2 now, column3 interval, column4 tolerance, column5 count
    base = "(CASE WHEN rate_limits.tat_ms > v.column2 THEN rate_limits.tat_ms ELSE v.column2 END)"
    room = f"(v.column2 + v.column4 - {base})"
    fits = (
        f"(CASE WHEN {room} < 0 THEN 0 "
        f"WHEN {room} / v.column3 + 1 < v.column5 THEN {room} / v.column3 + 1 "
        "ELSE v.column5 END)"
    )
    sql = (
        f"UPDATE rate_limits SET tat_ms = {base} + {fits} * v.column3, granted = {fits} "
        f"FROM (VALUES {', '.join([row] * len(ordered))}) AS v "
        "WHERE rate_limits.key = v.column1 "
        "RETURNING rate_limits.key, rate_limits.tat_ms, rate_limits.granted"
    )
    params: list[Any] = []
    for charge in ordered:
        params.extend((charge.key, now_ms, charge.interval_ms, charge.tolerance_ms, charge.count))
    cursor = connection.connection.cursor()
    try:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    finally:
        cursor.close()
    tolerance = {c.key: c.tolerance_ms for c in ordered}
    return {
        str(key): Grant(str(key), int(granted), int(tat), tolerance[str(key)])
        for key, tat, granted in rows
    }


def _insert_missing(connection: Connection, keys: list[str]) -> None:
    """Rows for keys not seen yet, as full buckets (a time long past).

    Written as the driver's own SQL, as the UPDATE is: SQLAlchemy compiles a
    multi-row INSERT anew for every batch (its cache cannot key on the row
    count), which cost a busy server's writer thread more than the charge
    itself (py-spy, bench_abuse.py: 13% of the server's samples).  ``ON
    CONFLICT (key) DO NOTHING`` is the same in SQLite (3.24+) and PostgreSQL.
    """
    mark = dialects.param_mark(connection)
    sql = (
        "INSERT INTO rate_limits (key, tat_ms, granted) VALUES "
        + ", ".join([f"({mark}, 0, 0)"] * len(keys))
        + " ON CONFLICT (key) DO NOTHING"
    )
    cursor = connection.connection.cursor()
    try:
        cursor.execute(sql, keys)
    finally:
        cursor.close()


def sweep_rate_limits(connection: Connection, now_ms: int, limit: int) -> int:
    """Delete up to ``limit`` keys whose bucket is full again (as if never charged)."""
    stale = (
        select(rate_limits.c.key)
        .where(rate_limits.c.tat_ms < now_ms)
        .order_by(rate_limits.c.tat_ms)
        .limit(limit)
    )
    keys = list(connection.execute(stale).scalars())
    if not keys:
        return 0
    result = connection.execute(
        delete(rate_limits).where(rate_limits.c.key.in_(keys), rate_limits.c.tat_ms < now_ms)
    )
    return int(result.rowcount)
