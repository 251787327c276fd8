"""Each player's best game (``player_bests``): kept by every write, read as the leaderboard.

The leaderboard reads each player's best from ``player_bests``, which the
store keeps in the transactions that finish, hide, unhide and abandon games.
These tests drive those writes the way the server and ``twenty48 admin`` do
(``fair_games.finish``, ``players.moderate``, ``mark_abandoned``) over random
games, registered and not, and hold every page of both boards, first and
after a cursor, to a plain Python reference after every step; on PostgreSQL,
two processes' writes for one player at once are both kept; ``check``
reports a table that disagrees with the games; the upgrade from version 5
builds it.
"""

from __future__ import annotations

import random
import threading

import attrs
import pytest
from sqlalchemy import delete, text, update

from twenty48_replay.core.board import Board
from twenty48_replay.core.game import GameState
from twenty48_replay.store import Store, bests, players, reads, writes
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store.fair_games.leaderboard import BoardEntry, BoardKey
from twenty48_replay.store.tables import SCHEMA_VERSION, player_bests


@attrs.define
class Game:
    fair_id: int
    game_id: int
    player: str
    score: int
    moves: int
    registered: bool
    finished_ms: int | None = None
    abandoned: bool = False


def new_game(store: Store, player: str, score: int, moves: int, *, registered: bool) -> Game:
    """A started fair game at ``score`` after ``moves`` moves, not finished."""
    with store.transaction() as connection:
        fair_id = fair_store.create(
            connection,
            player=player,
            token_hash="0" * 64,
            server_seed="1" * 64,
            commitment="2" * 64,
            key_id="3" * 16,
            now_ms=0,
            registered=registered,
        )
        state = GameState(
            f"seed{fair_id}", Board.from_rows([[2, 0, 0, 0]] + [[0] * 4] * 3), score, moves
        )
        game_id = writes.create_game(
            connection, state, player=player, now_ms=0, digest=reads.log_digest("")
        )
        connection.execute(
            text(
                "UPDATE fair_games SET game_id = :g, client_seed = 'x', started_ms = 0 "
                "WHERE id = :i"
            ),
            {"g": game_id, "i": fair_id},
        )
    return Game(fair_id, game_id, player, score, moves, registered)


def finish(store: Store, game: Game, now_ms: int, *, abandoned: bool = False) -> None:
    """Finish ``game`` as the server does (and mark it abandoned, as the sweeper does)."""
    with store.transaction() as connection:
        assert fair_store.finish(
            connection,
            game.fair_id,
            game.game_id,
            game.moves,
            {},
            {"done": 1},
            now_ms,
            abandoned=abandoned,
        )
        if abandoned:
            fair_store.mark_abandoned(connection, game.fair_id, now_ms, now_ms)
    game.finished_ms = now_ms
    game.abandoned = abandoned


def moderate(store: Store, action: str, **target: object) -> None:
    done = players.moderate(store, action, actor="t", reason="r", now_ms=1, **target)  # type: ignore[arg-type]
    assert done.outcome == players.DONE, (action, target, done)


Row = tuple[int, str, int, int, int, bool]


def reference(
    games: list[Game], hidden: set[int], banned: set[str], *, registered_only: bool
) -> list[Row]:
    """Each player's best visible finished game, ranked: score, fewer moves, earlier end, id."""
    ranked = sorted(
        (
            g
            for g in games
            if g.finished_ms is not None
            and not g.abandoned
            and g.fair_id not in hidden
            and g.player not in banned
            and (g.registered or not registered_only)
        ),
        key=lambda g: (-g.score, g.moves, g.finished_ms, g.fair_id),
    )
    seen: set[str] = set()
    best: list[Row] = []
    for g in ranked:
        if g.player not in seen:
            seen.add(g.player)
            assert g.finished_ms is not None
            best.append((g.fair_id, g.player, g.score, g.moves, g.finished_ms, g.registered))
    return best


def row(entry: BoardEntry) -> Row:
    return (
        entry.fair_id,
        entry.player,
        entry.score,
        entry.moves,
        entry.finished_ms,
        entry.registered,
    )


def pages(store: Store, size: int, *, registered_only: bool) -> list[tuple[int, Row]]:
    """Every page of the board in turn, each after the last one's cursor."""
    got: list[tuple[int, Row]] = []
    after: BoardKey | None = None
    with store.reading() as connection:
        while True:
            page = fair_store.leaderboard(connection, size, after, registered_only=registered_only)
            got.extend((e.position, row(e)) for e in page)
            if len(page) < size:
                return got
            after = page[-1].key


