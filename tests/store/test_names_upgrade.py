"""Schema version 2 -> 3 for player names and moderation, on SQLite and PostgreSQL.

A version 2 database holding fair games (one of them finished) gains
``players``, ``game_players`` (filled in for every existing fair game) and
the append-only ``moderation_log`` with its triggers, and passes the exact
schema check; the old games are unregistered, rank as before, and can be
banned by name.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError
from support.pg import fresh_database

from twenty48_replay.fairplay.names import name_key
from twenty48_replay.store import Store
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store import players as player_store
from twenty48_replay.store.legacy import metadata_v2
from twenty48_replay.store.tables import SCHEMA_VERSION, metadata
from twenty48_replay.store.upgrade import V5_INDEXES


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'v2.sqlite3'}"
    else:
        yield from fresh_database()


def test_version_2_fair_games_get_their_name_keys(db_url: str) -> None:
    with Store(db_url) as store:  # a game through the store, then back to exactly version 2
        store.new_game("s", player="ＢＯＢ")
    engine = create_engine(db_url)
    with engine.begin() as connection:
        # Every table version 3 added (their triggers go with them), newest first.
        for table in reversed(metadata.sorted_tables):
            if table.name not in metadata_v2.tables:
                connection.exec_driver_sql(f"DROP TABLE {table.name}")
        for _table, index in V5_INDEXES:  # version 5's indexes on version 2's tables
            connection.exec_driver_sql(f"DROP INDEX {index}")
        if "postgresql" in db_url:  # and the functions version 2 had not
            connection.exec_driver_sql("DROP FUNCTION twenty48_moderation_append_only()")
            connection.exec_driver_sql("DROP FUNCTION twenty48_key_events_append_only()")
        connection.exec_driver_sql(
            "UPDATE twenty48_meta SET value = '2' WHERE key = 'schema_version'"
        )
        for player, game_id, finished in (("ＢＯＢ", 1, 5), ("a\u3164", None, None)):
            connection.execute(
                text(
                    "INSERT INTO fair_games (player, token_hash, server_seed, commitment,"
                    " key_id, game_id, created_ms, finished_ms)"
                    " VALUES (:p, :h, :s, :c, 'k', :g, 1, :f)"
                ),
                {
                    "p": player,
                    "h": "0" * 64,
                    "s": "1" * 64,
                    "c": "2" * 64,
                    "g": game_id,
                    "f": finished,
                },
            )
    engine.dispose()
    with Store(db_url, read_only=True) as inspector:
        assert inspector.check().healthy, inspector.check().problems  # exactly version 2
    with Store(db_url) as store:
        assert store.check().healthy, store.check().problems
        with store.reading() as connection:
            rows = connection.execute(
                text("SELECT fair_id, name_key, registered FROM game_players ORDER BY fair_id")
            ).all()
            assert [tuple(row) for row in rows] == [
                (1, name_key("bob"), False),
                (2, name_key("a\u3164"), False),
            ]
            board = fair_store.leaderboard(connection, 10)
            assert [(entry.fair_id, entry.registered) for entry in board] == [(1, False)]
        assert (
            player_store.moderate(
                store, player_store.BAN, actor="ops", reason="r", now_ms=9, player="bob"
            ).outcome
            == player_store.DONE
        )
        with store.reading() as connection:
            assert fair_store.leaderboard(connection, 10) == []
        # The upgraded database keeps every key a registered name claims (player_keys).
        with store.transaction() as connection:
            alice = player_store.register(connection, "alice", name_key("alice"), "0" * 64, 10)
            assert alice is not None
            assert (
                player_store.register(connection, "AIice", name_key("AIice"), "1" * 64, 11) is None
            )
            assert [p.name for p in player_store.claimants(connection, "AIice")] == ["alice"]
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            version = connection.exec_driver_sql(
                "SELECT value FROM twenty48_meta WHERE key = 'schema_version'"
            ).scalar_one()
            assert version == str(SCHEMA_VERSION)
        with (
            pytest.raises(DBAPIError, match="moderation log is append-only"),
            engine.begin() as connection,
        ):
            connection.exec_driver_sql("DELETE FROM moderation_log")
    finally:
        engine.dispose()
