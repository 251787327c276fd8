"""The moderation log and the key history as hash chains, in the store (SQLite and PostgreSQL).

What the chain is (each row's ``chain`` is the SHA-256 of the previous
row's and of the row's canonical content) is pinned here by an
implementation of its own, so that a change of the canonical bytes cannot
pass unnoticed: every chain already written would break.  Schema version 3
databases are upgraded: their rows get their chain, in order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from support.pg import fresh_database

from twenty48_replay.store import Store, log_chain, schema
from twenty48_replay.store import players as player_store
from twenty48_replay.store.dialects import install_triggers
from twenty48_replay.store.legacy import V3, metadata_v3
from twenty48_replay.store.tables import SCHEMA_VERSION

GENESIS = "0" * 64
KEY_COLUMNS = ("seq", "at_ms", "event", "key_id", "public_key", "reason", "actor")
MODERATION_COLUMNS = (
    "id",
    "acted_ms",
    "actor",
    "action",
    "fair_id",
    "player",
    "name_key",
    "reason",
)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'chain.sqlite3'}"
    else:
        yield from fresh_database()


def chain_of(log: str, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> list[str]:
    """The chain as the store must compute it, written out independently."""
    links, previous = [], GENESIS
    for row in rows:
        content = json.dumps(
            [log, *(row[c] for c in columns)], ensure_ascii=True, separators=(",", ":")
        )
        previous = hashlib.sha256(f"{previous}\n{content}".encode("ascii")).hexdigest()
        links.append(previous)
    return links


def fetch(db_url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql))]
    finally:
        engine.dispose()


def test_version_3_is_frozen() -> None:
    """The schema version 3 databases have, as main's tables.py had it before the chains:
    a change to ``legacy.metadata_v3`` would refuse (or wrongly accept) them."""
    frozen = {
        "sqlite": (
            schema.expected_sqlite(metadata_v3, V3),
            "4f2266f9049cdf137e3946240e2e6afbed2d8b8f865496f07f1fe7108dbb4d63",
        ),
        "postgresql": (
            schema.expected_postgresql(metadata_v3),
            "f980780124bc50eeebc72e4faf9154e83b4d069a1ec2846472cf17578a824df0",
        ),
    }
    for backend, (described, digest) in frozen.items():
        text_ = json.dumps(sorted((list(k), v) for k, v in described.items()))
        assert hashlib.sha256(text_.encode()).hexdigest() == digest, backend


def test_every_append_is_chained_and_the_head_kept(db_url: str) -> None:
    with Store(db_url) as store:
        for action, player in (("ban", "mallory"), ("unban", "mallory"), ("ban", "trudy")):
            player_store.moderate(
                store, action, actor="op", reason=f"{action} {player}", now_ms=7, player=player
            )
        report = store.chains()
        assert report.intact, report.problems
        rows = [
            dict(zip(MODERATION_COLUMNS, row, strict=True))
            for row in fetch(
                db_url, f"SELECT {', '.join(MODERATION_COLUMNS)} FROM moderation_log ORDER BY id"
            )
        ]
        expected = chain_of("moderation_log", MODERATION_COLUMNS, rows)
        assert [r[0] for r in fetch(db_url, "SELECT chain FROM moderation_log ORDER BY id")] == (
            expected
        )
        heads = report.as_json()
        assert heads["moderation_log"] == {"rows": 3, "head": expected[-1]}
        assert heads["key_events"] == {"rows": 0, "head": GENESIS}
        checked = store.check()
        assert checked.healthy, checked.problems
        assert checked.chains == report


def make_v3_database(db_url: str) -> None:
    """A version 3 database (frozen definition) with key events and moderation actions,
    text that the store escapes among them."""
    engine = create_engine(db_url)
    with engine.begin() as connection:
        metadata_v3.create_all(connection)
        install_triggers(connection, V3)
        connection.exec_driver_sql(
            "INSERT INTO twenty48_meta (key, value) VALUES "
            "('application', 'twenty48-replay'), ('schema_version', '3')"
        )
        connection.execute(
            text(
                "INSERT INTO key_events (seq, at_ms, event, key_id, public_key, reason, actor) "
                "VALUES (1, 10, 'current', 'aaaaaaaaaaaaaaaa', :p, NULL, 'op'), "
                "(2, 20, 'current', 'bbbbbbbbbbbbbbbb', :q, NULL, 'op'), "
                "(3, 30, 'revoked', 'aaaaaaaaaaaaaaaa', NULL, :r, 'op')"
            ),
            {"p": "1" * 64, "q": "2" * 64, "r": "copied \x01\x31 off"},  # stored escaped: \x01
        )
        for ident, action, player in ((1, "ban", "mallory"), (4, "unban", "mallory")):  # a gap
            connection.execute(
                text(
                    "INSERT INTO moderation_log (id, acted_ms, actor, action, fair_id, player, "
                    "name_key, reason) VALUES (:i, :t, 'op', :a, NULL, :p, :p, 'why')"
                ),
                {"i": ident, "t": ident * 100, "a": action, "p": player},
            )
    engine.dispose()


def test_a_version_3_database_gets_its_chains(db_url: str) -> None:
    make_v3_database(db_url)
    with Store(db_url, read_only=True) as inspector:  # recognised as exactly version 3
        found = inspector.check()
        assert found.healthy, found.problems
        assert found.chains is None
    with Store(db_url) as store:
        report = store.check()
        assert report.healthy, report.problems
    assert fetch(db_url, "SELECT value FROM twenty48_meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION),)
    ]
    keys = [
        dict(zip(KEY_COLUMNS, row, strict=True))
        for row in fetch(db_url, f"SELECT {', '.join(KEY_COLUMNS)} FROM key_events ORDER BY seq")
    ]
    assert keys[2]["reason"] == "copied \x011 off"  # as stored: the store's escape of U+0001
    keys[2]["reason"] = "copied \x01 off"  # the chain hashes the text as the store reads it
    moderation = [
        dict(zip(MODERATION_COLUMNS, row, strict=True))
        for row in fetch(
            db_url, f"SELECT {', '.join(MODERATION_COLUMNS)} FROM moderation_log ORDER BY id"
        )
    ]
    assert [row["id"] for row in moderation] == [1, 4]
    key_chain = chain_of("key_events", KEY_COLUMNS, keys)
    moderation_chain = chain_of("moderation_log", MODERATION_COLUMNS, moderation)
    assert [r[0] for r in fetch(db_url, "SELECT chain FROM key_events ORDER BY seq")] == key_chain
    assert report.chains is not None
    assert report.chains.as_json() == {
        "key_events": {"rows": 3, "head": key_chain[-1]},
        "moderation_log": {"rows": 2, "head": moderation_chain[-1]},
    }
    with Store(db_url) as store:  # the next action goes on from the upgraded head
        player_store.moderate(store, "ban", actor="op", reason="again", now_ms=9, player="mallory")
        assert store.chains().intact
        assert [r[0] for r in fetch(db_url, "SELECT id FROM moderation_log ORDER BY id")] == [
            1,
            4,
            5,
        ]
    assert fetch(db_url, "SELECT log, length FROM log_heads ORDER BY log") == [
        ("key_events", 3),
        ("moderation_log", 3),
    ]


def test_a_version_2_database_goes_through_version_3(tmp_path: Path) -> None:
    from twenty48_replay.store.legacy import metadata_v2

    url = f"sqlite:///{tmp_path / 'v2.sqlite3'}"
    engine = create_engine(url)
    with engine.begin() as connection:
        metadata_v2.create_all(connection)
        install_triggers(connection, 2)
        connection.exec_driver_sql(
            "INSERT INTO twenty48_meta (key, value) VALUES "
            "('application', 'twenty48-replay'), ('schema_version', '2')"
        )
    engine.dispose()
    with Store(url) as store:
        report = store.check()
        assert report.healthy, report.problems
        assert report.chains is not None
        assert report.chains.as_json()["moderation_log"] == {"rows": 0, "head": GENESIS}


def test_the_canonical_bytes_are_defined_once() -> None:
    row: dict[str, Any] = {name: None for name in MODERATION_COLUMNS}
    row.update(id=3, acted_ms=5, actor="é\ud800", action="ban", reason="x")
    assert log_chain.canonical_bytes(log_chain.MODERATION_LOG, row) == (
        b'["moderation_log",3,5,"\\u00e9\\ud800","ban",null,null,null,"x"]'
    )


def test_appends_from_many_processes_at_once_chain_one_after_another(db_url: str) -> None:
    """Each writer takes the log's head row first (FOR UPDATE on PostgreSQL; SQLite's write
    lock), so concurrent bans are numbered and chained in one order, none lost."""
    from concurrent.futures import ThreadPoolExecutor

    Store(db_url).close()  # made once, before the writers

    def ban(writer: int) -> None:
        with Store(db_url) as store:
            for n in range(5):
                player_store.moderate(
                    store, "ban", actor=f"w{writer}", reason="r", now_ms=n, player=f"p{writer}-{n}"
                )

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(ban, range(6)))
    with Store(db_url) as store:
        report = store.chains()
    assert report.intact, report.problems
    assert report.as_json()["moderation_log"]["rows"] == 30
    assert [r[0] for r in fetch(db_url, "SELECT id FROM moderation_log ORDER BY id")] == list(
        range(1, 31)
    )
