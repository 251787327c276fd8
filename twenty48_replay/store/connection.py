"""Opening a database: where it is, making it ours, refusing what is not.

``open_engine`` accepts a filesystem path or an SQLAlchemy URL.  A new
database is created only where nothing is: a missing or empty SQLite file,
or a PostgreSQL schema without any object.  Anything else is inspected
read-only first and refused unless it is ours, exactly (see
:mod:`twenty48_replay.store.schema`): an SQLite file is first read with
``immutable=1`` (no lock, no journal, no ``-wal``/``-shm`` touched, so a
foreign file and its side files stay byte-identical) and must carry our
marker in its main file, then its whole schema is compared through a
``mode=ro`` connection.  A version 1 database of ours is upgraded in place
(:mod:`twenty48_replay.store.upgrade`).  Driver exceptions are mapped to
:class:`StoreError` here, so nothing above sees a driver traceback.

PostgreSQL connections are bounded in time: ``TWENTY48_DB_CONNECT_TIMEOUT``
(seconds, default 10) limits connecting, ``TWENTY48_DB_STATEMENT_TIMEOUT``
(seconds, default 60; 0 = none) every statement.  ``connect_timeout`` or
``options`` in the URL's query take precedence.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from sqlalchemy import Engine, case, create_engine, func, select
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from twenty48_replay.core.errors import StoreError, Twenty48Error, os_problem
from twenty48_replay.core.i18n import N_
from twenty48_replay.store import dialects, log_chain, schema, upgrade
from twenty48_replay.store.legacy import OLDER
from twenty48_replay.store.tables import APPLICATION, SCHEMA_VERSION, meta, metadata

ENV_VAR: Final = "TWENTY48_DB"
SUPPORTED: Final = ("sqlite", "postgresql")
CONNECT_TIMEOUT_VAR: Final = "TWENTY48_DB_CONNECT_TIMEOUT"
STATEMENT_TIMEOUT_VAR: Final = "TWENTY48_DB_STATEMENT_TIMEOUT"
#: Seconds to wait for a PostgreSQL server to accept and answer a connection.
DEFAULT_CONNECT_TIMEOUT: Final = 10
#: Seconds any one PostgreSQL statement may run (0 = no limit).
DEFAULT_STATEMENT_TIMEOUT: Final = 60
_SIDE_FILES: Final = ("-wal", "-journal")


def default_path() -> Path:
    """The default database: ``twenty48.sqlite3`` in the user data directory."""
    from platformdirs import user_data_path

    return user_data_path("twenty48-replay", appauthor=False) / "twenty48.sqlite3"


def resolve_url(target: str | None) -> URL:
    """The SQLAlchemy URL for ``--db`` / ``TWENTY48_DB`` / the default path.

    A plain path is made into a URL field by field, never by pasting it into
    URL text: ``a?uri=true`` or ``b%41`` used to open the files ``a`` (with
    SQLite URI options) and ``bA``.  Raises ArgumentError or ValueError for
    text that is not a URL.
    """
    target = target or os.environ.get(ENV_VAR) or None
    if target is None:
        path = default_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return URL.create("sqlite", database=str(path))
    if "://" in target:
        return make_url(target)
    return URL.create("sqlite", database=str(Path(target).expanduser()))


def describe(url: URL | str) -> str:
    """A URL fit for messages: the path for SQLite, no password otherwise."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.render_as_string(hide_password=True)


def driver_error(exc: SQLAlchemyError | sqlite3.Error, where: str) -> Twenty48Error:
    """Map a driver exception to one clear error line."""
    message = str(exc.orig) if isinstance(exc, DBAPIError) and exc.orig is not None else str(exc)
    first = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    if dialects.is_lock_error(first):
        return StoreError(
            N_("{db}: the database is locked by another process; try again"), db=where
        )
    if dialects.TOO_BIG_MESSAGE in first:
        return StoreError(
            N_(
                "{db}: a stored value is over {size} MiB, larger "
                "than any this program writes; refusing to read it"
            ),
            db=where,
            size=dialects.MAX_VALUE_BYTES // 2**20,
        )
    if "file is not a database" in first or "file is encrypted" in first:
        return StoreError(N_("{db}: not an SQLite database"), db=where)
    if "unable to open database file" in first:
        return StoreError(
            N_("{db}: cannot open the database file (missing folder or no permission)"), db=where
        )
    if "readonly database" in first or "read-only" in first:
        return StoreError(N_("{db}: the database is read-only"), db=where)
    if "timeout expired" in first or "timed out" in first:
        return StoreError(
            N_("{db}: the database server did not answer within the connect timeout ({name})"),
            db=where,
            name=CONNECT_TIMEOUT_VAR,
        )
    if "statement timeout" in first:
        return StoreError(
            N_("{db}: a statement ran longer than the statement timeout ({name})"),
            db=where,
            name=STATEMENT_TIMEOUT_VAR,
        )
    return StoreError(N_("{db}: database error: {error}"), db=where, error=first)


