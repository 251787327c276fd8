"""The ``twenty48 play`` UI, driven headless by key presses against a real SQLite store.

Each test runs the real :class:`PlayApp` under ``App.run_test`` (no mocks):
expectations come from the engine (``GameState.play``) and from what the
store holds afterwards, so the UI is checked against both the rules and
the log.  ``pytest-asyncio`` is not a dependency, so each test drives its
coroutine with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.common import run_cli
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from twenty48_cli.tui.play_app import PlayApp, quit_line
from twenty48_cli.tui.screens import ConflictScreen, GameOverScreen, HelpScreen, WinScreen
from twenty48_cli.tui.widgets import BoardView, ScoreBox, Tile
from twenty48_replay.core.board import Direction
from twenty48_replay.core.errors import NullMoveError
from twenty48_replay.core.game import GameState
from twenty48_replay.core.record import Record
from twenty48_replay.store import GameSession, Store

DATA = Path(__file__).resolve().parents[1] / "data"
WIN_RECORD = DATA / "win-2048.json"

#: Every key that moves, and the direction letter it plays.
MOVE_KEYS = {
    "up": "U",
    "down": "D",
    "left": "L",
    "right": "R",
    "w": "U",
    "s": "D",
    "a": "L",
    "d": "R",
    "k": "U",
    "j": "D",
    "h": "L",
    "l": "R",
}
ARROW_OF = {"U": "up", "D": "down", "L": "left", "R": "right"}

Scenario = Callable[[PlayApp, Pilot[None]], Awaitable[None]]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh SQLite database file."""
    with Store(str(tmp_path / "games.sqlite3")) as opened:
        yield opened


def drive(store: Store, session: GameSession, scenario: Scenario) -> PlayApp:
    """Run the app at 80x24 around ``scenario``; returns the app for checks after exit."""
    app = PlayApp(store, session)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await scenario(app, pilot)

    asyncio.run(run())
    return app


def expected_after(seed: str, keys: list[str]) -> tuple[GameState, str, list[str]]:
    """What the keys should do by the rules: final state, stored letters, ignored keys."""
    state = GameState.new(seed)
    letters = ""
    ignored = []
    for key in keys:
        try:
            state, _gained, _spawn = state.play(Direction(MOVE_KEYS[key]))
        except NullMoveError:
            ignored.append(key)
        else:
            letters += MOVE_KEYS[key]
    return state, letters, ignored


def shown_board(app: PlayApp) -> list[int]:
    return app.game_screen.query_one(BoardView).values()


def text_of(screen: Screen[Any], selector: str) -> str:
    """The text a Static shows, markup applied (what the player reads)."""
    visual = screen.query_one(selector, Static).visual
    return visual.plain if isinstance(visual, Content) else str(visual)


def on_board(app: PlayApp) -> bool:
    """No dialog is open: the game screen has the keys."""
    return app.screen is app.game_screen


def score_box(app: PlayApp, name: str) -> ScoreBox:
    return app.game_screen.query_one(f"#{name}", ScoreBox)


def played_to_the_end(seed: str) -> str:
    """A whole game with a fixed preference order (left, down, right, up): fast, always ends."""
    state = GameState.new(seed)
    letters = ""
    order = (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP)
    while not state.over:
        direction = next(d for d in order if d in state.board.valid_directions())
        state, _gained, _spawn = state.play(direction)
        letters += direction.letter
    return letters


def import_up_to_last(store: Store, seed: str, letters: str) -> tuple[GameSession, str]:
    """Store a game one move short of ``letters`` and open it; returns it and the last letter."""
    state = GameState.new(seed)
    for letter in letters[:-1]:
        state, _gained, _spawn = state.play(Direction(letter))
    outcome = store.import_record(Record(seed, letters[:-1], state.score))
    return store.open_game(outcome.game_id), letters[-1]


# ---------------------------------------------------------------------- moves


