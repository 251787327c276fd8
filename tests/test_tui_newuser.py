"""What a newcomer met in tmux at 80x24, 60x20 and 40x15 (issue 20's acceptance walkthrough).

Each test reads the rendered screen, as a person in the terminal would:

* every message the play screen's status line can show is whole on it;
* the help card keeps its closing line in view when its keys scroll, and the
  reasons card says it closes itself (not "the help");
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_tui_fit import BOTH, EACH_SIZE, assert_fits, play_app, run
from test_tui_layout import screen_lines
from textual.app import App
from textual.pilot import Pilot

from twenty48_replay.i18n import _


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
