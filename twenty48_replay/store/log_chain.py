"""The moderation log and the key history as hash chains: a rewrite shows, whoever made it.

Triggers refuse UPDATE, DELETE and REPLACE on both logs, but only to those
who cannot drop or disable them: the owner of an SQLite file can do
anything to it, and on PostgreSQL the table's owner may ``ALTER TABLE ...
DISABLE TRIGGER``.  So each row carries ``chain``, the SHA-256 of the
previous row's ``chain`` and the row's own content (:func:`canonical_bytes`,
the one definition of that content), the first row's previous being
:data:`GENESIS`, as a certificate-transparency log chains its entries:

* a row changed, inserted, removed or moved breaks the chain at that row or
  the one after it (:func:`verify` names them);
* a row removed at the end leaves a chain that still links, so
  ``log_heads`` keeps each log's length and newest ``chain``, written in the
  same transaction as every row: the end must meet it;
* someone who rewrites a log, recomputes every ``chain`` after it and
  rewrites ``log_heads`` to match leaves a consistent database, and only a
  head kept outside it tells: ``/readyz``, ``twenty48 check``, serve's start
  line and ``twenty48 backup`` publish each log's length and head, for the
  operator to write down and give back to ``twenty48 check --head``, which
  says whether the log still passes through it (docs/operating.md).

Appends take the log's ``log_heads`` row first, locked (``FOR UPDATE`` on
PostgreSQL; SQLite's write transactions are serial already), so two
processes appending at once chain one after the other.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

import attrs
from sqlalchemy import Column, Table, func, select, update
from sqlalchemy.engine import Connection

from twenty48_replay.core.errors import StoreError
from twenty48_replay.core.i18n import N_
from twenty48_replay.store.tables import key_events, log_heads, moderation_log

#: The previous ``chain`` of a log's first row.
GENESIS: Final = "0" * 64
#: Rows read at a time when a log is checked (memory stays bounded whatever its size).
BATCH: Final = 2000
#: The column every chained table carries.
CHAIN_COLUMN: Final = "chain"


@attrs.frozen
class ChainedLog:
    """A table kept as a chain: ``name`` (the table's, and the log's in ``log_heads``),
    and ``order``, the column that numbers its rows."""

    table: Table
    order: Column[int]
    #: The columns a row's content is made of: all but ``chain``, in the table's order.
    columns: tuple[str, ...] = attrs.field(init=False)

    @columns.default
    def _content(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.table.columns if c.name != CHAIN_COLUMN)

    @property
    def name(self) -> str:
        return self.table.name


KEY_HISTORY: Final = ChainedLog(key_events, key_events.c.seq)
MODERATION_LOG: Final = ChainedLog(moderation_log, moderation_log.c.id)
LOGS: Final = (KEY_HISTORY, MODERATION_LOG)


def canonical_bytes(log: ChainedLog, row: Mapping[str, Any]) -> bytes:
    """A row's content as the chain hashes it: a JSON array, ASCII, no spaces.

    The log's name, then every column but ``chain`` in the table's order,
    with the values as the store reads them back (text unescaped, numbers as
    integers, NULL as null).  A value of a type the column never holds (a
    hand-edited SQLite file) is written as its type and ``repr``, so it
    hashes as something else and breaks the chain instead of an error.
    """
    return _canonical(log, [row[name] for name in log.columns])


def _odd(value: object) -> dict[str, str]:
    return {"type": type(value).__name__, "repr": repr(value)}


#: One encoder for every row (``json.dumps`` with these options builds a new one per call).
_ENCODER: Final = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), default=_odd)


def _canonical(log: ChainedLog, values: Sequence[Any]) -> bytes:
    """:func:`canonical_bytes` of a row given as its content values, in ``log.columns`` order."""
    return _ENCODER.encode([log.name, *values]).encode()


def link(previous: str, log: ChainedLog, row: Mapping[str, Any]) -> str:
    """The ``chain`` of ``row`` after a row whose ``chain`` is ``previous``."""
    return _link(previous, _canonical(log, [row[name] for name in log.columns]))


def _link(previous: str, content: bytes) -> str:
    digest = hashlib.sha256(previous.encode("utf-8", "surrogatepass"))
    digest.update(b"\n")
    digest.update(content)
    return digest.hexdigest()


@attrs.frozen
class Head:
    """A log's length and newest ``chain`` (:data:`GENESIS` while it is empty)."""

    log: str
    length: int
    head: str

    def as_json(self) -> dict[str, Any]:
        return {"rows": self.length, "head": self.head}

    def text(self) -> str:
        """``LOG:ROWS:HEAD``, as ``twenty48 check --head`` takes it back."""
        return f"{self.log}:{self.length}:{self.head}"