def test_keys_play_the_seeded_game_and_store_exactly_its_moves(store: Store) -> None:
    keys = ["left", "left", "a", "up", "w", "k", "right", "d", "l"]
    keys += ["down", "s", "j", "h", "left", "up", "right"]
    expected, letters, ignored = expected_after("tui-1", keys)
    assert ignored, "the key list must include null moves to test that they are ignored"
    session = store.new_game("tui-1", player="tester")

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        assert shown_board(app) == list(GameState.new("tui-1").board)
        await pilot.press(*keys)
        await pilot.pause()
        assert shown_board(app) == list(expected.board)
        assert score_box(app, "score").value == expected.score
        assert f"{expected.score:,}" in text_of(app.game_screen, "#score")
        assert score_box(app, "moves").value == len(letters)
        assert store.moves(session.id) == letters
        info = text_of(app.game_screen, "#info")
        assert f"game {session.id}" in info
        assert "seed tui-1" in info

    drive(store, session, scenario)
    assert store.moves(session.id) == letters
    assert store.game_info(session.id).score == expected.score


def test_last_move_shows_points_gained_and_the_spawned_tile(store: Store) -> None:
    session = store.new_game("tui-1")
    # Find the first scoring move of this seed, and its spawn.
    state = session.state
    keys: list[str] = []
    for letter in "LLLURDDDLLUR":
        state, gained, spawn = state.play(Direction(letter))
        keys.append(ARROW_OF[letter])
        if gained:
            break
    assert gained

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press(*keys)
        await pilot.pause()
        assert score_box(app, "score").extra == f"+{gained}"
        assert f"+{gained}" in text_of(app.game_screen, "#score")
        spawned = [t.cell for t in app.game_screen.query(Tile) if t.has_class("-spawned")]
        assert spawned == [spawn.cell]

    drive(store, session, scenario)


def test_null_moves_add_nothing(store: Store) -> None:
    session = store.new_game("tui-3")
    _state, letters, ignored = expected_after("tui-3", ["left", "left", "a"])
    assert letters == ""
    assert len(ignored) == 3

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press("left", "left", "a", "h")
        await pilot.pause()
        assert shown_board(app) == list(GameState.new("tui-3").board)
        assert not app.screen_stack[1:], "a null move opens nothing"

    drive(store, session, scenario)
    assert store.moves(session.id) == ""


# ---------------------------------------------------------------------- winning


def test_win_banner_blocks_moves_until_continue(store: Store) -> None:
    record = Record.from_json(WIN_RECORD.read_text(encoding="utf-8"))
    session, last = import_up_to_last(store, record.seed, record.moves)
    assert not session.state.won
    before = len(record.moves) - 1

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press(ARROW_OF[last])
        await pilot.pause()
        assert isinstance(app.screen, WinScreen)
        assert app.session.state.won
        assert store.moves(session.id) == record.moves
        # Moves are ignored while the banner is up, as in the original.
        await pilot.press("left", "right", "up", "down", "h", "l")
        assert store.moves(session.id) == record.moves
        await pilot.press("c")
        await pilot.pause()
        assert on_board(app)
        # Playing on: the next valid move is stored, and the banner does not return.
        direction = app.session.state.board.valid_directions()[0]
        await pilot.press(ARROW_OF[direction.letter])
        await pilot.pause()
        assert store.moves(session.id) == record.moves + direction.letter
        assert not isinstance(app.screen, WinScreen)

    drive(store, session, scenario)
    assert store.game_info(session.id).move_count == before + 2


def test_win_banner_new_game_button(store: Store) -> None:
    record = Record.from_json(WIN_RECORD.read_text(encoding="utf-8"))
    session, last = import_up_to_last(store, record.seed, record.moves)

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press(ARROW_OF[last])
        await pilot.pause()
        assert isinstance(app.screen, WinScreen)
        await pilot.click("#new")
        await pilot.pause()
        assert on_board(app)
        assert app.session.id != session.id
        assert app.session.state.moves == 0

    app = drive(store, session, scenario)
    assert store.game_info(app.session.id).move_count == 0
    assert store.game_info(session.id).won


