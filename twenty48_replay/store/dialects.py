"""Everything that differs between database backends, in one place.

* SQLite: WAL with ``synchronous=FULL`` (a committed move survives a crash
  or power loss), ``BEGIN IMMEDIATE`` transactions (a writer takes the lock
  up front, so two writers conflict cleanly instead of deadlocking),
  ``trusted_schema=OFF`` (an untrusted file cannot run functions from its
  schema), and a busy timeout so a briefly locked file waits.
* The append-only log is enforced by triggers in each dialect: UPDATE and
  DELETE on ``moves`` are refused, and an INSERT must carry exactly the next
  sequence number of its game.  The moderation log (``moderation_log``)
  and the key history (``key_events``) refuse UPDATE and DELETE the same
  way, and on SQLite also an INSERT that would replace a row (``INSERT OR
  REPLACE``, ``REPLACE``, an upsert).  Every SQLite connection of ours sets
  ``recursive_triggers = ON``, so that REPLACE's implicit delete fires the
  delete triggers.  Triggers only hold against those who cannot drop or
  disable them: :mod:`twenty48_replay.store.log_chain` makes a rewrite seen
  whoever made it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import Engine, event
from sqlalchemy.engine import Connection

from twenty48_replay.store.tables import SCHEMA_VERSION

APPEND_ONLY_MESSAGE: Final = "twenty48: the move log is append-only"
SEQUENCE_MESSAGE: Final = "twenty48: move out of sequence"
KEY_HISTORY_MESSAGE: Final = "twenty48: the key history is append-only"
MODERATION_MESSAGE: Final = "twenty48: the moderation log is append-only"
BUSY_TIMEOUT_MS: Final = 5000
#: The largest string or blob an SQLite connection of ours reads or writes.
#: The longest value a record can put in a row (its metadata as JSON, at most
#: 16 MiB, each character stored as at most two) is well below it.  SQLite
#: allows 1 GB and does not enforce ``VARCHAR(n)``: a hand-made file with a
#: 100 MB player and a 50 MB ``extra`` made ``show`` take 488 MB, and a value
#: near 1 GB would take gigabytes.  Over the limit SQLite refuses to load the
#: value ("string or blob too big") before allocating it.
MAX_VALUE_BYTES: Final = 64 * 1024 * 1024
TOO_BIG_MESSAGE: Final = "string or blob too big"
#: Execution option marking a connection that only reads (no write lock up front).
READ_ONLY_OPTION: Final = "twenty48_read_only"
#: Execution option of a write whose commit need not wait for the disk (batch imports).
DEFERRED_SYNC_OPTION: Final = "twenty48_deferred_sync"
#: Where a pooled SQLite connection's record notes its ``synchronous`` setting.
_SYNCHRONOUS_KEY: Final = "twenty48_synchronous"

_SQLITE_TRIGGERS: Final = (
    f"""CREATE TRIGGER IF NOT EXISTS moves_no_update BEFORE UPDATE ON moves
        BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY_MESSAGE}'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS moves_no_delete BEFORE DELETE ON moves
        BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY_MESSAGE}'); END""",
    # "The previous move exists" plus the primary key's uniqueness means
    # "exactly the next move"; a point lookup is cheaper than MAX per row.
    f"""CREATE TRIGGER IF NOT EXISTS moves_next_seq BEFORE INSERT ON moves
        WHEN NEW.seq IS NOT 1 AND NOT EXISTS (
            SELECT 1 FROM moves WHERE game_id = NEW.game_id AND seq = NEW.seq - 1)
        BEGIN SELECT RAISE(ABORT, '{SEQUENCE_MESSAGE}'); END""",
)

POSTGRESQL_TRIGGERS: Final = (
    f"""CREATE OR REPLACE FUNCTION twenty48_moves_append_only() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION '{APPEND_ONLY_MESSAGE}'; END; $$ LANGUAGE plpgsql""",
    f"""CREATE OR REPLACE FUNCTION twenty48_moves_next_seq() RETURNS trigger AS $$
        BEGIN
          IF NEW.seq IS DISTINCT FROM 1 AND NOT EXISTS (
              SELECT 1 FROM moves WHERE game_id = NEW.game_id AND seq = NEW.seq - 1) THEN
            RAISE EXCEPTION '{SEQUENCE_MESSAGE}';
          END IF;
          RETURN NEW;
        END; $$ LANGUAGE plpgsql""",
    "DROP TRIGGER IF EXISTS moves_no_update_delete ON moves",
    """CREATE TRIGGER moves_no_update_delete BEFORE UPDATE OR DELETE OR TRUNCATE ON moves
        FOR EACH STATEMENT EXECUTE FUNCTION twenty48_moves_append_only()""",
    "DROP TRIGGER IF EXISTS moves_next_seq ON moves",
    """CREATE TRIGGER moves_next_seq BEFORE INSERT ON moves
        FOR EACH ROW EXECUTE FUNCTION twenty48_moves_next_seq()""",
)