def parse_head(text: str) -> Head | None:
    """A head written down as ``LOG:ROWS:HEAD`` (:meth:`Head.text`), or None if it is not one."""
    parts = text.strip().split(":")
    if len(parts) != 3:
        return None
    log, rows_text, head = parts
    if log not in {chained.name for chained in LOGS}:
        return None
    if not (rows_text.isascii() and rows_text.isdigit() and len(rows_text) <= 15):
        return None
    if len(head) != len(GENESIS) or not all(c in "0123456789abcdef" for c in head):
        return None
    return Head(log, int(rows_text), head)


@attrs.frozen
class ChainProblem:
    """Where a log stops being the chain it was written as.

    ``position``: the first row (``seq`` or ``id``) that does not follow
    from the one before it, with ``more`` such rows after it; or None when
    every row follows but the end is not the recorded head (``found`` and
    ``recorded``; ``recorded`` None when the log has no head row); or
    ``written``, a head written down earlier that this chain does not pass
    through.
    """

    log: str
    position: int | None = None
    more: int = 0
    found: Head | None = None
    recorded: Head | None = None
    written: Head | None = None

    def describe(self) -> str:
        """One line for ``twenty48 check`` (its findings are in English, as the schema's)."""
        if self.written is not None:
            return (
                f"{self.log}: the head written down ({self.written.length} rows, "
                f"{self.written.head}) is not on this chain (rows up to it were rewritten, "
                "or removed)"
            )
        if self.position is not None:
            line = (
                f"{self.log}: row {self.position} does not follow the hash chain (it or the row "
                "before it was changed, inserted, removed or moved)"
            )
            return line + (f", and {self.more} more rows after it" if self.more else "")
        assert self.found is not None
        if self.recorded is None:
            return f"{self.log}: no recorded head in log_heads (the row was removed)"
        return (
            f"{self.log}: {self.found.length} rows ending in {self.found.head}, but the recorded "
            f"head is {self.recorded.length} rows ending in {self.recorded.head} (rows removed "
            "at the end, or the head rewritten)"
        )

    def refusal(self, db: str) -> StoreError:
        """Why a server will not run on this database, one line in the reader's language."""
        if self.written is not None:
            return StoreError(
                N_(
                    "{db}: {log} does not pass through the head written down ({rows} rows); "
                    "refusing to use it ('twenty48 check' lists every problem)"
                ),
                db=db,
                log=self.log,
                rows=self.written.length,
            )
        if self.position is not None:
            return StoreError(
                N_(
                    "{db}: {log} does not follow its hash chain at row {row} (rows changed, "
                    "inserted, removed or moved behind the program's back); refusing to use it "
                    "('twenty48 check' lists every problem)"
                ),
                db=db,
                log=self.log,
                row=self.position,
            )
        return StoreError(
            N_(
                "{db}: {log} does not end at its recorded head (rows removed at its end, or "
                "the head rewritten); refusing to use it ('twenty48 check' lists every problem)"
            ),
            db=db,
            log=self.log,
        )