def _seconds(name: str, default: int, minimum: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not minimum <= int(raw) <= 86_400:
        raise StoreError(
            N_("{name}={value}: expected whole seconds from {minimum} to {maximum}"),
            name=name,
            value=repr(raw),
            minimum=minimum,
            maximum=86_400,
        )
    return int(raw)


def postgresql_connect_args(url: URL) -> dict[str, Any]:
    """Connect and statement timeouts for psycopg, unless the URL sets its own."""
    args: dict[str, Any] = {}
    if "connect_timeout" not in url.query:
        args["connect_timeout"] = _seconds(CONNECT_TIMEOUT_VAR, DEFAULT_CONNECT_TIMEOUT, 1)
    if "options" not in url.query:
        statement = _seconds(STATEMENT_TIMEOUT_VAR, DEFAULT_STATEMENT_TIMEOUT, 0)
        args["options"] = f"-c statement_timeout={statement * 1000}"
    return args


def _parse(target: str | None) -> tuple[URL, str]:
    """The URL to open and its display name; refuses what cannot be checked.

    An SQLite URL may not carry options (``?uri=true&mode=memory``,
    ``?immutable=1``, ``?nolock=1``): the file checks before opening work on
    the path, and with options the driver could open another database than
    the one checked, or this one without its locks.
    """
    try:
        parsed = resolve_url(target)
        parsed.port  # noqa: B018 - a non-numeric port raises here, not later
        shown = describe(parsed)
    except (ArgumentError, ValueError):
        raise StoreError(
            N_("{db}: not a database path or URL (check the host and port)"), db=target
        ) from None
    if parsed.get_backend_name() == "sqlite" and parsed.query:
        raise StoreError(
            N_(
                "{db}: options in an SQLite URL ({options}) are not "
                "supported; give the file's path (a '?' in a plain path is part of the name)"
            ),
            db=shown,
            options=", ".join(sorted(parsed.query)),
        )
    return parsed, shown


def open_engine(target: str | None, *, read_only: bool = False) -> tuple[Engine, str]:
    """Connect, create, check or upgrade the schema; returns the engine and its display name.

    ``read_only``: never write (not even to create or upgrade); the database
    must already be ours by its marker, its schema is not required to match
    (``twenty48 check`` reports how it differs).
    """
    parsed, shown = _parse(target)
    backend = parsed.get_backend_name()
    if backend not in SUPPORTED:
        raise StoreError(
            N_("{db}: unsupported database {backend} (use SQLite or PostgreSQL)"),
            db=shown,
            backend=repr(backend),
        )
    on_disk = backend == "sqlite" and parsed.database not in (None, "", ":memory:")
    path = Path(parsed.database) if on_disk and parsed.database else None
    needs_upgrade: int | None = None
    if path is not None:
        _require_regular_file(path, shown)
        if _is_new_file(path, shown):
            if read_only:
                raise StoreError(N_("{db}: no database there yet (nothing to check)"), db=shown)
            _create_file(path, shown)
        _require_marker(path, shown)
        needs_upgrade = _validate_read_only(path, shown, read_only)
        if read_only:
            return _sqlite_reader(path), shown
    try:
        connect_args = postgresql_connect_args(parsed) if backend == "postgresql" else {}
        engine = create_engine(parsed, connect_args=connect_args)
    except (NoSuchModuleError, ImportError) as exc:
        raise StoreError(
            N_("{db}: database driver not installed ({error})"), db=shown, error=exc
        ) from None
    dialects.configure_engine(engine)
    try:
        if read_only:
            with reading(engine, shown) as connection:
                _marker(connection, shown)
        elif path is None:
            _ensure_schema(engine, shown)
        elif needs_upgrade is not None:
            _upgrade(engine, shown)
    except SQLAlchemyError as exc:
        engine.dispose()
        raise driver_error(exc, shown) from None
    except Twenty48Error:
        engine.dispose()
        raise
    return engine, shown


def _require_regular_file(path: Path, shown: str) -> None:
    """Refuse a path that is not a regular file (or nothing yet) in an existing folder.

    A device, pipe or socket reports size 0, so it used to count as a new
    database: ``--db /dev/null`` renamed a fresh database over the device
    node (as root, ``/dev/null`` and ``/dev/zero`` became regular files), and
    ``--db FIFO`` did the same to the pipe.  Reading one would block (a FIFO)
    or never end (``/dev/zero``).  Symbolic links are followed: it is the
    file they lead to that must be regular.  The ``-wal``, ``-shm`` and
    ``-journal`` files SQLite opens beside it must be regular files too, not
    links (SQLite writes into them): a FIFO named ``g.db-journal`` hung every
    command on its hot-journal check.  A database of ours is in WAL mode and
    never has a rollback journal; a non-empty ``-journal`` next to an existing
    file is refused, because the first writing connection would roll it back
    into the file after the read-only checks: a hand-made journal put a
    trigger back into a file that had passed them, and the trigger ran on the
    same command's first move.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise _unreachable(shown, exc) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise StoreError(N_("{db}: is a directory, not a database file"), db=shown)
    if mode is not None and not stat.S_ISREG(mode):
        raise StoreError(
            N_(
                "{db}: not a regular file (a device, pipe or socket); refusing to use it "
                "as a database"
            ),
            db=shown,
        )
    real = os.path.realpath(path)  # SQLite keeps its side files next to the real file
    for suffix in (*_SIDE_FILES, "-shm"):
        try:
            side = os.lstat(f"{real}{suffix}")
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _unreachable(f"{shown}{suffix}", exc) from None
        if not stat.S_ISREG(side.st_mode):
            raise StoreError(
                N_(
                    "{db}: {file} next to it is not a regular file (a link, "
                    "device or pipe); refusing to open the database"
                ),
                db=shown,
                file=f"{Path(real).name}{suffix}",
            )
        if suffix == "-journal" and side.st_size > 0 and mode is not None:
            raise StoreError(
                N_(
                    "{db}: {file} next to it holds a rollback journal, which "
                    "SQLite would apply after the file was checked (a database of ours never has "
                    "one); refusing to open the database"
                ),
                db=shown,
                file=f"{Path(real).name}{suffix}",
            )
    try:
        if mode is None and path.is_symlink():
            raise StoreError(
                N_("{db}: a symbolic link to nothing; refusing to create through it"), db=shown
            )
        if not path.parent.exists():
            raise StoreError(
                N_("{db}: folder {folder} does not exist"), db=shown, folder=path.parent
            )
    except OSError as exc:
        raise _unreachable(shown, exc) from None


def _unreachable(shown: str, exc: OSError) -> StoreError:
    """The file cannot even be looked at (a folder on its path forbids it, say)."""
    return StoreError(N_("{db}: cannot reach the file ({error})"), db=shown, error=os_problem(exc))


def _is_new_file(path: Path, shown: str) -> bool:
    """Whether ``path`` may receive a new database: missing or empty, with no journal left."""
    try:
        size = path.stat().st_size if path.exists() else 0
        sides = [Path(f"{path}{suffix}") for suffix in _SIDE_FILES]
        leftovers = [side.name for side in sides if side.exists() and side.stat().st_size > 0]
    except OSError as exc:
        raise StoreError(
            N_("{db}: cannot read the file ({error})"), db=shown, error=os_problem(exc)
        ) from None
    if size:
        return False
    if leftovers:
        raise StoreError(
            N_(
                "{db}: empty, but {file} next to it holds data; refusing to create a database there"
            ),
            db=shown,
            file=leftovers[0],
        )
    return True


def _create_file(path: Path, shown: str) -> None:
    """Create a database of ours at ``path`` (missing or empty), all or nothing, mode 0600.

    The database is built in a temporary file beside it (schema, marker,
    then WAL mode), synced, and only then linked into place, so a crash
    never leaves a half-made file that the next run would refuse.  If
    another process created it meanwhile, its file is kept and ours dropped.
    Through a symbolic link the database is made where the link leads (the
    link stays a link), and an empty file is replaced only while it is
    still an empty regular file.
    """
    path = Path(os.path.realpath(path))
    temporary = path.with_name(f".{path.name}.new-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    engine = create_engine(URL.create("sqlite", database=str(temporary)))
    dialects.configure_engine(engine)
    try:
        # Owner only, whatever the umask: a server's database holds the secret seeds
        # of unfinished games (and its players' secrets, hashed).  SQLite gives its
        # -wal and -shm files the mode of the database file.
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        with engine.begin() as connection:
            metadata.create_all(connection)
            dialects.install_triggers(connection)
            log_chain.start(connection)
            connection.execute(
                meta.insert(),
                [
                    {"key": "application", "value": APPLICATION},
                    {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                ],
            )
        dialects.prepare_new_database(engine)
        engine.dispose()
        _fsync(temporary)
        try:
            os.link(temporary, path)
        except FileExistsError:
            existing = path.stat()
            if stat.S_ISREG(existing.st_mode) and existing.st_size == 0:
                os.replace(temporary, path)
        _fsync(path.parent)
    except SQLAlchemyError as exc:
        raise driver_error(exc, shown) from None
    except OSError as exc:
        raise StoreError(
            N_("{db}: cannot create the database ({error})"), db=shown, error=os_problem(exc)
        ) from None
    finally:
        engine.dispose()
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
            leftover.unlink(missing_ok=True)


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _uri(path: Path, options: str) -> str:
    return f"file:{quote(str(path.resolve()))}?{options}"


def _require_marker(path: Path, shown: str) -> None:
    """Refuse a file whose main file does not say it is ours; touches nothing.

    ``immutable=1`` reads the main file alone: no lock, no journal recovery,
    no ``-wal``/``-shm`` opened, so refusing leaves every byte as it was.
    A database of ours always has its marker in the main file (it is built
    whole before it appears at its path, see :func:`_create_file`).  Without
    locks a checkpoint by another process may be caught half-way, so a read
    error is retried a few times before it counts.  A checkpoint cut short
    (the process killed while it copied the log into the main file) leaves
    the main file half-copied until the next normal open replays the log;
    so when the main file alone does not read and a ``-wal`` file is there,
    the marker is read through the log (``mode=ro``: the database is never
    written, only its ``-shm`` index may be).
    """
    for attempt in range(3):
        try:
            value = _read_marker(path, shown)
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc) or "encrypted" in str(exc):
                raise StoreError(N_("{db}: not an SQLite database"), db=shown) from None
            if "unable to open" in str(exc):
                raise _no_permission(shown) from None
            if Path(f"{path}-wal").exists():
                with suppress(sqlite3.DatabaseError):
                    value = _read_marker(path, shown, through_log=True)
                    if value != APPLICATION:
                        raise _not_ours(shown) from None
                    return
            if attempt == 2:
                raise StoreError(
                    N_("{db}: not a twenty48-replay database ({why})"), db=shown, why=exc
                ) from None
            time.sleep(0.05 * (attempt + 1))
        else:
            if value != APPLICATION:
                raise _not_ours(shown)
            return


def _not_ours(shown: str) -> StoreError:
    return StoreError(N_("{db}: not a twenty48-replay database"), db=shown)


def _no_permission(shown: str) -> StoreError:
    return StoreError(N_("{db}: cannot open the database file (no permission?)"), db=shown)


def _read_marker(path: Path, shown: str, *, through_log: bool = False) -> object:
    """The marker's value in the main file alone (``immutable=1``), or ``through_log``."""
    try:
        raw = sqlite3.connect(
            _uri(path, "mode=ro" if through_log else "mode=ro&immutable=1"), uri=True
        )
    except sqlite3.Error:
        raise _no_permission(shown) from None
    try:
        dialects.limit_value_size(raw)
        raw.execute("PRAGMA trusted_schema = OFF")
        names = {
            str(row[0])
            for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if meta.name not in names:
            what = N_("it has other tables") if names else N_("it has no tables of ours")
            raise StoreError(
                N_("{db}: not a twenty48-replay database ({why})"),
                db=shown,
                why=StoreError(what),
            )
        row = raw.execute(
            f"SELECT CASE WHEN length(value) <= {_MARKER_LENGTH} THEN value END "
            f"FROM {meta.name} WHERE key = 'application'"
        ).fetchone()
        return None if row is None else row[0]
    finally:
        raw.close()


def _sqlite_reader(path: Path) -> Engine:
    """An engine that can only read ``path``, and touches no file if it can.

    With no ``-wal`` file next to it (nobody has it open; every commit is in
    the main file) it reads with ``immutable=1``, creating and changing
    nothing.  Otherwise it must read the WAL too: ``mode=ro`` never writes
    the database or checkpoints, but may update the ``-shm`` index.
    """
    wal = Path(f"{path}-wal")
    uri = _uri(path, "mode=ro" if wal.exists() else "mode=ro&immutable=1")

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, check_same_thread=False)

    engine = create_engine("sqlite://", creator=connect)
    dialects.configure_engine(engine)  # trusted_schema=OFF; reads in one snapshot
    return engine


def _validate_read_only(path: Path, shown: str, read_only: bool) -> int | None:
    """Compare the whole schema through a read-only connection; refuse what differs.

    Returns the older version the database has (to be upgraded), or None.
    """
    engine = _sqlite_reader(path)
    try:
        with engine.connect() as connection:
            _marker(connection, shown)
            return None if read_only else _verdict(connection, shown)
    except SQLAlchemyError as exc:
        raise driver_error(exc, shown) from None
    finally:
        engine.dispose()


#: The marker rows; no other row of the marker table is ever read.
MARKER_KEYS: Final = ("application", "schema_version")
#: A marker value longer than this (the column is VARCHAR(256)) reads as missing.
_MARKER_LENGTH: Final = 256


def marker_values(connection: Connection) -> dict[str, str]:
    """The marker rows, each value at most 256 characters (longer ones left out).

    Only the two keys are read, and a long value is never fetched: reading
    every row, as text, made a 200 MB file with one 200 MB junk row cost
    1 GB of memory before it was refused (SQLite does not enforce VARCHAR
    lengths).
    """
    value = case((func.length(meta.c.value) <= _MARKER_LENGTH, meta.c.value), else_=None)
    rows = connection.execute(select(meta.c.key, value).where(meta.c.key.in_(MARKER_KEYS)))
    return {str(key): str(value) for key, value in rows if value is not None}


def _marker(connection: Connection, shown: str) -> dict[str, str]:
    """Our marker rows, or StoreError if the database does not carry them."""
    try:
        values = marker_values(connection)
    except SQLAlchemyError:
        raise _not_ours(shown) from None
    if values.get("application") != APPLICATION:
        raise _not_ours(shown)
    return values


def schema_version(values: dict[str, str]) -> int | None:
    """The schema version in our marker rows, or None if it is not a number."""
    version = values.get("schema_version", "")
    return int(version) if version.isascii() and version.isdigit() and len(version) < 9 else None


def _verdict(connection: Connection, shown: str) -> int | None:
    """The older version the schema exactly is (to upgrade), or None when it is current.

    Anything else (another version number, any difference from the
    version's exact schema) is refused.
    """
    values = _marker(connection, shown)
    version = schema_version(values)
    if version is None:
        raise StoreError(
            N_("{db}: unreadable schema version {version}; run 'twenty48 check'"),
            db=shown,
            version=repr(values.get("schema_version", "")),
        )
    if version > SCHEMA_VERSION:
        raise StoreError(
            N_(
                "{db}: database schema version {version} is newer than this program "
                "supports ({supported}); upgrade twenty48-replay"
            ),
            db=shown,
            version=str(version),
            supported=str(SCHEMA_VERSION),
        )
    if version != SCHEMA_VERSION and version not in OLDER:
        raise StoreError(
            N_("{db}: unknown schema version {version}; run 'twenty48 check'"),
            db=shown,
            version=str(version),
        )
    definition = OLDER.get(version, metadata)
    found = schema.differences(
        schema.expected(connection, definition, version), schema.actual(connection)
    )
    if found:
        more = StoreError(N_(" and {count} more"), count=len(found) - 3) if len(found) > 3 else ""
        raise StoreError(
            N_(
                "{db}: not a twenty48-replay database as this program creates it "
                "({differences}{more}); refusing to open it ('twenty48 check' lists why)"
            ),
            db=shown,
            differences=", ".join(found[:3]),
            more=more,
        )
    return None if version == SCHEMA_VERSION else version


def _ensure_schema(engine: Engine, shown: str) -> None:
    """Create the schema in an empty PostgreSQL schema; check it; upgrade version 1."""
    with engine.connect() as reader:
        reader = reader.execution_options(**dialects.read_options(engine.dialect.name))
        empty = not schema.actual(reader)
    if empty:
        with engine.begin() as connection:
            if not schema.actual(connection):  # nobody created it meanwhile
                metadata.create_all(connection)
                dialects.install_triggers(connection)
                log_chain.start(connection)
                connection.execute(
                    meta.insert(),
                    [
                        {"key": "application", "value": APPLICATION},
                        {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                    ],
                )
        dialects.prepare_new_database(engine)
    with engine.connect() as reader:
        reader = reader.execution_options(**dialects.read_options(engine.dialect.name))
        needs_upgrade = _verdict(reader, shown)
    if needs_upgrade is not None:
        _upgrade(engine, shown)


def _upgrade(engine: Engine, shown: str) -> None:
    """Upgrade an older database of ours, in one write transaction."""
    with engine.begin() as connection:
        version = _verdict(connection, shown)  # checked again, now under the write lock
        if version is not None:
            upgrade.upgrade(connection, version)
            if _verdict(connection, shown) is not None:
                raise StoreError(
                    N_("{db}: upgrade to schema version {version} failed"),
                    db=shown,
                    version=str(SCHEMA_VERSION),
                )


@contextmanager
def transaction(engine: Engine, shown: str, *, deferred_sync: bool = False) -> Iterator[Connection]:
    """One write transaction; driver errors leave as :class:`StoreError`.

    ``deferred_sync``: the commit does not wait for the disk (still atomic;
    see :meth:`Store.batch`).
    """
    try:
        with engine.connect() as connection:
            if deferred_sync:
                connection = connection.execution_options(**{dialects.DEFERRED_SYNC_OPTION: True})
            with connection.begin():
                if deferred_sync:
                    dialects.defer_sync(connection)
                yield connection
    except SQLAlchemyError as exc:
        raise driver_error(exc, shown) from None


class HeldConnection:
    """One connection kept for the write transactions of one thread (the server's writer).

    A pooled checkout and check-in for every transaction (pool events, the
    reset on return) cost the server's writer about a tenth of its
    interpreter time at 2,000 moves a second, for a thread that does nothing
    but write.  After a driver error the connection goes back to the pool
    (which drops it if the driver found it broken) and the next transaction
    checks one out again.
    Not for :meth:`Store.batch`'s deferred syncs: every transaction here is
    durable at commit.
    """

    def __init__(self, engine: Engine, shown: str) -> None:
        self._engine = engine
        self._shown = shown
        self._connection: Connection | None = None

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """Like :func:`transaction`, on the kept connection (opened when missing)."""
        try:
            if self._connection is None:
                self._connection = self._engine.connect()
            with self._connection.begin():
                yield self._connection
        except SQLAlchemyError as exc:
            self.close()
            raise driver_error(exc, self._shown) from None

    def close(self) -> None:
        """Give the connection back (from the thread that used it)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            with suppress(SQLAlchemyError):
                connection.close()


@contextmanager
def reading(engine: Engine, shown: str) -> Iterator[Connection]:
    """A read-only use of a connection (no write lock taken on SQLite)."""
    try:
        with engine.connect() as connection:
            yield connection.execution_options(**dialects.read_options(engine.dialect.name))
    except SQLAlchemyError as exc:
        raise driver_error(exc, shown) from None
