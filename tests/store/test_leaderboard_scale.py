"""The leaderboard at scale: a page costs its own length, and it ranks as it always did.

The leaderboard ranks each player's best visible finished fair game.  It
used to rank every game with window functions on each request, which sorts
the whole table (about 1 s at 100,000 games, ``tests/bench/bench_year.py``).
These tests hold the ranking to a plain Python reference over random games
(ties, hidden games, banned names, abandoned and unfinished games, paged by
cursor) and hold the first page's cost flat as the games grow tenfold.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from sqlalchemy import text

from twenty48_replay.core.board import Board
from twenty48_replay.core.game import GameState
from twenty48_replay.store import Store, bests, players, reads, writes
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store.fair_games.leaderboard import BoardKey
from twenty48_replay.store.tables import SCHEMA_VERSION
from twenty48_replay.store.upgrade import V5_INDEXES

Row = tuple[int, str, int, int, int]  # fair id, player, score, moves, finished_ms


def add_game(store: Store, player: str, score: int, moves: int, finished: int | None) -> int:
    with store.transaction() as connection:
        fair_id = fair_store.create(
            connection,
            player=player,
            token_hash="0" * 64,
            server_seed="1" * 64,
            commitment="2" * 64,
            key_id="3" * 16,
            now_ms=0,
        )
        state = GameState(f"seed{fair_id}", Board.from_rows([[2, 0, 0, 0]] + [[0] * 4] * 3))
        state = GameState(state.seed, state.board, score, moves)
        game_id = writes.create_game(
            connection, state, player=player, now_ms=0, digest=reads.log_digest("")
        )
        connection.execute(
            text(
                "UPDATE fair_games SET game_id = :g, client_seed = 'x', finished_ms = :f "
                "WHERE id = :i"
            ),
            {"g": game_id, "f": finished, "i": fair_id},
        )
        if finished is not None:  # what finishing does beside its own rows
            bests.note_finished(connection, fair_id)
    return fair_id


def reference(
    games: list[Row], hidden: set[int], banned: set[str], abandoned: set[int]
) -> list[Row]:
    """Each player's best visible game, ranked: score, fewer moves, earlier end, lower id."""
    order = sorted(
        (g for g in games if g[0] not in hidden | abandoned and g[1] not in banned),
        key=lambda g: (-g[2], g[3], g[4], g[0]),
    )
    seen: set[str] = set()
    best = []
    for game in order:
        if game[1] not in seen:
            seen.add(game[1])
            best.append(game)
    return best


def test_pages_rank_each_players_best_visible_game(db: str) -> None:
    chooser = random.Random(48)
    store = Store(db)
    games: list[Row] = []
    for _ in range(120):
        player = f"p{chooser.randrange(25)}"
        score, moves = chooser.choice((100, 200, 300)), chooser.choice((10, 20))
        finished = chooser.choice((1000, 2000, None))
        fair_id = add_game(store, player, score, moves, finished)
        if finished is not None:
            games.append((fair_id, player, score, moves, finished))
    hidden = {g[0] for g in chooser.sample(games, 10)}
    banned = {"p3", "p7"}
    abandoned = {g[0] for g in chooser.sample(games, 5)}
    with store.transaction() as connection:
        for fair_id in sorted(hidden):
            players.act(connection, action="hide", actor="t", reason="r", now_ms=1, fair_id=fair_id)
        for name in sorted(banned):
            players.act(connection, action="ban", actor="t", reason="r", now_ms=1, player=name)
        for fair_id in sorted(abandoned):
            fair_store.mark_abandoned(connection, fair_id, 1, 1)
    expected = reference(games, hidden, banned, abandoned)

    got: list[tuple[int, Row]] = []
    after: BoardKey | None = None
    with store.reading() as connection:
        while True:
            page = fair_store.leaderboard(connection, 4, after)
            got.extend(
                (e.position, (e.fair_id, e.player, e.score, e.moves, e.finished_ms)) for e in page
            )
            if len(page) < 4:
                break
            after = page[-1].key
    store.close()
    assert got == list(enumerate(expected, 1))


def steps_for_first_page(path: Path, games: int) -> int:
    """SQLite virtual-machine steps (in thousands) to read the first page of ``games`` games."""
    Store(str(path)).close()
    raw = sqlite3.connect(path)
    with raw:
        raw.executemany(
            "INSERT INTO games (id, seed, rules_version, player, created_ms, updated_ms, "
            "move_count, score, max_tile, board, won, over, assisted) "
            "VALUES (?, 's', 1, ?, 0, 0, 10, ?, 2, '0', 0, 0, 0)",
            [(i, f"p{i % (games // 20)}", (i * 7919) % 100_003) for i in range(1, games + 1)],
        )
        raw.executemany(
            "INSERT INTO fair_games (id, player, token_hash, server_seed, commitment, key_id, "
            "client_seed, game_id, created_ms, started_ms, finished_ms) "
            "VALUES (?, ?, 't', 's', 'c', 'k', 'x', ?, 0, 0, ?)",
            [(i, f"p{i % (games // 20)}", i, i) for i in range(1, games + 1)],
        )
    raw.close()
    with Store(str(path)) as store, store.transaction() as connection:
        bests.rebuild(connection)  # derived from the rows written above
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    with Store(str(path)) as store, store.reading() as connection:
        driver = connection.connection.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        driver.set_progress_handler(count, 1000)
        page = fair_store.leaderboard(connection, 10)
        driver.set_progress_handler(None, 0)
    assert len(page) == 10
    return steps


def test_the_first_page_costs_the_same_at_ten_times_the_games(tmp_path: Path) -> None:
    small = steps_for_first_page(tmp_path / "small.sqlite3", 2_000)
    large = steps_for_first_page(tmp_path / "large.sqlite3", 20_000)
    assert large < 2 * small + 20, (small, large)


def test_a_version_4_database_gets_the_leaderboard_indexes(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite3"
    Store(str(path)).close()
    raw = sqlite3.connect(path)
    with raw:  # version 4 is version 6 without its indexes and the players' bests
        raw.execute("DROP TABLE player_bests")
        for _table, index in V5_INDEXES:
            raw.execute(f"DROP INDEX {index}")
        raw.execute("UPDATE twenty48_meta SET value = '4' WHERE key = 'schema_version'")
    raw.close()
    with Store(str(path)) as store:
        report = store.check()
    assert report.problems == ()
    raw = sqlite3.connect(path)
    names = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    version = raw.execute("SELECT value FROM twenty48_meta WHERE key = 'schema_version'").fetchone()
    raw.close()
    assert {index for _table, index in V5_INDEXES} <= names
    assert version == (str(SCHEMA_VERSION),)