@attrs.frozen
class ChainReport:
    """Each log's head as its rows give it, and every place a chain is broken."""

    heads: tuple[Head, ...]
    problems: tuple[ChainProblem, ...]

    @property
    def intact(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        """``{"key_events": {"rows": N, "head": HEX}, "moderation_log": {...}}``."""
        return {head.log: head.as_json() for head in self.heads}


# ------------------------------------------------------------------ writing


def append(connection: Connection, log: ChainedLog, values: Mapping[str, Any]) -> int:
    """Insert one row at the end of ``log``, chained; returns its number (``seq``, ``id``).

    ``values`` are the row's columns but ``chain`` (one left out is NULL);
    without the numbering column the row gets the number after the highest.
    A row whose number is taken is refused by the database (the caller's
    transaction fails), as before the chain.
    """
    recorded = connection.execute(
        select(log_heads.c.length, log_heads.c.head)
        .where(log_heads.c.log == log.name)
        .with_for_update()
    ).first()
    if recorded is None:
        raise StoreError(
            N_("{log} has no recorded head (log_heads); 'twenty48 check' says more"), log=log.name
        )
    row = {name: values.get(name) for name in log.columns}
    position = row[log.order.name]
    if position is None:
        highest = connection.execute(select(func.max(log.order))).scalar()
        position = row[log.order.name] = int(highest or 0) + 1
    chain = link(str(recorded.head), log, row)
    connection.execute(log.table.insert().values(**row, **{CHAIN_COLUMN: chain}))
    connection.execute(
        update(log_heads)
        .where(log_heads.c.log == log.name)
        .values(length=log_heads.c.length + 1, head=chain)
    )
    return int(position)


def start(connection: Connection) -> None:
    """Record each log's head as its rows are (a new database; an upgrade, after chaining)."""
    for log in LOGS:
        length, head = 0, GENESIS
        for row in rows(connection, log):
            length, head = length + 1, str(row[CHAIN_COLUMN])
        connection.execute(log_heads.insert().values(log=log.name, length=length, head=head))


def rows(connection: Connection, log: ChainedLog) -> Iterator[Mapping[str, Any]]:
    """Every row of ``log`` in order, each as a mapping of its columns, :data:`BATCH` at a time."""
    names = [column.name for column in log.table.columns]
    for values in _tuples(connection, log, names):
        yield dict(zip(names, values, strict=True))


def _tuples(connection: Connection, log: ChainedLog, names: Sequence[str]) -> Iterator[Any]:
    """The columns ``names`` of every row of ``log`` in order (keyset pages of :data:`BATCH`)."""
    columns = [log.table.c[name] for name in names]
    at = names.index(log.order.name)
    after: int | None = None
    while True:
        query = select(*columns).order_by(log.order).limit(BATCH)
        if after is not None:
            query = query.where(log.order > after)
        page = connection.execute(query).all()
        yield from page
        if len(page) < BATCH:
            return
        after = page[-1][at]


# ------------------------------------------------------------------ checking


def verify(connection: Connection, written: Sequence[Head] = ()) -> ChainReport:
    """Follow each log's chain from its first row and compare its end with ``log_heads``.

    ``written``: heads written down earlier (:func:`parse_head`): the chain
    must pass through each (its row number ROWS must carry that ``chain``),
    however many rows were added since.  Reads every row of both logs (a few
    per rotation, revocation or moderation action), :data:`BATCH` at a time.
    """
    recorded = {
        str(row.log): Head(str(row.log), int(row.length), str(row.head))
        for row in connection.execute(select(log_heads))
    }
    heads: list[Head] = []
    problems: list[ChainProblem] = []
    for log in LOGS:
        wanted = {head.length: head for head in written if head.log == log.name}
        previous, length, broken = GENESIS, 0, []
        missed = [head for head in wanted.values() if head.length == 0 and head.head != GENESIS]
        at = log.columns.index(log.order.name)
        for row in _tuples(connection, log, [*log.columns, CHAIN_COLUMN]):
            length += 1
            stored = row[-1]
            if stored != _link(previous, _canonical(log, row[:-1])):
                broken.append(row[at])
            previous = stored if isinstance(stored, str) else repr(stored)
            mark = wanted.get(length)
            if mark is not None and mark.head != previous:
                missed.append(mark)
        missed += [head for head in wanted.values() if head.length > length]
        problems += [ChainProblem(log.name, written=head) for head in missed]
        found = Head(log.name, length, previous)
        heads.append(found)
        if broken:
            problems.append(ChainProblem(log.name, int(broken[0]), more=len(broken) - 1))
        mark = recorded.get(log.name)
        if mark != found:
            problems.append(ChainProblem(log.name, found=found, recorded=mark))
    return ChainReport(tuple(heads), tuple(problems))
