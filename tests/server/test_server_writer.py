"""The group-commit writer on a real SQLite file, batch by batch (no HTTP).

Whole batches are what the server's fast path writes with two statements;
these cases mix jobs in one batch the way a busy server does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twenty48_replay.core.board import Direction
from twenty48_replay.fairplay.signing import ServerKey
from twenty48_replay.server.api_errors import ApiError
from twenty48_replay.server.writes import write_jobs
from twenty48_replay.server.writes.writer import GroupWriter
from twenty48_replay.store import Store


def batch(writer: GroupWriter, *items: Any, deferred: bool = True) -> list[Any]:
    return writer._transaction([(job, None) for job in items], deferred=deferred)  # type: ignore[misc]


def summary(result: Any) -> object:
    """A move's n, a refusal's status, or "finished"."""
    if isinstance(result, ApiError):
        return result.status
    return result.get("n", "finished")


def valid_letters(writer: GroupWriter, fair_id: int, count: int) -> str:
    """The next ``count`` moves of a game, played on a copy of its state."""
    entry = writer.cache.get(fair_id)
    assert entry is not None
    assert entry.state is not None
    state = entry.state
    letters = ""
    for _ in range(count):
        for direction in (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP):
            if state.board.slide(direction).changed:
                state = state.play(direction)[0]
                letters += direction.letter
                break
    return letters


def test_mixed_batches(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "w.sqlite3"))
    writer = GroupWriter(store, ServerKey.generate())
    a, b = batch(writer, write_jobs.CreateGame("ann"), write_jobs.CreateGame("bob"))
    started = batch(
        writer,
        write_jobs.StartGame(a["id"], a["token"], "x"),
        write_jobs.StartGame(b["id"], b["token"], "y"),
        write_jobs.StartGame(b["id"], b["token"], "again"),
    )
    assert started[0]["moves"] == 0
    assert isinstance(started[2], ApiError)
    assert started[2].status == 409
    moves_a = valid_letters(writer, a["id"], 3)
    moves_b = valid_letters(writer, b["id"], 1)
    results = batch(
        writer,
        write_jobs.PlayMove(a["id"], a["token"], 1, moves_a[0]),
        write_jobs.PlayMove(a["id"], a["token"], 2, moves_a[1]),  # same game twice in one batch
        write_jobs.PlayMove(b["id"], b["token"], 1, moves_b[0]),
        write_jobs.PlayMove(b["id"], "wrong", 2, "L"),
        write_jobs.PlayMove(a["id"], a["token"], 9, "L"),  # n far ahead
        write_jobs.PlayMove(a["id"], a["token"], 1, moves_a[0]),  # a retry inside the batch
        write_jobs.PlayMove(a["id"], a["token"], 3, moves_a[2]),
        write_jobs.FinishGame(a["id"], a["token"]),
    )
    assert [summary(r) for r in results] == [1, 2, 1, 403, 409, 1, 3, "finished"]
    assert results[5] == results[0]
    assert results[7]["finished"] is True
    assert store.moves(_game_id(store, a["id"])) == moves_a
    assert store.moves(_game_id(store, b["id"])) == moves_b
    # After the finish, no more moves; the same batch logic answers retries.
    after = batch(
        writer,
        write_jobs.PlayMove(a["id"], a["token"], 4, "L"),
        write_jobs.PlayMove(a["id"], a["token"], 3, moves_a[2]),
    )
    assert isinstance(after[0], ApiError)
    assert after[0].status == 409
    assert after[1] == results[6]
    assert store.check().healthy
    store.close()


def test_a_stale_cache_is_corrected_by_the_database(tmp_path: Path) -> None:
    """Two writers on one file, as two server processes: each one's cache lags the other's."""
    path = str(tmp_path / "two.sqlite3")
    key = ServerKey.generate()
    store_1, store_2 = Store(path), Store(path)
    one, two = GroupWriter(store_1, key), GroupWriter(store_2, key)
    (game,) = batch(one, write_jobs.CreateGame("cy"))
    batch(one, write_jobs.StartGame(game["id"], game["token"], "z"))
    letters = valid_letters(one, game["id"], 4)
    batch(one, write_jobs.PlayMove(game["id"], game["token"], 1, letters[0]))
    batch(two, write_jobs.PlayMove(game["id"], game["token"], 2, letters[1]))  # two loads the game
    batch(one, write_jobs.PlayMove(game["id"], game["token"], 3, letters[2]))  # one's cache: 1 move
    (late,) = batch(two, write_jobs.PlayMove(game["id"], game["token"], 4, letters[3]))  # two's: 2
    assert late["n"] == 4
    (retry,) = batch(one, write_jobs.PlayMove(game["id"], game["token"], 2, letters[1]))
    assert retry["n"] == 2
    assert store_1.moves(_game_id(store_1, game["id"])) == letters
    store_1.close()
    store_2.close()


def _game_id(store: Store, fair_id: int) -> int:
    from sqlalchemy import text

    with store.reading() as connection:
        return int(
            connection.execute(
                text("SELECT game_id FROM fair_games WHERE id = :i"), {"i": fair_id}
            ).scalar_one()
        )
