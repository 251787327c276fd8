"""What a newcomer met in tmux at 80x24, 60x20 and 40x15 (issue 20's acceptance walkthrough).

Each test reads the rendered screen, as a person in the terminal would:

* every message the play screen's status line can show is whole on it;
* the help card keeps its closing line in view when its keys scroll, and the
  reasons card says it closes itself (not "the help");
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from support.screens import BOTH, EACH_SIZE, assert_fits, play_app, replay_app, run, screen_lines
from textual.app import App
from textual.pilot import Pilot

from twenty48_replay.core import i18n
from twenty48_replay.core.i18n import _

if TYPE_CHECKING:
    from twenty48_cli.tui.screens import HelpScreen
else:
    from twenty48_cli.tui.screens import HelpScreen


@pytest.fixture
def language_da() -> Iterator[None]:
    i18n.set_language("da")
    yield
    i18n.set_language(i18n.ENGLISH)


def status_texts(compact: bool) -> list[str]:
    """Every status line of ``twenty48 play``, with its longest values (a 4-digit game id)."""
    hints = [
        _("hint: {arrow} {direction}  (game marked assisted)").format(arrow="←", direction=_(name))
        for name in ("up", "down", "left", "right")
    ]
    texts = [
        *hints,
        _("hint: thinking…"),
        _("hint: no move helps"),
        _("hints unavailable"),
        _("game over: n new game, q quit"),
    ]
    saved = (
        "game {id} is saved: play --game {id}"
        if compact
        else "game {id} is saved: twenty48 play --game {id}"
    )
    return [*texts, _(saved).format(id=9999)]


@pytest.mark.slow
@BOTH
@EACH_SIZE
def test_every_status_message_is_whole_on_the_screen(
    tmp_path: Path, size: tuple[int, int], language: str
) -> None:
    app = play_app(tmp_path)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        screen = app.screen
        screen.locked = True  # type: ignore[attr-defined]  # another process moved this game
        locked = screen.standing_note()  # type: ignore[attr-defined]
        for message in [*status_texts(size[0] < 60), locked]:
            screen.set_status(message)  # type: ignore[attr-defined]
            await pilot.pause()
            assert_fits(app)
            region = screen.find_widget(screen.query_one("#status")).visible_region
            lines = screen_lines(app)[region.y : region.bottom]
            shown = " ".join(line[region.x : region.right].strip() for line in lines)
            assert shown.strip() == message, (message, size, lines)

    run(app, size, scenario)


def card_rows(app: App[Any]) -> list[str]:
    """The rows of the open card (inside its border), stripped."""
    region = app.screen.query_one("#help").region
    lines = screen_lines(app)[region.y + 1 : region.bottom - 1]
    return [line[region.x + 1 : region.right - 1].strip() for line in lines]


def closing_words(scrolls: bool) -> str:
    if scrolls:
        return _("[dim]↑ ↓ scroll · escape, ? or q closes this[/dim]")[5:-6]
    return _("[dim]escape, ? or q closes this[/dim]")[5:-6]


@pytest.mark.slow
@BOTH
@EACH_SIZE
@pytest.mark.parametrize("which", ["play", "replay"])
def test_the_help_card_keeps_its_closing_line_in_view(
    tmp_path: Path, size: tuple[int, int], language: str, which: str
) -> None:
    """Where the help card scrolls (40x15), how to scroll and close it stays on screen."""
    app = play_app(tmp_path) if which == "play" else replay_app()

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.pause(0.1)
        assert isinstance(app.screen, HelpScreen)
        scrolls = app.screen.query_one("#help").max_scroll_y > 0
        want = closing_words(scrolls)
        for _press in range(2 if scrolls else 1):
            shown = " ".join(row for row in card_rows(app) if row)
            assert want in shown, (want, card_rows(app))
            await pilot.press("pagedown")
            await pilot.pause()

    run(app, size, scenario)


def test_the_danish_reasons_card_does_not_call_itself_the_help(language_da: None) -> None:
    """The reasons card (``i`` replaying an invalid record) shares the help's closing line."""
    app = replay_app("tampered-score.json")

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press("i")
        await pilot.pause()
        rows = card_rows(app)
        assert _("Why this record is invalid") in rows, rows
        closing = " ".join(rows[rows.index("") + 1 :] if "" in rows else rows)
        assert "hjælp" not in " ".join(rows), rows
        assert "lukker" in closing, rows

    run(app, (40, 15), scenario)
