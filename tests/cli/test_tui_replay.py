"""The ``twenty48 replay`` viewer, driven headless by key presses.

Each test runs the real :class:`ReplayApp` under ``App.run_test`` at 80x24
(no mocks) over a real :class:`Timeline`.  After every key the step number
and the board the widgets show are compared with ``timeline[n]``, so the
viewer is checked against the replay itself rather than against itself.
``pytest-asyncio`` is not a dependency, so each test drives its coroutine
with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, ProgressBar, Static
from textual.widgets._footer import FooterKey

from twenty48_cli.tui.replay_app import SPEEDS, GotoScreen, ReplayApp, parse_step
from twenty48_cli.tui.screens import HelpScreen
from twenty48_cli.tui.widgets import BoardView, ScoreBox, Tile
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import verify
from twenty48_replay.core.timeline import Timeline

ROOT = Path(__file__).resolve().parents[2]
LONG = ROOT / "tests" / "data" / "long-2000.json"
VALID = ROOT / "examples" / "valid.json"
SWAPPED = ROOT / "examples" / "tampered-swapped-move.json"

Scenario = Callable[[ReplayApp, Pilot[None]], Awaitable[None]]


def load(path: Path) -> tuple[Timeline, list[str]]:
    """The timeline and verification failures, as ``twenty48 replay`` computes them."""
    record = Record.from_json(path.read_text(encoding="utf-8"))
    return Timeline(record), list(verify(record).reasons)


def drive(path: Path, scenario: Scenario) -> ReplayApp:
    """Run the viewer on ``path`` at 80x24 around ``scenario``; returns the app."""
    timeline, reasons = load(path)
    app = ReplayApp(timeline, path.name, reasons)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await scenario(app, pilot)

    asyncio.run(run())
    return app


async def wait_until(
    pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 20
) -> None:
    """Let the app run until ``condition`` holds (autoplay runs on timers).

    Polling with a generous deadline, not a fixed pause, so a loaded machine
    only makes the test slower, never wrong.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await pilot.pause(0.02)


def text_of(screen: Screen[Any], selector: str) -> str:
    """The text a Static shows, markup applied (what the user reads)."""
    visual = screen.query_one(selector, Static).visual
    return visual.plain if isinstance(visual, Content) else str(visual)


def on_viewer(app: ReplayApp) -> bool:
    """No dialog is open: the viewer has the keys."""
    return app.screen is app.replay_screen


def footer_keys(app: ReplayApp) -> list[str]:
    """The key descriptions the footer shows now."""
    return [key.description for key in app.replay_screen.query(FooterKey)]


def assert_shows(app: ReplayApp, number: int) -> None:
    """The viewer is at step ``number`` and every widget shows that step."""
    screen = app.replay_screen
    step = app.timeline[number]
    assert app.step == number
    assert screen.query_one(BoardView).values() == list(step.board)
    assert screen.query_one("#move", ScoreBox).value == number
    assert f"of {app.timeline.last:,}" in text_of(screen, "#move")
    assert screen.query_one("#score", ScoreBox).value == step.score
    assert screen.query_one(ProgressBar).progress == number
    spawned = [t.cell for t in screen.query(Tile) if t.has_class("-spawned")]
    if step.move is None:
        assert spawned == []
        assert text_of(screen, "#played") == "opening"
    else:
        assert spawned == [step.spawn.cell]
        assert step.move.letter in text_of(screen, "#played")
        assert text_of(screen, "#spawned").startswith(f"{step.spawn.value} at row ")
        if step.gained:
            assert f"+{step.gained}" in text_of(screen, "#score")


# ---------------------------------------------------------------------- stepping


def test_opens_on_the_opening_board() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        assert_shows(app, 0)
        assert "long-2000.json" in text_of(app.replay_screen, "#title")
        assert "seed long-2000" in text_of(app.replay_screen, "#title")
        assert not app.replay_screen.query("#banner"), "a valid record has no banner"

    drive(LONG, scenario)


def test_arrows_and_hl_step_forward_and_back() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        for key, expected in [
            ("right", 1),
            ("right", 2),
            ("l", 3),
            ("l", 4),
            ("left", 3),
            ("h", 2),
            ("h", 1),
            ("h", 0),
            ("left", 0),  # stops at the opening
            ("h", 0),
        ]:
            await pilot.press(key)
            assert_shows(app, expected)

    drive(LONG, scenario)


