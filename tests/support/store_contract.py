"""The store's contract, written once and run against every backend.

A backend test module subclasses :class:`StoreContract` and provides a
``db_url`` fixture that yields a URL of an empty database (like
eventsourcing's recorder test cases).  Nothing here knows which backend runs.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from twenty48_replay import Direction, GameState, NullMoveError, Record, verify
from twenty48_replay.core.errors import (
    ConflictError,
    DamagedGameError,
    GameNotFoundError,
    ImportRejectedError,
    StoreError,
)
from twenty48_replay.store import GameInfo, Store, list_evidence, load_evidence, save_evidence
from twenty48_replay.store.dialects import install_triggers
from twenty48_replay.store.legacy import metadata_v1, metadata_v2
from twenty48_replay.store.tables import SCHEMA_VERSION, metadata
from twenty48_replay.store.upgrade import V5_INDEXES

# Every table version 3 added (dropped to get back to exactly version 2).
V3_TABLES = sorted(set(metadata.tables) - set(metadata_v2.tables))

FAIR_VECTORS = Path(__file__).resolve().parents[2] / "schema" / "vectors" / "fair"


def play_letters(session: Any, letters: str) -> None:
    for letter in letters:
        session.play(Direction(letter))


def first_valid(state: GameState, order: str = "LDRU") -> str:
    return next(ch for ch in order if state.board.slide(Direction(ch)).changed)


def greedy_letters(seed: str, count: int) -> str:
    state = GameState.new(seed)
    out: list[str] = []
    while len(out) < count and not state.over:
        letter = first_valid(state)
        state, _, _ = state.play(Direction(letter))
        out.append(letter)
    return "".join(out)


class StoreContract:
    """Behaviour every backend must show."""

    @pytest.fixture
    def store(self, db_url: str) -> Any:
        with Store(db_url) as store:
            yield store

    def test_new_game_is_stored_with_its_opening(self, store: Store) -> None:
        session = store.new_game("contract", player="ana")
        info = store.game_info(session.id)
        assert (info.seed, info.player, info.move_count, info.score) == ("contract", "ana", 0, 0)
        assert info.board == GameState.new("contract").board
        assert store.moves(session.id) == ""

    def test_moves_are_appended_in_order_and_projection_follows(self, store: Store) -> None:
        session = store.new_game("append")
        letters = greedy_letters("append", 40)
        play_letters(session, letters)
        info = store.game_info(session.id)
        replayed = verify(Record("append", letters, session.state.score))
        assert replayed.valid
        assert store.moves(session.id) == letters
        assert (info.move_count, info.score, info.board) == (40, replayed.score, replayed.board)
        assert store.check().healthy

    def test_null_move_writes_nothing(self, store: Store) -> None:
        session = store.new_game("null-1")  # opening has both tiles on the top row
        with pytest.raises(NullMoveError):
            session.play(Direction.UP)
        assert store.moves(session.id) == ""
        assert store.game_info(session.id).move_count == 0

    def test_stale_writer_gets_a_conflict_and_the_log_stays_whole(self, store: Store) -> None:
        first = store.new_game("conflict")
        second = store.open_game(first.id)
        letter = first_valid(first.state)
        first.play(Direction(letter))
        with pytest.raises(ConflictError, match="changed by another process"):
            second.play(Direction(first_valid(second.state)))
        assert store.moves(first.id) == letter
        reloaded = store.open_game(first.id)
        assert reloaded.state == first.state

    def test_resume_replays_the_log(self, store: Store) -> None:
        session = store.new_game("resume")
        play_letters(session, greedy_letters("resume", 25))
        again = store.resume_latest()
        assert again is not None
        assert again.id == session.id
        assert again.state == session.state

    def test_resume_skips_finished_games(self, store: Store) -> None:
        letters = greedy_letters("finished", 10_000)
        outcome = store.import_record(
            Record("finished", letters, verify(Record("finished", letters, 0)).score)
        )
        assert store.game_info(outcome.game_id).over
        assert store.resume_latest() is None

    def test_unknown_game(self, store: Store) -> None:
        with pytest.raises(GameNotFoundError, match="no game with id 404"):
            store.open_game(404)
        with pytest.raises(GameNotFoundError):
            store.game_as_record(404)

    def test_export_import_round_trip_is_identical(self, store: Store, db_url_2: str) -> None:
        session = store.new_game("export", player="bo")
        play_letters(session, greedy_letters("export", 30))
        extra = {
            "player": "cy",
            "notes": "ünïcode",
            "zzz": [1, {"a": None}],
            "started": "2026-01-02T03:04:05.678Z",
        }
        imported = Record("imported", greedy_letters("imported", 12), 0, extra=extra)
        imported = Record(imported.seed, imported.moves, verify(imported).score, extra=extra)
        store.import_record(imported)
        first = [r.to_json() for r in store.export_all()]
        with Store(db_url_2) as other:
            for line in first:
                assert not other.import_record(Record.from_json(line)).duplicate
            second = [r.to_json() for r in other.export_all()]
        assert first == second
        assert json.loads(first[1])["notes"] == "ünïcode"

    def test_import_rejects_invalid_and_skips_duplicates(self, store: Store) -> None:
        letters = greedy_letters("dup", 20)
        record = Record("dup", letters, verify(Record("dup", letters, 0)).score)
        first = store.import_record(record)
        assert not first.duplicate
        again = store.import_record(record)
        assert again == type(first)(first.game_id, True)
        with pytest.raises(ImportRejectedError, match="claimed score"):
            store.import_record(Record("dup2", letters, record.score + 2))
        assert [g.seed for g in store.list_games()] == ["dup"]

    def test_list_filters_and_stats(self, store: Store) -> None:
        a = store.new_game("a", player="p1")
        play_letters(a, greedy_letters("a", 5))
        b_letters = greedy_letters("b", 10_000)
        store.import_record(
            Record("b", b_letters, verify(Record("b", b_letters, 0)).score, extra={"player": "p2"})
        )
        assert [g.seed for g in store.list_games(state="unfinished")] == ["a"]
        assert [g.seed for g in store.list_games(state="over")] == ["b"]
        assert [g.seed for g in store.list_games(player="p2")] == ["b"]
        stats = store.stats()
        assert (stats.games, stats.finished) == (2, 1)
        assert stats.best_score == max(g.score for g in store.list_games())
        assert sum(stats.max_tiles.values()) == 2

    def test_resume_latest_keeps_to_one_players_games(self, store: Store) -> None:
        """Issue 13.2: plain ``play`` resumes the current player's game, not the solver's."""
        ann = store.new_game("ann-1", player="ann")
        play_letters(ann, greedy_letters("ann-1", 3))
        nobody = store.new_game("nobody")
        play_letters(nobody, greedy_letters("nobody", 2))
        solver = store.new_game("solver-1", player="solver")
        play_letters(solver, greedy_letters("solver-1", 4))
        mine = store.resume_latest("ann")
        assert mine is not None
        assert (mine.id, mine.state) == (ann.id, ann.state)
        unnamed = store.resume_latest(None)
        assert unnamed is not None
        assert unnamed.id == nobody.id
        assert store.resume_latest("bob") is None
        anyone = store.resume_latest()
        assert anyone is not None
        assert anyone.id == solver.id

    def test_best_score_of_one_player(self, store: Store) -> None:
        """Issue 13.3: BEST in ``play`` is the player's own best, not the database's."""
        ann = store.new_game("best-ann", player="ann")
        play_letters(ann, greedy_letters("best-ann", 30))
        letters = greedy_letters("best-cy", 10_000)
        big = verify(Record("best-cy", letters, 0)).score
        store.import_record(Record("best-cy", letters, big, extra={"player": "cy"}))
        assert 0 < ann.state.score < big
        assert store.best_score("ann") == ann.state.score
        assert store.best_score("cy") == big
        assert store.best_score("nobody") == 0
        assert store.best_score(None) == 0  # no game without a player
        assert store.best_score() == big

    def test_import_keeps_the_records_own_dates(self, store: Store) -> None:
        """Issue 13.4: an imported game is dated by its record, not by the import."""

        def imported(seed: str, **dates: str) -> GameInfo:
            letters = greedy_letters(seed, 10)
            score = verify(Record(seed, letters, 0)).score
            record = Record(seed, letters, score, extra=dict(dates))
            return store.game_info(store.import_record(record).game_id)

        both = imported("dated", started="2024-05-01T12:00:00Z", finished="2024-05-01T12:00:09.5Z")
        assert (both.created_ms, both.updated_ms) == (1714564800000, 1714564809500)
        start = imported("dated-2", started="2023-01-02T03:04:05+01:00")
        assert (start.created_ms, start.updated_ms) == (1672625045000, 1672625045000)
        before = int(time.time() * 1000)
        undated = imported("dated-3", started="not a time")
        assert undated.created_ms >= before
        assert undated.updated_ms == undated.created_ms
        # Most recently played first: by the records' own dates.
        assert [g.seed for g in store.list_games()] == ["dated-3", "dated", "dated-2"]
        exported = store.game_as_record(both.id).extra
        assert (exported["started"], exported["finished"]) == (
            "2024-05-01T12:00:00Z",
            "2024-05-01T12:00:09.5Z",
        )

    def test_a_kept_fair_game_is_found_by_its_server_id(self, store: Store) -> None:
        """``list``/``show`` name a fair game's server: its id there and the key's URL."""
        signed = FAIR_VECTORS / "keysets" / "old-key.json"
        record = Record.from_json(signed.read_text("utf-8"))
        fair = json.loads(signed.read_text("utf-8"))["fair"]
        server_id, key_id = fair["game_id"], fair["key_id"]
        plain = store.new_game(f"has game_id {server_id} in its seed").id
        local = store.import_record(record).game_id
        assert local != plain
        assert store.games_from_server(server_id) == [local]
        assert store.games_from_server(server_id, key_id) == [local]
        assert store.games_from_server(server_id, "0" * 16) == []
        assert store.games_from_server(str(server_id)) == []  # "42" is not 42
        assert store.server_urls() == {}
        assert store.remember_server(key_id, "http://scores.example:8048")
        assert store.remember_server(key_id, "https://scores.example")  # the last one counts
        assert not store.remember_server("not-a-key-id", "https://elsewhere.example")
        assert not store.remember_server(key_id[:15] + "0", "x" * 257)  # too long to keep
        assert store.server_urls() == {key_id: "https://scores.example"}

    def test_update_and_delete_on_moves_are_refused_by_the_database(
        self, store: Store, db_url: str
    ) -> None:
        session = store.new_game("tamper")
        play_letters(session, greedy_letters("tamper", 5))
        engine = create_engine(db_url)
        try:
            for statement in (
                "UPDATE moves SET direction = 'U'",
                "DELETE FROM moves",
                f"INSERT INTO moves (game_id, seq, direction) VALUES ({session.id}, 9, 'L')",
                f"INSERT INTO moves (game_id, seq, direction) VALUES ({session.id}, 5, 'L')",
            ):
                with (
                    pytest.raises(DBAPIError, match=r"append-only|out of sequence|UNIQUE|unique"),
                    engine.begin() as connection,
                ):
                    connection.execute(text(statement))
        finally:
            engine.dispose()
        assert store.moves(session.id) == greedy_letters("tamper", 5)
        assert store.check().healthy

    def test_check_reports_a_tampered_projection(self, store: Store, db_url: str) -> None:
        session = store.new_game("projection")
        play_letters(session, greedy_letters("projection", 8))
        engine = create_engine(db_url)
        with engine.begin() as connection:
            connection.execute(text(f"UPDATE games SET score = score + 4 WHERE id = {session.id}"))
        engine.dispose()
        report = store.check()
        assert not report.healthy
        assert any("projection score" in p for p in report.problems)
        with pytest.raises(
            DamagedGameError, match=f"game {session.id} is damaged: projection score"
        ):
            store.open_game(session.id)

    def test_newer_schema_is_refused(self, db_url: str) -> None:
        Store(db_url).close()
        engine = create_engine(db_url)
        with engine.begin() as connection:
            connection.execute(
                text(
                    f"UPDATE twenty48_meta SET value = '{SCHEMA_VERSION + 1}' "
                    "WHERE key = 'schema_version'"
                )
            )
        engine.dispose()
        with pytest.raises(StoreError, match="newer than this program"):
            Store(db_url)


def execute(db_url: str, *statements: str) -> None:
    """Run SQL on the database directly, as a user with plain sqlite3/psql would."""
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            for statement in statements:
                connection.exec_driver_sql(statement)
    finally:
        engine.dispose()


def fetch(db_url: str, statement: str) -> list[tuple[Any, ...]]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.exec_driver_sql(statement)]
    finally:
        engine.dispose()


def backend(db_url: str) -> str:
    return make_url(db_url).get_backend_name()


def drop_triggers(db_url: str) -> list[str]:
    """Statements that drop our triggers on this backend."""
    if backend(db_url) == "sqlite":
        return [f"DROP TRIGGER {name}" for name in SQLITE_TRIGGERS]
    return [f"DROP TRIGGER {name} ON moves" for name in POSTGRESQL_TRIGGERS]


def reinstall_triggers(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            install_triggers(connection)
    finally:
        engine.dispose()


SQLITE_TRIGGERS = ("moves_no_update", "moves_no_delete", "moves_next_seq")
POSTGRESQL_TRIGGERS = ("moves_no_update_delete", "moves_next_seq")


class IntegrityContract:
    """Issue 9: the store trusts nothing it reads, on every backend alike."""

    @pytest.fixture
    def store(self, db_url: str) -> Any:
        with Store(db_url) as store:
            yield store

    def test_spec_valid_strings_are_stored_and_exported_exactly(self, store: Store) -> None:
        cases: list[tuple[str, dict[str, Any]]] = [
            ("nul\x00seed", {"player": "p" * 201, "started": "2026-01-02T03:04:05.678Z"}),
            ("s\x01x", {"player": "lone \ud800 surrogate", "notes": "\udfff", "k": ["\x00"]}),
            ("plain", {"player": "nul\x00and\x01one", "z": {"\udbff": "\x01x"}}),
        ]
        for seed, extra in cases:
            letters = greedy_letters(seed, 15)
            record = Record(seed, letters, verify(Record(seed, letters, 0)).score, extra=extra)
            outcome = store.import_record(record)
            exported = store.game_as_record(outcome.game_id)
            assert (exported.seed, exported.moves, exported.extra) == (seed, letters, extra)
            assert store.game_info(outcome.game_id).player == extra["player"]
            assert [g.id for g in store.list_games(player=extra["player"])] == [outcome.game_id]
            assert [g.id for g in store.list_games(seed=seed)] == [outcome.game_id]
            assert store.import_record(record).duplicate
        assert store.check().healthy

    def test_a_trigger_with_our_name_and_a_hostile_body_is_refused(
        self, store: Store, db_url: str
    ) -> None:
        victim = store.new_game("victim")
        attacker = store.new_game("attacker")
        store.close()
        if backend(db_url) == "sqlite":
            hostile = [
                "DROP TRIGGER moves_next_seq",
                "CREATE TRIGGER moves_next_seq AFTER INSERT ON moves "
                "BEGIN UPDATE games SET seed = 'gone' WHERE id <> NEW.game_id; END",
            ]
        else:
            hostile = [
                "CREATE OR REPLACE FUNCTION twenty48_moves_next_seq() RETURNS trigger AS $$ "
                "BEGIN UPDATE games SET seed = 'gone' WHERE id <> NEW.game_id; RETURN NEW; END; "
                "$$ LANGUAGE plpgsql"
            ]
        execute(db_url, *hostile)
        with pytest.raises(StoreError, match=r"altered (trigger|function) .*refusing"):
            Store(db_url)
        assert fetch(db_url, "SELECT id, seed FROM games ORDER BY id") == [
            (victim.id, "victim"),
            (attacker.id, "attacker"),
        ]
        with Store(db_url, read_only=True) as inspector:
            report = inspector.check()
        assert not report.healthy
        assert any("altered" in p and "moves_next_seq" in p for p in report.problems), report

    def test_check_reports_missing_triggers_and_use_is_refused(
        self, store: Store, db_url: str
    ) -> None:
        play_letters(store.new_game("dropped"), greedy_letters("dropped", 5))
        execute(db_url, *drop_triggers(db_url))
        with pytest.raises(StoreError, match="missing trigger"):
            Store(db_url)
        with Store(db_url, read_only=True) as inspector:
            report = inspector.check()
        assert not report.healthy
        names = SQLITE_TRIGGERS if backend(db_url) == "sqlite" else POSTGRESQL_TRIGGERS
        for name in names:
            assert any("missing trigger" in p and name in p for p in report.problems), report

    def test_a_log_changed_behind_the_store_is_never_served(
        self, store: Store, db_url: str
    ) -> None:
        good = store.new_game("good")
        play_letters(good, greedy_letters("good", 10))
        bad = store.new_game("bad")
        letters = greedy_letters("bad", 10)
        play_letters(bad, letters)
        # Change the log and make the projection agree with the changed log, so
        # only the digest can tell; then put the triggers back as they were.
        shorter = GameState.new("bad")
        for letter in letters[:9]:
            shorter, _, _ = shorter.play(Direction(letter))
        execute(
            db_url,
            *drop_triggers(db_url),
            f"DELETE FROM moves WHERE game_id = {bad.id} AND seq = 10",
            f"UPDATE games SET move_count = 9, score = {shorter.score}, "
            f"max_tile = {shorter.max_tile}, board = '{shorter.board.packed:020x}', "
            f"won = {'true' if shorter.won else 'false'}, "
            f"over = {'true' if shorter.over else 'false'} WHERE id = {bad.id}",
        )
        reinstall_triggers(db_url)
        with Store(db_url) as again:
            for read in (again.open_game, again.game_as_record, again.game_info, again.moves):
                with pytest.raises(DamagedGameError, match=f"game {bad.id} is damaged: .*digest"):
                    read(bad.id)
            outcomes = list(again.export_each())
            assert isinstance(outcomes[0], Record)
            assert outcomes[0].seed == "good"
            assert isinstance(outcomes[1], DamagedGameError)
            report = again.check()
            assert not report.healthy
            assert report.problems == (f"game {bad.id}: its move log does not match its digest",)
            with pytest.raises((ConflictError, DamagedGameError)):
                bad.play(Direction(first_valid(bad.state)))  # a stale session cannot extend it

    def test_a_version_1_database_is_upgraded_in_place(self, db_url: str) -> None:
        letters = greedy_letters("old", 30)
        state = GameState.new("old")
        for letter in letters:
            state, _, _ = state.play(Direction(letter))
        engine = create_engine(db_url)
        with engine.begin() as connection:
            metadata_v1.create_all(connection)
            install_triggers(connection)
            connection.exec_driver_sql(
                "INSERT INTO twenty48_meta (key, value) VALUES "
                "('application', 'twenty48-replay'), ('schema_version', '1')"
            )
            connection.exec_driver_sql(
                "INSERT INTO games (seed, rules_version, player, created_ms, updated_ms, "
                "move_count, score, max_tile, board, won, over, assisted, extra) VALUES "
                f"('old', 1, 'x\x01y', 0, 1, {len(letters)}, {state.score}, {state.max_tile}, "
                f"'{state.board.packed:020x}', false, false, false, NULL)"
            )
            for seq, letter in enumerate(letters, 1):
                connection.exec_driver_sql(
                    f"INSERT INTO moves (game_id, seq, direction) VALUES (1, {seq}, '{letter}')"
                )
        engine.dispose()
        with Store(db_url, read_only=True) as inspector:  # check reads a v1 file as it is
            assert inspector.check().healthy
        assert fetch(db_url, "SELECT value FROM twenty48_meta WHERE key = 'schema_version'") == [
            ("1",)
        ]
        with Store(db_url) as store:
            assert store.moves(1) == letters
            assert store.game_info(1).player == "x\x01y"
            session = store.open_game(1)
            session.play(Direction(first_valid(session.state)))
            assert store.check().healthy
        assert fetch(db_url, "SELECT value FROM twenty48_meta WHERE key = 'schema_version'") == [
            (str(SCHEMA_VERSION),)
        ]

    def test_a_version_2_database_is_upgraded_in_place(self, db_url: str) -> None:
        """Version 3 only adds tables: games and server rows stay as they were."""
        letters = greedy_letters("two", 12)
        state = GameState.new("two")
        for letter in letters:
            state, _, _ = state.play(Direction(letter))
        engine = create_engine(db_url)
        with engine.begin() as connection:
            metadata_v2.create_all(connection)
            install_triggers(connection)
            connection.exec_driver_sql(
                "INSERT INTO twenty48_meta (key, value) VALUES "
                "('application', 'twenty48-replay'), ('schema_version', '2')"
            )
        engine.dispose()
        with Store(db_url) as store:
            session = store.new_game("two", player="v2")
            play_letters(session, letters)
        engine = create_engine(db_url)
        with engine.begin() as connection:  # back to exactly version 2, the game kept
            for table in V3_TABLES:
                connection.exec_driver_sql(f"DROP TABLE {table}")
            for _table, index in V5_INDEXES:  # version 5's indexes on version 2's tables
                connection.exec_driver_sql(f"DROP INDEX {index}")
            if connection.dialect.name == "postgresql":  # and version 2 had no such functions
                connection.exec_driver_sql("DROP FUNCTION twenty48_key_events_append_only()")
                connection.exec_driver_sql("DROP FUNCTION twenty48_moderation_append_only()")
            connection.exec_driver_sql(
                "UPDATE twenty48_meta SET value = '2' WHERE key = 'schema_version'"
            )
        engine.dispose()
        with Store(db_url, read_only=True) as inspector:
            assert inspector.check().healthy
        with Store(db_url) as store:
            assert store.moves(1) == letters
            assert list_evidence(store, 10) == []
            assert store.check().healthy
        assert fetch(db_url, "SELECT value FROM twenty48_meta WHERE key = 'schema_version'") == [
            (str(SCHEMA_VERSION),)
        ]

    def test_fair_evidence_keeps_any_text_exactly(self, db_url: str) -> None:
        """The verdict and the document (server text: NUL, escapes, lone surrogates) round-trip."""
        hostile = "\x00\x01\x1b]52;c;aGVsbG8=\x07\ud800 Zoë 😀"
        document = {
            "server": "http://127.0.0.1:1" + hostile,
            "game_id": 7,
            "answers": [{"request": "POST /api/games", "answer": {"error": hostile}}],
        }
        with Store(db_url) as store:
            first = save_evidence(store, 1000, "verdict " + hostile, document)
            second = save_evidence(store, 2000, "second", {"server": 5, "game_id": "x"})
            listed = list_evidence(store, 10)
            assert [info.id for info in listed] == [second, first]
            assert listed[1].verdict == "verdict " + hostile
            assert listed[1].server == "http://127.0.0.1:1" + hostile
            assert (listed[1].fair_game_id, listed[0].fair_game_id) == (7, None)
            loaded = load_evidence(store, first)
            assert loaded is not None
            assert loaded[1] == document
            assert load_evidence(store, second + 1) is None
            assert store.check().healthy

    def test_a_version_1_database_with_an_extra_object_is_not_upgraded(self, db_url: str) -> None:
        engine = create_engine(db_url)
        with engine.begin() as connection:
            metadata_v1.create_all(connection)
            install_triggers(connection)
            connection.exec_driver_sql(
                "INSERT INTO twenty48_meta (key, value) VALUES "
                "('application', 'twenty48-replay'), ('schema_version', '1')"
            )
            connection.exec_driver_sql("CREATE VIEW peek AS SELECT seed FROM games")
        engine.dispose()
        with pytest.raises(StoreError, match="unexpected view peek"):
            Store(db_url)
        assert fetch(db_url, "SELECT value FROM twenty48_meta WHERE key = 'schema_version'") == [
            ("1",)
        ]

    def test_a_digest_changed_behind_an_open_session_stops_the_next_move(
        self, store: Store, db_url: str
    ) -> None:
        session = store.new_game("digest")
        play_letters(session, greedy_letters("digest", 4))
        execute(db_url, f"UPDATE log_digests SET digest = 'x' WHERE game_id = {session.id}")
        with pytest.raises(DamagedGameError, match="digest changed outside the store"):
            session.play(Direction(first_valid(session.state)))
        assert fetch(db_url, f"SELECT count(*) FROM moves WHERE game_id = {session.id}") == [(4,)]
        with pytest.raises(DamagedGameError, match="does not match its digest"):
            store.open_game(session.id)