# ------------------------------------------------------------ the key history
# (store.server_keys) Which keys the server signed with and
# which were revoked is evidence, like the move log: rows are only ever added.
_SQLITE_KEY_TRIGGERS: Final = (
    f"""CREATE TRIGGER IF NOT EXISTS key_events_no_update BEFORE UPDATE ON key_events
        BEGIN SELECT RAISE(ABORT, '{KEY_HISTORY_MESSAGE}'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS key_events_no_delete BEFORE DELETE ON key_events
        BEGIN SELECT RAISE(ABORT, '{KEY_HISTORY_MESSAGE}'); END""",
)

POSTGRESQL_KEY_TRIGGERS: Final = (
    f"""CREATE OR REPLACE FUNCTION twenty48_key_events_append_only() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION '{KEY_HISTORY_MESSAGE}'; END; $$ LANGUAGE plpgsql""",
    "DROP TRIGGER IF EXISTS key_events_no_update_delete ON key_events",
    """CREATE TRIGGER key_events_no_update_delete BEFORE UPDATE OR DELETE OR TRUNCATE
        ON key_events FOR EACH STATEMENT EXECUTE FUNCTION twenty48_key_events_append_only()""",
)


# ------------------------------------------------------------ the moderation log
# (store.players) Append-only in the same way.
MODERATION_TABLE: Final = "moderation_log"
SQLITE_MODERATION_TRIGGERS: Final = (
    f"""CREATE TRIGGER IF NOT EXISTS moderation_no_update BEFORE UPDATE ON moderation_log
        BEGIN SELECT RAISE(ABORT, '{MODERATION_MESSAGE}'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS moderation_no_delete BEFORE DELETE ON moderation_log
        BEGIN SELECT RAISE(ABORT, '{MODERATION_MESSAGE}'); END""",
)
POSTGRESQL_MODERATION_TRIGGERS: Final = (
    f"""CREATE OR REPLACE FUNCTION twenty48_moderation_append_only() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION '{MODERATION_MESSAGE}'; END; $$ LANGUAGE plpgsql""",
    "DROP TRIGGER IF EXISTS moderation_no_update_delete ON moderation_log",
    """CREATE TRIGGER moderation_no_update_delete BEFORE UPDATE OR DELETE OR TRUNCATE
        ON moderation_log FOR EACH STATEMENT EXECUTE FUNCTION twenty48_moderation_append_only()""",
)

#: Each table that has triggers: (its SQLite statements, its PostgreSQL statements).
TRIGGERS_BY_TABLE: Final = {
    "moves": (_SQLITE_TRIGGERS, POSTGRESQL_TRIGGERS),
    "key_events": (_SQLITE_KEY_TRIGGERS, POSTGRESQL_KEY_TRIGGERS),
    MODERATION_TABLE: (SQLITE_MODERATION_TRIGGERS, POSTGRESQL_MODERATION_TRIGGERS),
}

# ------------------------------------------------ no REPLACE (schema version 4)
# SQLite's INSERT OR REPLACE (REPLACE, an upsert's conflict) deletes the row it
# conflicts with without firing its delete triggers (unless the connection set
# recursive_triggers): a ban became "nobody unban mallory", a key's revocation
# vanished.  A BEFORE INSERT trigger fires before the conflict is resolved, on
# every connection, so an insert that would take a row's place is refused there.
# (PostgreSQL has no REPLACE; its upsert fires the UPDATE trigger, which refuses.)
NO_REPLACE_SINCE: Final = 4
SQLITE_NO_REPLACE_TRIGGERS: Final = {
    "key_events": (
        f"""CREATE TRIGGER IF NOT EXISTS key_events_no_replace BEFORE INSERT ON key_events
        WHEN EXISTS (SELECT 1 FROM key_events WHERE seq = NEW.seq
            OR (key_id = NEW.key_id AND event = NEW.event))
        BEGIN SELECT RAISE(ABORT, '{KEY_HISTORY_MESSAGE}'); END""",
    ),
    MODERATION_TABLE: (
        f"""CREATE TRIGGER IF NOT EXISTS moderation_no_replace BEFORE INSERT ON moderation_log
        WHEN EXISTS (SELECT 1 FROM moderation_log WHERE id = NEW.id)
        BEGIN SELECT RAISE(ABORT, '{MODERATION_MESSAGE}'); END""",
    ),
}