def test_pages_and_home_end_jump() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        last = app.timeline.last
        assert last == 2000
        for key, expected in [
            ("pagedown", 10),
            ("pagedown", 20),
            ("pageup", 10),
            ("l", 11),
            ("pageup", 1),
            ("pageup", 0),  # clamped at the start
            ("end", last),
            ("right", last),  # and at the end
            ("pagedown", last),
            ("pageup", last - 10),
            ("end", last),
            ("home", 0),
        ]:
            await pilot.press(key)
            assert_shows(app, expected)

    drive(LONG, scenario)


def test_goto_prompt_jumps_and_goes_back() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        await pilot.press("g")
        assert isinstance(app.screen, GotoScreen)
        await pilot.press("1", "2", "3", "4", "enter")
        assert on_viewer(app)
        assert_shows(app, 1234)
        await pilot.press("left", "pageup")
        assert_shows(app, 1223)
        await pilot.press("g", "-", "1", "enter")  # negative: from the end
        assert_shows(app, 2000)
        await pilot.press("5", "0", "enter")  # a digit opens the prompt with it
        assert on_viewer(app)
        assert_shows(app, 50)

    drive(LONG, scenario)


def test_goto_rejects_bad_input_and_escape_cancels() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        await pilot.press("pagedown")
        await pilot.press("g", "x", "y", "enter")
        assert isinstance(app.screen, GotoScreen), "a bad entry keeps the prompt open"
        assert "not a move number" in text_of(app.screen, "#goto-error")
        app.screen.query_one(Input).value = ""
        await pilot.press("5", "0", "0", "1", "enter")
        assert isinstance(app.screen, GotoScreen)
        assert "outside 0..2000" in text_of(app.screen, "#goto-error")
        await pilot.press("escape")
        assert on_viewer(app)
        assert_shows(app, 10)
        await pilot.press("right")  # the viewer keys work again
        assert_shows(app, 11)

    drive(LONG, scenario)


def test_parse_step() -> None:
    assert parse_step("12", 100) == 12
    assert parse_step(" 1,000 ", 2000) == 1000
    assert parse_step("-1", 100) == 100
    assert parse_step("-101", 100) == 0
    assert parse_step("0", 0) == 0
    assert parse_step("101", 100) == "move 101 is outside 0..100"
    assert parse_step("-102", 100) == "move -102 is outside 0..100"
    assert parse_step("", 100) == "type a move number"
    assert parse_step("ten", 100) == "not a move number: 'ten'"


# ---------------------------------------------------------------------- autoplay


def test_space_plays_and_pauses() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        assert "Play" in footer_keys(app)
        await pilot.press("space")
        assert screen.playing
        assert "playing" in text_of(screen, "#play-state")
        await wait_until(pilot, lambda: app.step >= 2)
        assert "Pause" in footer_keys(app)
        assert "Play" not in footer_keys(app)
        await pilot.press("space")
        assert not screen.playing
        reached = app.step
        assert reached > 0, "autoplay advanced"
        assert "paused" in text_of(screen, "#play-state")
        assert_shows(app, reached)
        await pilot.pause(0.3)
        assert app.step == reached, "paused means no more moves"

    drive(LONG, scenario)


def test_speed_keys_change_the_pace() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        start = screen.speed
        assert f"{start} moves/s" in text_of(screen, "#play-state")
        await pilot.press("plus")
        assert screen.speed > start
        assert f"{screen.speed} moves/s" in text_of(screen, "#play-state")
        await pilot.press("minus", "minus")
        assert screen.speed < start
        await pilot.press(*["minus"] * screen.speed_index, "minus")
        assert screen.speed == SPEEDS[0], "the slowest speed is a floor"
        await pilot.press(*["plus"] * len(SPEEDS))
        assert screen.speed == SPEEDS[-1], "the fastest speed is a ceiling"

    drive(LONG, scenario)


