"""The Textual apps' screens in tests: rendered at a size, read back as lines, checked to fit."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.app import App
from textual.errors import NoWidget
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets._footer import FooterKey

from support.common import EXAMPLES
from twenty48_cli.tui.play_app import PlayApp
from twenty48_cli.tui.replay_app import ReplayApp
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import verify
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.store import Store


def screen_lines(app: App[Any]) -> list[str]:
    """The text of every cell on screen, one string per row (what a screenshot shows)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    lines = console.export_text(styles=False).split("\n")
    return [line.ljust(width) for line in lines[:height]]


BOTH = pytest.mark.parametrize("language", ["en", "da"], indirect=True)

SIZES = [(80, 24), (60, 20), (40, 15)]
SIZE_IDS = ["80x24", "60x20", "40x15"]
Scenario = Callable[[App[Any], Pilot[Any]], Awaitable[None]]

EACH_SIZE = pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)


def run(app: App[Any], size: tuple[int, int], scenario: Scenario) -> None:
    async def go() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for _ in range(50):  # the key bar composes its keys once the bindings are known
                if app.screen.query(FooterKey):
                    break
                await pilot.pause(0.05)
            await pilot.pause()
            await scenario(app, pilot)

    asyncio.run(go())


def play_app(tmp_path: Path) -> PlayApp:
    store = Store(str(tmp_path / "games.sqlite3"))
    return PlayApp(store, store.new_game("fit", player="a-player"))


def replay_app(record_file: str = "valid.json") -> ReplayApp:
    record = Record.from_json((EXAMPLES / record_file).read_text("utf-8"))
    return ReplayApp(Timeline(record), record_file, list(verify(record).reasons))


def assert_fits(app: App[Any]) -> None:
    """Every widget of the screen lies whole inside the terminal; no scrollbar anywhere."""
    screen = app.screen
    whole = Region(0, 0, *app.size)
    for widget in [screen, *screen.query("*")]:
        assert not widget.show_horizontal_scrollbar, f"{widget} scrolls sideways"
        if not isinstance(screen, ModalScreen):
            assert not widget.show_vertical_scrollbar, f"{widget} scrolls"
        if widget is screen or not widget.display:
            continue
        try:
            geometry = screen.find_widget(widget)
        except NoWidget:
            continue
        if geometry.region.area == 0:
            continue
        region = geometry.region
        assert region.x >= 0, f"{widget} leaves the screen"
        assert region.right <= whole.right, f"{widget} is wider than the screen"
        if not isinstance(screen, ModalScreen):  # a card may scroll; a screen may not
            assert whole.contains_region(region), f"{widget} leaves the screen"
            assert geometry.visible_region == region, f"{widget} is cut"
