"""Both Textual apps show record text and file names escaped (issue 9.1).

The replay viewer and the game run headless (``run_test``) on the hostile
record of :mod:`tests.hostile`; what the screen renders is taken from the
compositor: the text of every segment must hold no control character (the
hostile text shows as ``\\x1b]0;pwned\\x07``), and the bytes the app would
write to the terminal must hold no sequence but its own (cursor moves and
colours: CSI), so no OSC, BEL, C1 CSI or screen clear.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.hostile import HOSTILE, HOSTILE_NAME, hostile_record, raw_controls
from textual.app import App

from twenty48_cli.tui.play_app import PlayApp
from twenty48_cli.tui.replay_app import ReplayApp
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import verify
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.store import Store


def rendered(app: App[Any]) -> tuple[str, str]:
    """The screen as the app draws it: its text, and the raw terminal output."""
    compositor = app.screen._compositor
    update = compositor.render_full_update()
    text = "".join(
        segment.text
        for line in update.strips
        for strip in line
        for segment in strip
        if not segment.control
    )
    raw = compositor.render_full_update().render_segments(app.console)
    return text, raw


def assert_safe(app: App[Any]) -> str:
    """No control character in the rendered text, no foreign sequence in the output."""
    text, raw = rendered(app)
    assert raw_controls(text, keep="") == [], text
    for foreign in ("\x1b]", "\x07", "\x9b", "\x1b[2J", "\x7f"):
        assert foreign not in raw
    return text


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(str(tmp_path / "g.db")) as opened:
        yield opened


def test_replay_viewer_escapes_seed_player_label_and_reasons() -> None:
    data = {**hostile_record(), "score": 2}  # invalid: the banner shows the reasons too
    record = Record.from_dict(json.loads(json.dumps(data)))
    reasons = [*verify(record).reasons, "reason" + HOSTILE]
    app = ReplayApp(Timeline(record), HOSTILE_NAME, reasons)
    seen: list[str] = []

    async def run() -> None:
        async with app.run_test(size=(200, 40)) as pilot:
            await pilot.pause()
            seen.append(assert_safe(app))
            await pilot.press("end")
            await pilot.pause()
            seen.append(assert_safe(app))
            await pilot.press("g", "x", "enter")  # the go-to prompt with a bad entry
            await pilot.pause()
            seen.append(assert_safe(app))

    asyncio.run(run())
    assert "\\x1b]0;pwned\\x07" in seen[0]
    assert "\\x9b2J" in seen[0]
    assert "INVALID" in seen[0]
    assert "reason\\x1b]52" in seen[0]


def test_game_escapes_seed_and_player_after_import_and_in_a_new_game(store: Store) -> None:
    record = Record.from_dict(json.loads(json.dumps(hostile_record())))
    store.import_record(record)
    session = store.resume_latest()
    assert session is not None
    app = PlayApp(store, session)
    seen: list[str] = []

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            seen.append(assert_safe(app))
            await pilot.press("n")  # a new game keeps the player name
            await pilot.pause()
            seen.append(assert_safe(app))

    asyncio.run(run())
    assert "\\x1b]0;pwned\\x07" in seen[0]
    assert "\\x9b2J" in seen[0]
    assert "player\\x1b]52" in seen[1]