def assert_boards(store: Store, games: list[Game], hidden: set[int], banned: set[str]) -> None:
    for registered_only in (False, True):
        expected = list(
            enumerate(reference(games, hidden, banned, registered_only=registered_only), 1)
        )
        for size in (1, 3, 50):
            assert pages(store, size, registered_only=registered_only) == expected, (
                registered_only,
                size,
            )
    with store.reading() as connection:
        assert bests.differences(connection) == []


def bests_problems(store: Store) -> list[str]:
    """What ``check`` says of the players' bests (these games have no logs: it says that too)."""
    return [line for line in store.check().problems if "bests" in line]


def test_every_write_keeps_the_leaderboard_the_reference(db: str) -> None:
    chooser = random.Random(2048)
    store = Store(db)
    games: list[Game] = []
    hidden: set[int] = set()
    banned: set[str] = set()
    clock = 1000
    try:
        for step in range(160):
            clock += chooser.choice((0, 1, 7))  # equal end times happen
            roll = chooser.random()
            unfinished = [g for g in games if g.finished_ms is None]
            if roll < 0.35 or not games:
                player = f"p{chooser.randrange(12)}"
                game = new_game(
                    store,
                    player,
                    chooser.choice((100, 200, 300, 400)),
                    chooser.choice((10, 20, 30)),
                    registered=chooser.random() < 0.5,
                )
                games.append(game)
            elif roll < 0.65 and unfinished:
                finish(store, chooser.choice(unfinished), clock, abandoned=chooser.random() < 0.1)
            elif roll < 0.78 and games:
                target = chooser.choice(games)  # hidden before it finishes, sometimes
                if target.fair_id not in hidden:
                    moderate(store, players.HIDE, fair_id=target.fair_id)
                    hidden.add(target.fair_id)
            elif roll < 0.88 and hidden:
                fair_id = chooser.choice(sorted(hidden))
                moderate(store, players.UNHIDE, fair_id=fair_id)
                hidden.discard(fair_id)
            elif roll < 0.94:
                name = f"p{chooser.randrange(12)}"
                if name not in banned:
                    moderate(store, players.BAN, player=name)
                    banned.add(name)
            elif banned:
                name = chooser.choice(sorted(banned))
                moderate(store, players.UNBAN, player=name)
                banned.discard(name)
            if step % 8 == 7 or step == 159:
                assert_boards(store, games, hidden, banned)
    finally:
        store.close()


def test_an_abandoned_game_finished_as_an_ordinary_one_first_is_taken_off(db: str) -> None:
    store = Store(db)
    try:
        low = new_game(store, "ann", 100, 10, registered=True)
        high = new_game(store, "ann", 900, 10, registered=True)
        finish(store, low, 1000)
        finish(store, high, 1001)  # as an ordinary game: ann's best for now
        with store.transaction() as connection:
            fair_store.mark_abandoned(connection, high.fair_id, 1002, 1002)
        high.abandoned = True
        assert_boards(store, [low, high], set(), set())
    finally:
        store.close()


def test_check_reports_bests_that_disagree_and_a_rebuild_mends_them(db: str) -> None:
    store = Store(db)
    try:
        one = new_game(store, "bob", 300, 10, registered=False)
        two = new_game(store, "cy", 200, 10, registered=True)
        finish(store, one, 1000)
        finish(store, two, 1001)
        assert bests_problems(store) == []
        with store.transaction() as connection:
            connection.execute(delete(player_bests).where(player_bests.c.player == "cy"))
            connection.execute(update(player_bests).values(score=5))
        problems = bests_problems(store)
        assert any("players' bests (board): 2 players differ" in p for p in problems), problems
        assert any("registered-only board): 1 players differ" in p for p in problems), problems
        assert all("rebuild-bests" in p for p in problems)
        with store.transaction() as connection:
            bests.rebuild(connection)
        assert bests_problems(store) == []
        assert_boards(store, [one, two], set(), set())
    finally:
        store.close()