def read_options(dialect_name: str) -> dict[str, Any]:
    """Execution options of a read-only connection: one consistent snapshot.

    A game row and its log are read by separate statements; PostgreSQL's
    default READ COMMITTED gives each statement a fresh snapshot, so a
    concurrent append could fall between them.  SQLite's read transaction
    already sees one snapshot; it only needs to not take the write lock.
    """
    if dialect_name == "postgresql":
        return {"isolation_level": "REPEATABLE READ"}
    return {READ_ONLY_OPTION: True}


def configure_engine(engine: Engine) -> None:
    """Install the per-connection settings of the engine's dialect."""
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)


def _sqlite_connect(dbapi_connection: Any, record: Any) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's implicit
    # transactions would start a deferred one).
    dbapi_connection.isolation_level = None
    limit_value_size(dbapi_connection)
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA trusted_schema = OFF")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA synchronous = FULL")
        record.info[_SYNCHRONOUS_KEY] = "FULL"
        # REPLACE's implicit delete then fires the delete triggers (the append-only logs').
        cursor.execute("PRAGMA recursive_triggers = ON")
    finally:
        cursor.close()


def can_checkpoint(engine: Engine) -> bool:
    """Whether :func:`checkpoint` does anything: an SQLite file (its write-ahead log)."""
    return engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:")


def checkpoint(engine: Engine) -> None:
    """SQLite: copy what the log holds into the database file, waiting for nobody (PASSIVE).

    Frames a reader still needs, or a writer is adding, stay for the next
    call.  SQLite's own checkpoint, run by the commit that takes the log past
    1,000 pages, still restarts the log from its start (keeping the file
    small), but has little left to copy and sync when this runs often.
    PostgreSQL: nothing to do (its server checkpoints by itself).
    """
    if not can_checkpoint(engine):
        return
    raw = engine.raw_connection()
    try:
        raw.driver_connection.execute("PRAGMA wal_checkpoint(PASSIVE)")  # type: ignore[union-attr]
    finally:
        raw.close()


def limit_value_size(dbapi_connection: Any) -> None:
    """Cap the size of any value the connection loads (see :data:`MAX_VALUE_BYTES`)."""
    import sqlite3

    dbapi_connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)


def prepare_new_database(engine: Engine) -> None:
    """Settings a new database of ours gets once (SQLite: WAL, which persists).

    Called only after the file was found empty: a file that is not ours is
    never modified, not even its journal mode.
    """
    if engine.dialect.name == "sqlite":
        raw = engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA journal_mode = WAL")  # type: ignore[union-attr]
        finally:
            raw.close()


def _sqlite_begin(connection: Connection) -> None:
    options = connection.get_execution_options()
    if options.get(READ_ONLY_OPTION, False):
        connection.exec_driver_sql("BEGIN")
        return
    # Every write transaction gets its own sync mode, so a batch's relaxed setting never
    # leaks into a later move on the same pooled connection.  The setting belongs to the
    # driver's connection; its pool record notes it, so it is stated only when it changes.
    wanted = "NORMAL" if options.get(DEFERRED_SYNC_OPTION, False) else "FULL"
    if connection.info.get(_SYNCHRONOUS_KEY) != wanted:
        connection.exec_driver_sql(f"PRAGMA synchronous = {wanted}")
        connection.info[_SYNCHRONOUS_KEY] = wanted
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def install_triggers(connection: Connection, version: int = SCHEMA_VERSION) -> None:
    """Create the append-only and sequence triggers of every table present, for this dialect.

    Only the tables the database has get theirs, so the same call serves every
    schema version (an older version's tables are a subset of today's); the
    triggers a later version added are left out of an older ``version``.
    """
    name = connection.dialect.name
    if name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'table'"
    elif name == "postgresql":
        query = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    else:  # pragma: no cover - refused earlier by the store
        raise ValueError(f"unsupported database dialect {name!r}")
    present = {str(row[0]) for row in connection.exec_driver_sql(query)}
    for table, (sqlite, postgresql) in TRIGGERS_BY_TABLE.items():
        if table in present:
            for statement in sqlite if name == "sqlite" else postgresql:
                connection.exec_driver_sql(statement)
    if name == "sqlite" and version >= NO_REPLACE_SINCE:
        for table, statements in SQLITE_NO_REPLACE_TRIGGERS.items():
            if table in present:
                for statement in statements:
                    connection.exec_driver_sql(statement)


