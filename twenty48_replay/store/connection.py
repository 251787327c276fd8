"""Opening a database: where it is, making it ours, refusing what is not.

``open_engine`` accepts a filesystem path or an SQLAlchemy URL, creates a
new SQLite file with our schema on first use (no setup), and refuses files
that are not SQLite, databases that hold other tables but not ours, and
databases written by a newer schema version.  Driver exceptions are mapped
to :class:`StoreError` here, so nothing above sees a driver traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from sqlalchemy import Engine, create_engine, inspect, select
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from twenty48_replay.errors import StoreError, Twenty48Error
from twenty48_replay.store import dialects
from twenty48_replay.store.tables import APPLICATION, SCHEMA_VERSION, meta, metadata

ENV_VAR: Final = "TWENTY48_DB"
#: Tables a database of schema version 1 may lack (see :func:`_ensure_schema`).
LATER_TABLES: Final = frozenset({"fair_games", "submitted_records"})
SUPPORTED: Final = ("sqlite", "postgresql")


def default_path() -> Path:
    """The default database: ``twenty48.sqlite3`` in the user data directory."""
    from platformdirs import user_data_path

    return user_data_path("twenty48-replay", appauthor=False) / "twenty48.sqlite3"


def resolve_url(target: str | None) -> str:
    """An SQLAlchemy URL for ``--db`` / ``TWENTY48_DB`` / the default path."""
    target = target or os.environ.get(ENV_VAR) or None
    if target is None:
        path = default_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
    if "://" in target:
        return target
    return f"sqlite:///{Path(target).expanduser()}"


def describe(url: str) -> str:
    """A URL fit for messages: the path for SQLite, no password otherwise."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.render_as_string(hide_password=True)


def driver_error(exc: SQLAlchemyError, where: str) -> Twenty48Error:
    """Map a driver exception to one clear error line."""
    message = str(exc.orig) if isinstance(exc, DBAPIError) and exc.orig is not None else str(exc)
    first = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    if dialects.is_lock_error(first):
        return StoreError(f"{where}: the database is locked by another process; try again")
    if "file is not a database" in first or "file is encrypted" in first:
        return StoreError(f"{where}: not an SQLite database")
    if "unable to open database file" in first:
        return StoreError(
            f"{where}: cannot open the database file (missing folder or no permission)"
        )
    if "readonly database" in first:
        return StoreError(f"{where}: the database is read-only")
    return StoreError(f"{where}: database error: {first}")


def open_engine(target: str | None) -> tuple[Engine, str]:
    """Connect, create or check the schema; returns the engine and its display name."""
    url = resolve_url(target)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"{target}: not a database path or URL") from None
    backend = parsed.get_backend_name()
    shown = describe(url)
    if backend not in SUPPORTED:
        raise StoreError(f"{shown}: unsupported database {backend!r} (use SQLite or PostgreSQL)")
    if backend == "sqlite" and parsed.database:
        path = Path(parsed.database)
        if path.is_dir():
            raise StoreError(f"{shown}: is a directory, not a database file")
        if not path.parent.exists():
            raise StoreError(f"{shown}: folder {path.parent} does not exist")
    try:
        engine = create_engine(url)
    except (NoSuchModuleError, ImportError) as exc:
        raise StoreError(f"{shown}: database driver not installed ({exc})") from None
    dialects.configure_engine(engine)
    try:
        _ensure_schema(engine, shown)
    except SQLAlchemyError as exc:
        engine.dispose()
        raise driver_error(exc, shown) from None
    except Twenty48Error:
        engine.dispose()
        raise
    return engine, shown


def _ensure_schema(engine: Engine, shown: str) -> None:
    ours = {t.name for t in metadata.sorted_tables}
    with engine.connect() as reader:
        reader = reader.execution_options(**dialects.read_options(engine.dialect.name))
        names = set(inspect(reader).get_table_names())
        values = (
            {key: value for key, value in reader.execute(select(meta.c.key, meta.c.value))}
            if meta.name in names
            else {}
        )
        foreign = dialects.foreign_objects(reader, ours) if names else []
    if not names:
        dialects.prepare_new_database(engine)
        with engine.begin() as connection:
            if not inspect(connection).get_table_names():  # nobody created it meanwhile
                metadata.create_all(connection)
                dialects.install_triggers(connection)
                connection.execute(
                    meta.insert(),
                    [
                        {"key": "application", "value": APPLICATION},
                        {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                    ],
                )
        return
    if meta.name not in names:
        raise StoreError(f"{shown}: not a twenty48-replay database (it has other tables)")
    if values.get("application") != APPLICATION:
        raise StoreError(f"{shown}: not a twenty48-replay database")
    version = values.get("schema_version", "")
    if not version.isdigit():
        raise StoreError(f"{shown}: unreadable schema version {version!r}")
    if int(version) > SCHEMA_VERSION:
        raise StoreError(
            f"{shown}: database schema version {version} is newer than this program "
            f"supports ({SCHEMA_VERSION}); upgrade twenty48-replay"
        )
    # Tables added after schema version 1 shipped (the score server's) may be
    # absent from a database an older version made: only the server needs them,
    # and it adds them (fair_games.ensure_tables); everything else reads on.
    missing = ours - names - LATER_TABLES
    if missing:
        raise StoreError(f"{shown}: damaged twenty48 database, missing {sorted(missing)}")
    if foreign:
        raise StoreError(
            f"{shown}: not a twenty48-replay database as created by this program "
            f"(it also has {', '.join(foreign[:3])}); refusing to open it"
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


@contextmanager
def reading(engine: Engine, shown: str) -> Iterator[Connection]:
    """A read-only use of a connection (no write lock taken on SQLite)."""
    try:
        with engine.connect() as connection:
            yield connection.execution_options(**dialects.read_options(engine.dialect.name))
    except SQLAlchemyError as exc:
        raise driver_error(exc, shown) from None