def test_a_version_5_database_gets_its_players_bests_built(db: str) -> None:
    store = Store(db)
    games = [
        new_game(store, "dee", 100, 10, registered=False),
        new_game(store, "dee", 400, 10, registered=True),
        new_game(store, "eve", 300, 10, registered=False),
        new_game(store, "eve", 500, 20, registered=False),
    ]
    for number, game in enumerate(games):
        finish(store, game, 1000 + number)
    moderate(store, players.HIDE, fair_id=games[3].fair_id)
    with store.transaction() as connection:  # version 5 is version 6 without the players' bests
        connection.execute(text("DROP TABLE player_bests"))
        connection.execute(
            text("UPDATE twenty48_meta SET value = '5' WHERE key = 'schema_version'")
        )
    store.close()
    with Store(db) as store:
        assert bests_problems(store) == []
        assert_boards(store, games, {games[3].fair_id}, set())
        with store.reading() as connection:
            version = connection.execute(
                text("SELECT value FROM twenty48_meta WHERE key = 'schema_version'")
            ).scalar_one()
    assert version == str(SCHEMA_VERSION)


@pytest.mark.parametrize("better_first", [True, False])
def test_two_processes_finishing_one_players_games_at_once_keep_the_better(
    db: str, better_first: bool
) -> None:
    """PostgreSQL: the first finish holds its transaction open while the second runs."""
    if "://" not in db:
        pytest.skip("SQLite has one writer at a time")
    first_store, second_store = Store(db), Store(db)
    try:
        good = new_game(first_store, "fay", 800, 10, registered=True)
        poor = new_game(first_store, "fay", 200, 10, registered=True)
        first, second = (good, poor) if better_first else (poor, good)
        started = threading.Event()
        errors: list[BaseException] = []

        def run_second() -> None:
            try:
                started.wait(10)
                finish(second_store, second, 2000)
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=run_second)
        thread.start()
        with first_store.transaction() as connection:
            assert fair_store.finish(
                connection, first.fair_id, first.game_id, first.moves, {}, {"d": 1}, 1000
            )
            started.set()
            thread.join(1.0)  # the second waits on the row this transaction holds
            assert thread.is_alive()
        first.finished_ms = 1000
        thread.join(10)
        assert not errors, errors
        assert_boards(first_store, [good, poor], set(), set())
    finally:
        first_store.close()
        second_store.close()


def test_a_hide_and_a_finish_of_one_player_at_once_lose_neither(db: str) -> None:
    """PostgreSQL: the hide holds the player's rows while a better game finishes elsewhere."""
    if "://" not in db:
        pytest.skip("SQLite has one writer at a time")
    first_store, second_store = Store(db), Store(db)
    try:
        best = new_game(first_store, "gil", 900, 10, registered=False)
        other = new_game(first_store, "gil", 100, 10, registered=False)
        late = new_game(first_store, "gil", 500, 10, registered=False)
        finish(first_store, best, 1000)
        finish(first_store, other, 1001)
        started = threading.Event()
        errors: list[BaseException] = []

        def run_finish() -> None:
            try:
                started.wait(10)
                finish(second_store, late, 2000)
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=run_finish)
        thread.start()
        with first_store.transaction() as connection:
            players.act(
                connection,
                action=players.HIDE,
                actor="t",
                reason="r",
                now_ms=1,
                fair_id=best.fair_id,
            )
            started.set()
            thread.join(1.0)
            assert thread.is_alive()
        late.finished_ms = 2000
        thread.join(10)
        assert not errors, errors
        assert_boards(first_store, [best, other, late], {best.fair_id}, set())
    finally:
        first_store.close()
        second_store.close()


def test_a_game_hidden_while_it_finishes_stays_off(db: str) -> None:
    """PostgreSQL: the hide holds the game while another process finishes that same game."""
    if "://" not in db:
        pytest.skip("SQLite has one writer at a time")
    first_store, second_store = Store(db), Store(db)
    try:
        earlier = new_game(first_store, "hal", 100, 10, registered=False)
        finish(first_store, earlier, 1000)
        playing = new_game(first_store, "hal", 700, 10, registered=False)
        started = threading.Event()
        errors: list[BaseException] = []

        def run_finish() -> None:
            try:
                started.wait(10)
                finish(second_store, playing, 2000)
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=run_finish)
        thread.start()
        with first_store.transaction() as connection:
            players.act(
                connection,
                action=players.HIDE,
                actor="t",
                reason="r",
                now_ms=1,
                fair_id=playing.fair_id,
            )
            started.set()
            thread.join(1.0)  # the finish waits on the game's row
            assert thread.is_alive()
        thread.join(10)
        assert not errors, errors
        assert_boards(first_store, [earlier, playing], {playing.fair_id}, set())
    finally:
        first_store.close()
        second_store.close()
