"""The exact schema a database of ours has, and every way a database differs from it.

A file is ours only if its whole schema (tables, columns, indexes,
triggers, views and, on PostgreSQL, trigger functions, constraints and
rules) is exactly what this program creates: a trigger with one of our
names but another body, or one extra view, makes it someone else's.  The
expected schema is derived, never written down twice:

* SQLite: ``metadata`` and the dialect's trigger statements are run in an
  in-memory database and its ``sqlite_master`` is read back, so the
  comparison is of the SQL text SQLite keeps (whitespace normalised).
* PostgreSQL: the catalog is described (tables and views, column types,
  nullability and defaults, constraints, index definitions, trigger
  definitions, the bodies of our trigger functions, rules, row-level
  security and its policies) and compared with the same description
  computed from ``metadata``.  Database-wide event triggers are a
  superuser's matter and not inspected.

Tables added to ``metadata`` later are covered without further work.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Final

from sqlalchemy import MetaData, create_engine
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection
from sqlalchemy.sql import operators
from sqlalchemy.sql.elements import UnaryExpression

from twenty48_replay.store import dialects
from twenty48_replay.store.tables import SCHEMA_VERSION

#: (kind, name) -> normalised definition
Schema = dict[tuple[str, str], str]

_QUOTED: Final = re.compile(r"('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")|\s+")


def normalise_sql(sql: str | None) -> str:
    """SQL text with runs of whitespace outside quotes made one space, trimmed."""
    if sql is None:
        return ""
    return _QUOTED.sub(lambda m: m.group(1) or " ", sql).strip().rstrip(";").strip()


def differences(expected: Mapping[tuple[str, str], str], actual: Schema) -> list[str]:
    """Every missing, unexpected or altered schema object, one line each."""
    found = [f"missing {kind} {name}" for kind, name in sorted(expected.keys() - actual.keys())]
    found += [f"unexpected {kind} {name}" for kind, name in sorted(actual.keys() - expected.keys())]
    found += [
        f"altered {kind} {name}"
        for kind, name in sorted(expected.keys() & actual.keys())
        if expected[kind, name] != actual[kind, name]
    ]
    return found


# ------------------------------------------------------------------ SQLite


def sqlite_schema(connection: Connection) -> Schema:
    """Every object in an SQLite database's ``sqlite_master`` (statistics tables aside)."""
    rows = connection.exec_driver_sql(
        "SELECT type, name, tbl_name, sql FROM sqlite_master"
    ).fetchall()
    return {
        (str(kind), str(name)): f"on {table}: {normalise_sql(sql)}"
        for kind, name, table, sql in rows
        if not str(name).startswith("sqlite_stat")
    }


@functools.cache
def expected_sqlite(metadata: MetaData, version: int = SCHEMA_VERSION) -> Schema:
    """What ``metadata`` plus schema ``version``'s triggers look like in ``sqlite_master``."""
    engine = create_engine("sqlite://")
    try:
        with engine.begin() as connection:
            metadata.create_all(connection)
            dialects.install_triggers(connection, version)
            return sqlite_schema(connection)
    finally:
        engine.dispose()


# -------------------------------------------------------------- PostgreSQL

#: Our triggers as ``pg_get_triggerdef`` gives them, by table, then by name.
_PG_TRIGGERS: Final = {
    "moves": {
        "moves_no_update_delete": "CREATE TRIGGER moves_no_update_delete BEFORE DELETE OR UPDATE "
        "OR TRUNCATE ON moves FOR EACH STATEMENT EXECUTE FUNCTION twenty48_moves_append_only()",
        "moves_next_seq": "CREATE TRIGGER moves_next_seq BEFORE INSERT ON moves "
        "FOR EACH ROW EXECUTE FUNCTION twenty48_moves_next_seq()",
    },
    "key_events": {
        "key_events_no_update_delete": "CREATE TRIGGER key_events_no_update_delete BEFORE "
        "DELETE OR UPDATE OR TRUNCATE ON key_events FOR EACH STATEMENT EXECUTE FUNCTION "
        "twenty48_key_events_append_only()",
    },
    "moderation_log": {
        "moderation_no_update_delete": "CREATE TRIGGER moderation_no_update_delete BEFORE DELETE "
        "OR UPDATE OR TRUNCATE ON moderation_log FOR EACH STATEMENT EXECUTE FUNCTION "
        "twenty48_moderation_append_only()",
    },
}
_FUNCTION_BODY: Final = re.compile(r"FUNCTION (\w+)\(\).*?\$\$(.*?)\$\$", re.DOTALL)


def _strip_schema(text: str, schema: str) -> str:
    return text.replace(f"{schema}.", "") if schema else text


