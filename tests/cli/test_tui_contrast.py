"""Every text on screen reads at a WCAG contrast ratio of at least 4.5 in 16 and 256 colours.

The screens are drawn as a terminal of that depth gets them (``TERM=screen``:
16 colours, ``TERM=tmux-256color``: 256): each cell's colours are read from
the styles the screen hands to Rich, converted the way Rich converts them
for the terminal, and taken as the RGB of the terminal's table (Rich's
standard VGA table, the xterm 256 table).  Every cell that holds a letter,
digit or sign (box-drawing and block characters are lines and bars, not
text) must meet its background at 4.5:1 or more: the board, the score
boxes, the key bar, the status lines, the banners and markers, and every
dialog.  The original's own palette (true colour) is its look and is not
held to this.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from rich._palettes import EIGHT_BIT_PALETTE, STANDARD_PALETTE
from rich.color import Color, ColorSystem
from rich.style import Style
from support.screens import screen_lines
from textual.app import App
from textual.filter import dim_color
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen

from twenty48_replay.core.board import Board
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import verify
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.store import Store

if TYPE_CHECKING:
    from twenty48_cli.tui.play_app import PlayApp
    from twenty48_cli.tui.replay_app import ReplayApp
    from twenty48_cli.tui.screens import (
        ConfirmEndScreen,
        ConflictScreen,
        GameOverScreen,
        WinScreen,
    )
    from twenty48_cli.tui.widgets import BoardView, ScoreBox
else:
    from twenty48_cli.tui.play_app import PlayApp
    from twenty48_cli.tui.replay_app import ReplayApp
    from twenty48_cli.tui.screens import (
        ConfirmEndScreen,
        ConflictScreen,
        GameOverScreen,
        WinScreen,
    )
    from twenty48_cli.tui.widgets import BoardView, ScoreBox

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DEPTHS = pytest.mark.parametrize(
    ("term", "system"),
    [("screen", ColorSystem.STANDARD), ("tmux-256color", ColorSystem.EIGHT_BIT)],
    ids=["16", "256"],
)
#: A board with every tile colour there is, and an empty cell.
ALL_TILES = Board.from_rows(
    [[0, 2, 4, 8], [16, 32, 64, 128], [256, 512, 1024, 2048], [4096, 8192, 65536, 2]]
)


def terminal_of(monkeypatch: pytest.MonkeyPatch, term: str) -> None:
    """The environment of a terminal with this ``TERM`` and no colour overrides."""
    monkeypatch.setenv("TERM", term)
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.x relative luminance of an sRGB colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(v) for v in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: tuple[int, int, int], two: tuple[int, int, int]) -> float:
    """WCAG contrast ratio, 1 to 21."""
    high, low = sorted((relative_luminance(one), relative_luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def on_terminal(color: Color, system: ColorSystem) -> tuple[int, int, int]:
    """The RGB a terminal of this depth shows for ``color``."""
    converted = color.downgrade(system)
    assert converted.number is not None, converted
    table = STANDARD_PALETTE if system == ColorSystem.STANDARD else EIGHT_BIT_PALETTE
    triplet = table[converted.number]
    return (triplet.red, triplet.green, triplet.blue)


def is_text(char: str) -> bool:
    """A character people read (lines, bars and blocks are drawings)."""
    return not char.isspace() and not 0x2500 <= ord(char) <= 0x259F


def readable_region(app: App[Any]) -> Region:
    """The part of the screen that is this screen's own: a dialog's card, or everything."""
    screen = app.screen
    if isinstance(screen, ModalScreen):
        card = screen.query("Vertical").first()
        return screen.find_widget(card).region
    return Region(0, 0, *app.size)


def low_contrast(app: App[Any], system: ColorSystem) -> list[str]:
    """Every text cell of the screen below 4.5:1, described."""
    found: dict[tuple[str, str], list[str]] = {}
    lines = screen_lines(app)
    region = readable_region(app)
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            char = lines[y][x]
            if not is_text(char):
                continue
            style: Style = app.screen.get_style_at(x, y)
            assert style.color is not None, (x, y, char)
            assert style.bgcolor is not None, (x, y, char)
            fg, bg = style.color, style.bgcolor
            if style.reverse:
                fg, bg = bg, fg
            if style.dim:  # what a terminal that dims shows: half way to the background
                fg = dim_color(bg, fg)
            text, back = on_terminal(fg, system), on_terminal(bg, system)
            ratio = contrast(text, back)
            if ratio < 4.5:
                found.setdefault((f"{text} on {back}", f"{ratio:.2f}"), []).append(char)
    return [f"{pair} {ratio}: {''.join(chars)[:40]!r}" for (pair, ratio), chars in found.items()]


Scenario = Callable[[App[Any], Pilot[Any]], Awaitable[None]]


def check(
    app: App[Any], system: ColorSystem, scenarios: list[tuple[str, Scenario]], size: tuple[int, int]
) -> list[str]:
    problems: list[str] = []

    async def run() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for name, scenario in scenarios:
                await scenario(app, pilot)
                await pilot.pause()
                problems.extend(f"{name}: {line}" for line in low_contrast(app, system))

    asyncio.run(run())
    return problems


async def board_and_notes(app: App[Any], pilot: Pilot[Any]) -> None:
    screen = app.screen
    screen.query_one(BoardView).show(ALL_TILES, 5)
    screen.query_one("#score", ScoreBox).show(2048, "+16")
    screen.set_status("a notice", notice=True)  # type: ignore[attr-defined]


def push(make: Callable[[], Any]) -> Scenario:
    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        app.push_screen(make())

    return scenario


def keys(*pressed: str) -> Scenario:
    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press(*pressed)

    return scenario


async def back(app: App[Any], pilot: Pilot[Any]) -> None:
    while isinstance(app.screen, ModalScreen):
        app.pop_screen()
        await pilot.pause()


@DEPTHS
@pytest.mark.parametrize("size", [(80, 24), (40, 15)], ids=["80x24", "40x15"])
def test_the_game_and_its_dialogs_read_at_4_5_to_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, term: str, system: ColorSystem, size: Any
) -> None:
    terminal_of(monkeypatch, term)
    with Store(str(tmp_path / "games.sqlite3")) as store:
        session = store.new_game("contrast", player="ivy")
        session.play(next(iter(session.state.board.valid_directions())))
        app = PlayApp(store, session)
        scenarios: list[tuple[str, Scenario]] = [
            ("board", board_and_notes),
            ("help", keys("question_mark")),
            ("help closed", back),
            ("rules", keys("r")),
            ("rules closed", back),
            ("game over", push(lambda: GameOverScreen(2048, 4096, 300, 256))),
            ("closed", back),
            ("won", push(lambda: WinScreen(20000, 900))),
            ("closed", back),
            ("confirm", push(lambda: ConfirmEndScreen(108, 1234, 99))),
            ("closed", back),
            ("conflict", push(lambda: ConflictScreen("Game 1 was changed elsewhere."))),
        ]
        problems = check(app, system, scenarios, size)
    assert not problems, "\n".join(problems)


@DEPTHS
def test_the_replay_viewer_and_its_dialogs_read_at_4_5_to_1(
    monkeypatch: pytest.MonkeyPatch, term: str, system: ColorSystem
) -> None:
    terminal_of(monkeypatch, term)
    record = Record.from_json((EXAMPLES / "tampered-swapped-move.json").read_text("utf-8"))
    app = ReplayApp(Timeline(record), "swapped", list(verify(record).reasons))
    scenarios: list[tuple[str, Scenario]] = [
        ("opening", keys("right")),
        ("invalid end", keys("end")),
        ("playing", keys("home", "space")),
        ("paused", keys("space")),
        ("go to", keys("g", "x", "enter")),
        ("closed", back),
        ("help", keys("question_mark")),
        ("closed", back),
        ("reasons", keys("i")),
    ]
    assert not (problems := check(app, system, scenarios, (80, 24))), "\n".join(problems)


@DEPTHS
def test_the_replay_markers_read_at_4_5_to_1(
    monkeypatch: pytest.MonkeyPatch, term: str, system: ColorSystem
) -> None:
    """The win marker (step of the first 2048) and the game-over marker."""
    terminal_of(monkeypatch, term)
    won = Record.from_json((ROOT / "tests" / "data" / "long-2000.json").read_text("utf-8"))
    timeline = Timeline(won)
    assert timeline.winning_step is not None
    winning = timeline.winning_step

    async def at_win(app: App[Any], pilot: Pilot[Any]) -> None:
        app.screen.go_to(winning)  # type: ignore[attr-defined]

    scenarios: list[tuple[str, Scenario]] = [("win", at_win), ("end", keys("end"))]
    for size in ((80, 24), (40, 15)):
        problems = check(ReplayApp(timeline, "won", []), system, scenarios, size)
        assert not problems, "\n".join(problems)