def test_a_game_already_won_when_loaded_shows_no_banner(store: Store) -> None:
    record = Record.from_json(WIN_RECORD.read_text(encoding="utf-8"))
    store.import_record(record)
    session = store.resume_latest()
    assert session is not None
    assert session.state.won
    assert not session.state.over

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        direction = session.state.board.valid_directions()[0]
        await pilot.press(ARROW_OF[direction.letter])
        await pilot.pause()
        assert app.session.state.moves == len(record.moves) + 1
        assert on_board(app)

    drive(store, session, scenario)


# ---------------------------------------------------------------------- game over


def test_game_over_screen_then_new_game(store: Store) -> None:
    letters = played_to_the_end("over-1")
    final, _, _ = expected_after("over-1", [ARROW_OF[x] for x in letters])
    session, last = import_up_to_last(store, "over-1", letters)
    assert not session.state.over

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press(ARROW_OF[last])
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        text = text_of(app.screen, "#over-text")
        assert f"Final score {final.score:,}" in text
        assert f"Best score {store.best_score():,}" in text
        assert store.moves(session.id) == letters
        await pilot.press("n")
        await pilot.pause()
        assert on_board(app)
        assert app.session.id != session.id

    app = drive(store, session, scenario)
    assert store.game_info(session.id).over
    fresh = store.game_info(app.session.id)
    assert fresh.move_count == 0
    assert not fresh.over


def test_a_finished_game_opens_on_the_game_over_screen(store: Store) -> None:
    letters = played_to_the_end("over-2")
    final, _, _ = expected_after("over-2", [ARROW_OF[x] for x in letters])
    better = store.new_game("better")
    better.play(better.state.board.valid_directions()[0])
    session = store.open_game(store.import_record(Record("over-2", letters, final.score)).game_id)

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, GameOverScreen)
        text = text_of(app.screen, "#over-text")
        assert f"Final score {final.score:,}" in text
        assert f"Best score {max(final.score, better.state.score):,}" in text
        await pilot.press("escape")
        await pilot.pause()
        assert on_board(app)
        await pilot.press("left", "up", "right", "down")
        assert store.moves(session.id) == letters
        await pilot.press("q")

    drive(store, session, scenario)


# ---------------------------------------------------------------------- conflicts


def test_conflict_stops_moves_for_that_game(store: Store) -> None:
    session = store.new_game("tui-1")
    elsewhere = store.open_game(session.id)
    elsewhere.play(Direction.LEFT)

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press("left")
        await pilot.pause()
        assert isinstance(app.screen, ConflictScreen)
        text = text_of(app.screen, "#conflict-text")
        assert f"Game {session.id} now has 1 move in the store; this screen shows 0." in text
        assert "expected to write" not in text
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("up", "down", "right")
        assert store.moves(session.id) == "L"
        assert app.game_screen.locked
        await pilot.press("n")
        await pilot.pause()
        assert app.session.id != session.id
        await pilot.press("right")
        await pilot.pause()

    app = drive(store, session, scenario)
    assert store.moves(session.id) == "L"
    assert store.moves(app.session.id) in ("R", "")


# ---------------------------------------------------------------------- other keys


def test_q_quits_and_the_moves_are_stored(store: Store) -> None:
    session = store.new_game("tui-2")
    keys = ["left", "up", "right", "down"]
    _expected, letters, _ = expected_after("tui-2", keys)

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press(*keys, "q")
        await pilot.pause()
        assert app.return_code == 0

    drive(store, session, scenario)
    assert store.moves(session.id) == letters
    reopened = store.open_game(session.id)
    assert reopened.state.moves == len(letters)


def test_n_starts_a_new_stored_game(store: Store) -> None:
    session = store.new_game("tui-2", player="tester")

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press("left", "n")
        await pilot.pause()
        assert app.session.id != session.id
        assert score_box(app, "score").value == 0
        assert score_box(app, "moves").value == 0
        assert shown_board(app) == list(app.session.state.board)
        assert f"game {app.session.id}" in text_of(app.game_screen, "#info")
        assert "player tester" in text_of(app.game_screen, "#info")

    app = drive(store, session, scenario)
    games = {info.id: info for info in store.list_games()}
    assert set(games) == {session.id, app.session.id}
    assert games[app.session.id].player == "tester"
    assert store.moves(session.id) == "L"