def postgresql_schema(connection: Connection) -> Schema:
    """The objects of the current schema as PostgreSQL's catalog describes them."""
    schema = str(connection.exec_driver_sql("SELECT current_schema()").scalar_one())
    found: Schema = {}

    def query(sql: str) -> Iterable[tuple[str, ...]]:
        rows = connection.exec_driver_sql(sql, (schema,)).fetchall()
        return [tuple("" if v is None else str(v) for v in row) for row in rows]

    for name, kind, row_security in query(
        "SELECT c.relname, c.relkind, c.relrowsecurity FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN "
        "('r', 'v', 'm', 'p', 'f')"
    ):
        if kind == "r":  # row-level security could hide rows from the store
            found["table", name] = "row security" if row_security == "True" else ""
        else:
            found["view", name] = kind
    for table, column, kind, not_null, default in query(
        "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
        "pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_attrdef d "
        "ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE n.nspname = %s "
        "AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped"
    ):
        found["column", f"{table}.{column}"] = _column(kind, not_null == "True", default)
    for name, definition in query(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s"
    ):
        found["index", name] = _strip_schema(definition, schema)
    for table, name, definition in query(
        "SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) FROM pg_constraint k "
        "JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s"
    ):
        found["constraint", f"{table}.{name}"] = _strip_schema(definition, schema)
    for table, name, definition, enabled in query(
        "SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid), t.tgenabled FROM pg_trigger t "
        "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND NOT t.tgisinternal"
    ):
        found["trigger", f"{table}.{name}"] = normalise_sql(_strip_schema(definition, schema))
        # The definition is the same when the trigger is disabled (ALTER TABLE ... DISABLE
        # TRIGGER, which the table's owner may do): 'O' fires in every ordinary session.
        if enabled != "O":
            found["trigger not firing", f"{table}.{name}"] = f"tgenabled {enabled!r}"
    for table, name in query("SELECT tablename, rulename FROM pg_rules WHERE schemaname = %s"):
        found["rule", f"{table}.{name}"] = ""
    for table, name in query("SELECT tablename, policyname FROM pg_policies WHERE schemaname = %s"):
        found["policy", f"{table}.{name}"] = ""
    for name, body in query(
        "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n "
        "ON n.oid = p.pronamespace WHERE n.nspname = %s AND p.proname LIKE 'twenty48%%'"
    ):
        found["function", name] = normalise_sql(body)
    return found


def _column(kind: str, not_null: bool, default: str) -> str:
    return f"{kind}{' NOT NULL' if not_null else ''}{f' DEFAULT {default}' if default else ''}"


_PG_TYPE_NAMES: Final = {
    "INTEGER": "integer",
    "BIGINT": "bigint",
    "TEXT": "text",
    "BOOLEAN": "boolean",
    "SERIAL": "integer",
}


def _pg_type(compiled: str) -> str:
    match = re.fullmatch(r"VARCHAR\((\d+)\)", compiled)
    if match:
        return f"character varying({match.group(1)})"
    return _PG_TYPE_NAMES.get(compiled, compiled.lower())


@functools.cache
def expected_postgresql(metadata: MetaData) -> Schema:
    """The catalog description of ``metadata`` plus our triggers, as PostgreSQL gives it.

    (PostgreSQL's triggers are the same in every schema version so far.)
    """
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    found: Schema = {}
    for table in metadata.sorted_tables:
        found["table", table.name] = ""
        serial = table.autoincrement_column
        for column in table.columns:
            kind = _pg_type(column.type.compile(dialect=dialect))
            sequence = f"{table.name}_{column.name}_seq"
            default = f"nextval('{sequence}'::regclass)" if column is serial else ""
            found["column", f"{table.name}.{column.name}"] = _column(
                kind, not column.nullable, default
            )
        keys = ", ".join(c.name for c in table.primary_key.columns)
        found["index", f"{table.name}_pkey"] = (
            f"CREATE UNIQUE INDEX {table.name}_pkey ON {table.name} USING btree ({keys})"
        )
        found["constraint", f"{table.name}.{table.name}_pkey"] = f"PRIMARY KEY ({keys})"
        for index in table.indexes:
            columns = ", ".join(_index_column(e) for e in index.expressions)
            unique = "UNIQUE " if index.unique else ""
            found["index", str(index.name)] = (
                f"CREATE {unique}INDEX {index.name} ON {table.name} USING btree ({columns})"
            )
        for column in table.columns:
            if column.unique:  # PostgreSQL names an unnamed one-column UNIQUE <table>_<column>_key
                name = f"{table.name}_{column.name}_key"
                found["index", name] = (
                    f"CREATE UNIQUE INDEX {name} ON {table.name} USING btree ({column.name})"
                )
                found["constraint", f"{table.name}.{name}"] = f"UNIQUE ({column.name})"
        for key in table.foreign_keys:
            local = key.parent.name
            found["constraint", f"{table.name}.{table.name}_{local}_fkey"] = (
                f"FOREIGN KEY ({local}) REFERENCES {key.column.table.name}({key.column.name})"
            )
    for table_name, triggers in _PG_TRIGGERS.items():
        if table_name not in metadata.tables:  # an older version without the table
            continue
        for name, definition in triggers.items():
            found["trigger", f"{table_name}.{name}"] = definition
        for statement in dialects.TRIGGERS_BY_TABLE[table_name][1]:
            match = _FUNCTION_BODY.search(statement)
            if match:
                found["function", match.group(1)] = normalise_sql(match.group(2))
    return found


def _index_column(expression: object) -> str:
    """One column of an index as ``pg_indexes`` shows it: its name, and ``DESC`` if descending."""
    if isinstance(expression, UnaryExpression):
        descending = expression.modifier is operators.desc_op
        return f"{_index_column(expression.element)}{' DESC' if descending else ''}"
    name = getattr(expression, "name", None)
    return str(expression) if name is None else str(name)


def actual(connection: Connection) -> Schema:
    """The schema of the database behind ``connection``."""
    if connection.dialect.name == "postgresql":
        return postgresql_schema(connection)
    return sqlite_schema(connection)


def expected(connection: Connection, metadata: MetaData, version: int = SCHEMA_VERSION) -> Schema:
    """The schema ``metadata`` (of schema ``version``) gives on the backend of ``connection``."""
    if connection.dialect.name == "postgresql":
        return expected_postgresql(metadata)
    return expected_sqlite(metadata, version)
