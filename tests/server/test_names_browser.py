"""The play page registers a name and reuses it (issue 18, section 3), in headless Chromium.

A real ``twenty48 serve``: the page with "Keep this name mine" ticked
registers the name, keeps its secret in local storage (never on screen)
and plays with it; the leaderboard page marks the game as registered; a
browser without the secret is told the name is taken.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support.browser import BrowserPage
from support.pages import settled
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client

NAME = "pia"


def start(browser_page: BrowserPage, url: str, *, register: bool) -> None:
    page = browser_page.page
    browser_page.open(url + "/")
    page.fill("#player", NAME)
    if register:
        page.check("#register")
    page.click("#new-game-button")
    settled(page)


@pytest.mark.slow
def test_the_play_page_registers_and_reuses_a_name(
    new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    with ServerProcess(str(tmp_path / "server.sqlite3"), tmp_path, "--no-analysis") as server:
        mine = new_browser_page()
        start(mine, server.url, register=True)
        page = mine.page
        assert page.get_attribute("#game", "data-state") == "playing"
        kept = json.loads(page.evaluate("() => localStorage.getItem('twenty48.secrets')"))
        secret = kept[NAME]
        assert len(secret) >= 40
        for key in ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp"):
            page.keyboard.press(key)
            settled(page)
        page.click("#finish")
        page.click("#confirm-end-yes")  # "End game" asks first (issue 20 section 2)
        page.wait_for_selector("#game[data-fair]", state="attached", timeout=60_000)
        assert page.get_attribute("#game", "data-fair") == "checked"
        assert secret not in page.content()
        assert secret not in (
            page.evaluate("() => localStorage.getItem('twenty48.evidence')") or ""
        )

        # The same browser plays the name again with the kept secret, without ticking the box.
        start(mine, server.url, register=False)
        assert page.get_attribute("#game", "data-state") == "playing"
        page.click("#finish")
        page.click("#confirm-end-yes")  # "End game" asks first (issue 20 section 2)
        page.wait_for_selector("#game[data-fair]", state="attached", timeout=60_000)

        # The leaderboard page marks the registered entry.
        mine.open(server.url + "/leaderboard")
        mine.wait_for("document.getElementById('leaderboard').dataset.state === 'ready'")
        assert page.get_attribute("#rows tr", "data-registered") == "yes"
        assert page.get_attribute("#rows tr .registered-badge", "role") == "img"
        assert page.text_content("#rows tr td.player") == NAME  # the badge holds no text

        # Another browser, without the secret, is told the name is taken.
        theirs = new_browser_page()
        start(theirs, server.url, register=False)
        assert theirs.page.get_attribute("#game", "data-state") == "idle"
        assert "registered here" in (theirs.page.text_content("#status") or "")
        start(theirs, server.url, register=True)
        assert "registered already" in (theirs.page.text_content("#status") or "")
        assert not mine.errors, mine.errors

        client = Client(server.url)
        rows = client.leaderboard()["games"]
        assert [(row["player"], row["registered"]) for row in rows] == [(NAME, True)]
        client.close()
        assert secret not in server.log_text()