def test_autoplay_stops_at_the_end_and_restarts_from_the_opening(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        last = app.timeline.last
        screen.speed_index = len(SPEEDS) - 1  # the fastest, so ten moves take little time
        await pilot.press("end", "pageup", "space")
        await wait_until(pilot, lambda: not screen.playing)
        assert not screen.playing, "autoplay stops at the last step"
        assert_shows(app, last)
        # Autoplay moves by the clock. Stopping the viewer's clock means no
        # step is due before the check below, however long a loaded machine
        # takes to deliver the key (a CI run once took over a second).
        stopped = time.monotonic()
        monkeypatch.setattr("twenty48_cli.tui.replay_app.monotonic", lambda: stopped)
        await pilot.press("space")  # from the end, play starts over
        assert screen.playing
        assert_shows(app, 0)

    drive(LONG, scenario)


def test_dialogs_pause_autoplay() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        await pilot.press("space", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert not screen.playing
        reached = app.step
        await pilot.press("right")  # ignored under the help card
        assert app.step == reached
        await pilot.press("escape")
        assert on_viewer(app)
        await pilot.press("space", "g")
        assert isinstance(app.screen, GotoScreen)
        assert not screen.playing

    drive(LONG, scenario)


# ---------------------------------------------------------------------- markers


def test_winning_move_is_marked() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        assert app.timeline.winning_step == 948
        assert "2048 reached at move 948" in text_of(screen, "#win-note")
        assert not screen.query_one("#win-marker").has_class("-on")
        await pilot.press("g", *"947", "enter")
        assert not screen.query_one("#win-marker").has_class("-on")
        assert 2048 not in screen.query_one(BoardView).values()
        await pilot.press("right")
        assert_shows(app, 948)
        assert screen.query_one("#win-marker").has_class("-on")
        assert "2048" in text_of(screen, "#win-marker")
        assert 2048 in screen.query_one(BoardView).values()
        await pilot.press("right")
        assert not screen.query_one("#win-marker").has_class("-on")

    drive(LONG, scenario)


def test_end_of_a_game_that_is_not_over() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        assert text_of(screen, "#end-marker") == ""
        await pilot.press("end")
        assert not app.timeline[-1].over
        assert "end of game" in text_of(screen, "#end-marker")
        assert screen.query_one("#end-marker").has_class("-end")

    drive(LONG, scenario)


def test_end_of_a_game_that_is_over() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        assert "win-note" not in [w.id for w in screen.query(".-on")]
        assert text_of(screen, "#win-note") == "", "this game never made 2048"
        await pilot.press("end")
        assert_shows(app, 472)
        assert app.timeline[-1].over
        assert text_of(screen, "#end-marker") == "game over"
        assert screen.query_one("#end-marker").has_class("-over")
        await pilot.press("left")
        assert text_of(screen, "#end-marker") == ""

    drive(VALID, scenario)


def test_invalid_record_shows_the_reason_and_stops_before_the_bad_move() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        screen = app.replay_screen
        banner = text_of(screen, "#banner")
        assert banner.startswith("INVALID: move 113 (D) is not a valid move")
        assert "claimed score 7008, replayed 1208" in banner
        assert_shows(app, 0)
        await pilot.press("end")
        assert_shows(app, 112)
        assert "of 112" in text_of(screen, "#move")
        assert "move 113 is invalid" in text_of(screen, "#end-marker")
        assert screen.query_one("#end-marker").has_class("-invalid")
        await pilot.press("right", "pagedown")
        assert_shows(app, 112)
        await pilot.press("g", *"113", "enter")
        assert "outside 0..112" in text_of(app.screen, "#goto-error")

    drive(SWAPPED, scenario)


# ---------------------------------------------------------------------- layout, help, quit


def test_everything_fits_80x24() -> None:
    """The tallest case (the invalid banner) still shows every widget whole."""

    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        await pilot.press("end")
        screen = app.replay_screen
        for selector in ("#title", "#banner", "#board", "#side", "#progress", "Footer"):
            region = screen.query_one(selector).region
            assert region.height > 0, selector
            assert region.x >= 0, selector
            assert region.y >= 0, selector
            assert region.right <= 80, selector
            assert region.bottom <= 24, selector
        assert (
            screen.query_one("#end-marker").region.bottom
            <= screen.query_one("#board").region.bottom
        )

    drive(SWAPPED, scenario)


def test_help_opens_and_q_quits() -> None:
    async def scenario(app: ReplayApp, pilot: Pilot[None]) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "go to a move number" in text_of(app.screen, "#help-text")
        await pilot.press("q")  # closes help, does not quit
        assert on_viewer(app)
        assert app.is_running
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running

    drive(LONG, scenario)