def test_help_opens_and_closes(store: Store) -> None:
    session = store.new_game("tui-2")

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        for closing_key in ("escape", "question_mark", "q"):
            await pilot.press("?")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("left")  # ignored under the help card
            await pilot.press(closing_key)
            await pilot.pause()
            assert on_board(app)
        assert app.is_running, "q closes help; it does not quit the game"

    drive(store, session, scenario)
    assert store.moves(session.id) == ""


def test_hint_shows_a_direction_and_marks_the_game_assisted(store: Store) -> None:
    session = store.new_game("tui-1")

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = text_of(app.game_screen, "#status")
        # NumPy is a regular dependency: "hints unavailable" here is a bug.
        assert status.startswith("hint: "), status
        assert any(d.name.lower() in status for d in Direction)
        assert store.game_info(session.id).assisted

    drive(store, session, scenario)
    assert store.moves(session.id) == ""


def test_a_move_from_another_process_can_be_reloaded(store: Store, tmp_path: Path) -> None:
    """A real second process (``twenty48 play --moves``) appends; Reload shows its move.

    Then the game goes on from the stored state, and the quit line reports
    the stored game, not the stale copy the screen had before.
    """
    db = str(tmp_path / "games.sqlite3")
    session = store.new_game("tui-1")
    elsewhere = GameState.new("tui-1")
    letter = next(d for d in Direction if d in elsewhere.board.valid_directions()).letter
    other = run_cli("play", "--db", db, "--game", str(session.id), "--moves", letter)
    assert other.returncode == 0, other.stderr
    stored = store.open_game(session.id).state
    assert stored.moves == 1

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press(ARROW_OF[letter])  # the screen still shows the opening board
        await pilot.pause()
        assert isinstance(app.screen, ConflictScreen)
        assert app.game_screen.locked
        await pilot.press("escape")
        await pilot.pause()
        assert "press a move key for Reload / New game / Quit" in text_of(
            app.game_screen, "#status"
        )
        await pilot.press("left")  # a move key while locked offers the choices again
        await pilot.pause()
        assert isinstance(app.screen, ConflictScreen)
        await pilot.press("r")
        await pilot.pause()
        assert on_board(app)
        assert not app.game_screen.locked
        assert app.session.id == session.id
        assert shown_board(app) == list(stored.board)
        assert score_box(app, "moves").value == 1
        assert score_box(app, "score").value == stored.score
        assert "reloaded" in text_of(app.game_screen, "#status")
        follow = next(d for d in Direction if d in stored.board.valid_directions())
        await pilot.press(ARROW_OF[follow.letter])
        await pilot.pause()
        assert store.moves(session.id) == letter + follow.letter

    app = drive(store, session, scenario)
    final = store.open_game(session.id).state
    assert final.moves == 2
    line = quit_line(store, app.session)
    assert f"game {session.id}: score {final.score}, 2 moves, saved" in line


def test_the_quit_line_reports_the_stored_game_after_a_conflict(
    store: Store, tmp_path: Path
) -> None:
    """Quit straight from the conflict dialog: the line gives the other process's moves."""
    db = str(tmp_path / "games.sqlite3")
    session = store.new_game("tui-2")
    letters = played_to_the_end("tui-2")[:3]
    other = run_cli("play", "--db", db, "--game", str(session.id), "--moves", letters)
    assert other.returncode == 0, other.stderr

    async def scenario(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.press(ARROW_OF[letters[0]])
        await pilot.pause()
        assert isinstance(app.screen, ConflictScreen)
        await pilot.press("q")
        await pilot.pause()

    app = drive(store, session, scenario)
    stored = store.open_game(session.id).state
    assert stored.moves == 3
    assert quit_line(store, app.session).startswith(
        f"game {session.id}: score {stored.score}, 3 moves, saved; continue with"
    )