_SQLITE_TRIGGER_NAMES: Final = frozenset(
    {"moves_no_update", "moves_no_delete", "moves_next_seq"}
    | {"key_events_no_update", "key_events_no_delete"}
    | {"moderation_no_update", "moderation_no_delete"}
    | {"key_events_no_replace", "moderation_no_replace"}
)


def foreign_objects(connection: Connection, tables: set[str]) -> list[str]:
    """Schema objects that our schema does not create (an untrusted file's additions).

    Triggers and views run code when the store touches the file, so a file
    carrying any we did not make is not ours.  (SQLite only; a PostgreSQL
    database is administered, not handed around as a file.)
    """
    if connection.dialect.name != "sqlite":
        return []
    rows = connection.exec_driver_sql(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ).fetchall()
    found = []
    for kind, name, table in rows:
        if kind == "trigger" and name in _SQLITE_TRIGGER_NAMES:
            continue
        if kind in ("table", "index") and table in tables:
            continue
        found.append(f"{kind} {name}")
    return found


def defer_sync(connection: Connection) -> None:
    """Inside a transaction: let its commit skip waiting for the disk (still atomic).

    SQLite gets the same through :data:`DEFERRED_SYNC_OPTION` when the
    transaction begins (its ``synchronous`` setting cannot change inside one).
    """
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql("SET LOCAL synchronous_commit = off")


def sync_now(engine: Engine) -> None:
    """Force every commit so far to disk.

    SQLite: a full checkpoint, which syncs the write-ahead log, copies it
    into the database file and syncs that.  PostgreSQL: one synchronous
    commit that writes, which flushes the log up to it, earlier
    asynchronous commits included.
    """
    if engine.dialect.name == "sqlite":
        raw = engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA wal_checkpoint(FULL)")  # type: ignore[union-attr]
        finally:
            raw.close()
    elif engine.dialect.name == "postgresql":
        with engine.begin() as connection:
            connection.exec_driver_sql("SET LOCAL synchronous_commit = on")
            connection.exec_driver_sql("SELECT txid_current()")  # writes, so the commit flushes


def integrity_check(connection: Connection) -> list[str]:
    """The database's own consistency check; an empty list means healthy."""
    if connection.dialect.name == "sqlite":
        rows = [r[0] for r in connection.exec_driver_sql("PRAGMA integrity_check").fetchall()]
        return [] if rows == ["ok"] else [str(r) for r in rows]
    return []  # PostgreSQL checks its pages itself (checksums); nothing cheap to ask here


def param_mark(connection: Connection) -> str:
    """The driver's placeholder for one value in raw SQL: ``?`` (sqlite3) or ``%s`` (psycopg)."""
    return "?" if connection.dialect.paramstyle == "qmark" else "%s"


def bulk_insert_moves(
    connection: Connection, rows: Sequence[tuple[int, int, str, int | None]]
) -> None:
    """Insert many move rows fast: the driver's executemany with plain tuples."""
    marks = ", ".join([param_mark(connection)] * 4)
    connection.exec_driver_sql(
        f"INSERT INTO moves (game_id, seq, direction, played_ms) VALUES ({marks})", rows
    )


def is_lock_error(message: str) -> bool:
    """Whether a driver error means another process holds the database."""
    return "database is locked" in message or "database table is locked" in message


def file_size_bytes(connection: Connection) -> int | None:
    """Size of the database in bytes (SQLite pages in use), for stats and benchmarks."""
    if connection.dialect.name == "sqlite":
        count = connection.exec_driver_sql("PRAGMA page_count").scalar_one()
        size = connection.exec_driver_sql("PRAGMA page_size").scalar_one()
        return int(count) * int(size)
    if connection.dialect.name == "postgresql":
        return int(
            connection.exec_driver_sql("SELECT pg_database_size(current_database())").scalar_one()
        )
    return None
