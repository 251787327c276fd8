"""The store's contract, written once and run against every backend.

A backend test module subclasses :class:`StoreContract` and provides a
``db_url`` fixture that yields a URL of an empty database (like
eventsourcing's recorder test cases).  Nothing here knows which backend runs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from twenty48_replay import Direction, GameState, NullMoveError, Record, verify
from twenty48_replay.errors import ConflictError, DamagedGameError, GameNotFoundError, StoreError
from twenty48_replay.store import ImportRejectedError, Store
from twenty48_replay.store.tables import SCHEMA_VERSION


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
        info = store.game(session.id)
        assert (info.seed, info.player, info.move_count, info.score) == ("contract", "ana", 0, 0)
        assert info.board == GameState.new("contract").board
        assert store.moves(session.id) == ""

    def test_moves_are_appended_in_order_and_projection_follows(self, store: Store) -> None:
        session = store.new_game("append")
        letters = greedy_letters("append", 40)
        play_letters(session, letters)
        info = store.game(session.id)
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
        assert store.game(session.id).move_count == 0

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
        assert store.game(outcome.game_id).over
        assert store.resume_latest() is None

    def test_unknown_game(self, store: Store) -> None:
        with pytest.raises(GameNotFoundError, match="no game with id 404"):
            store.open_game(404)
        with pytest.raises(GameNotFoundError):
            store.export_record(404)

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
