"""No name passes for a registered one: the marks are refused, and the page's mark is no text.

The leaderboard marked a registered name with a check mark appended to the
name's text, so an unregistered player called "alice ✓" read as the
registered "alice".  A real server (SQLite and PostgreSQL, real HTTP)
refuses check marks and their look-alikes in names, and the leaderboard
page, in headless Chromium, draws the mark as a badge apart from the name:
an element of its own, holding no character, named by its aria-label.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from support.browser import BrowserPage
from support.names_play import Exchange, finish_a_game
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client
from twenty48_replay.fairplay.names import NameRefusedError, check_name

#: What Unicode calls a check mark or passes for one: the names REGISTERED_MARKS stands for.
MARK_WORDS = ("CHECK MARK", "BALLOT BOX WITH CHECK", "BALLOT BOX WITH BOLD CHECK", " ROOT")
IMITATIONS = [
    "alice ✓",
    "alice✓",
    "alice ✔",
    "alice ✔\ufe0e",  # refused for the variation selector already; never accepted
    "alice ☑",
    "alice ✅",
    "alice 🗸",
    "alice √",
    "✓ alice",
    "al✓ice",
]


def test_the_marks_are_every_check_mark_unicode_has() -> None:
    from twenty48_replay.fairplay.names import REGISTERED_MARKS

    named = {
        chr(code)
        for code in range(sys.maxunicode + 1)
        if any(word in unicodedata.name(chr(code), "") for word in MARK_WORDS)
        or unicodedata.name(chr(code), "") == "RADICAL SYMBOL BOTTOM"
    }
    assert named == set(REGISTERED_MARKS)
    for mark in REGISTERED_MARKS:
        with pytest.raises(NameRefusedError, match="check mark or a look-alike"):
            check_name(f"alice {mark}")
    assert check_name("alice v") == "alice v"  # letters stay letters


@pytest.mark.slow
def test_the_server_refuses_names_that_imitate_the_mark(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        http = Exchange(server.url)
        assert http.send("POST", "/api/players", {"name": "alice"})[0] == 201
        for name in IMITATIONS:
            for path, field in (("/api/players", "name"), ("/api/games", "player")):
                reason = http.refused(422, path, {field: name})["error"]
                assert f"field '{field}'" in reason, reason
        reason = http.refused(422, "/api/games", {"player": "alice ✓"})["error"]
        assert "check mark or a look-alike (U+2713 CHECK MARK)" in reason
        listed = Client(server.url).leaderboard()["games"]
        assert listed == []


@pytest.mark.slow
def test_the_leaderboard_draws_the_mark_apart_from_the_name(
    new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    with ServerProcess(str(tmp_path / "server.sqlite3"), tmp_path, "--no-analysis") as server:
        http = Exchange(server.url)
        status, registration = http.send("POST", "/api/players", {"name": "alice"})
        assert status == 201, registration
        client = Client(server.url)
        finish_a_game(client, "alice", registration["secret"], 8)
        finish_a_game(client, "alice v", None, 4)  # unregistered, as close as a name may get
        client.close()

        watched = new_browser_page()
        page = watched.page
        watched.open(server.url + "/leaderboard")
        watched.wait_for("document.getElementById('leaderboard').dataset.state === 'ready'")
        rows = {page.text_content(f"#rows tr:nth-child({n}) .player-name"): n for n in (1, 2)}
        assert set(rows) == {"alice", "alice v"}
        mine, theirs = (f"#rows tr:nth-child({rows[name]})" for name in ("alice", "alice v"))
        badge = page.locator(f"{mine} .registered-badge")
        assert badge.count() == 1
        assert page.locator(f"{theirs} .registered-badge").count() == 0
        # The badge is no text: nothing a name could hold, copy or imitate.
        assert badge.text_content() == ""
        assert page.text_content(f"{mine} td.player") == "alice"
        assert badge.get_attribute("role") == "img"
        assert badge.get_attribute("aria-label") == "registered name: played with its secret"
        # ... and not inside the name's own element, but drawn beside it, in colour.
        assert page.locator(f"{mine} .player-name .registered-badge").count() == 0
        look = badge.evaluate(
            "b => { const s = getComputedStyle(b), a = getComputedStyle(b, '::after');"
            " return [s.backgroundColor, s.borderRadius, a.borderRightWidth, a.content]; }"
        )
        assert look[0] not in ("rgba(0, 0, 0, 0)", "transparent"), look
        assert look[1] == "50%", look
        assert look[2] != "0px", look
        assert look[3] == '""', look
        name_box = page.locator(f"{mine} .player-name").bounding_box()
        badge_box = badge.bounding_box()
        assert name_box is not None
        assert badge_box is not None
        assert badge_box["width"] > 0
        assert badge_box["x"] >= name_box["x"] + name_box["width"]
        # The accessibility tree names it, in words (Chromium's computed role and name).
        named = page.get_by_role("img", name="registered name: played with its secret")
        assert named.count() == 1
        assert named.evaluate("b => b.closest('tr').dataset.registered") == "yes"
        assert watched.errors == []
