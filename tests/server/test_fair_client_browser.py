"""The browser play page against the lying server (issue 19 section 1, acceptance 1).

The page (``/`` and its modules, served by :class:`hostile_server.HostileServer`
with the real server's files and policy) plays the same moves as the CLI
and TUI tests in test_fair_client.py in headless Chromium, and must reach
the same verdict: ``data-fair`` on ``#game`` is "broken" where the CLI
exits 1, "unusable" where it exits 2, "checked" for the honest server, and
``#fair-check`` says the same line.  For a broken rule the evidence is kept
in localStorage and offered for download, and the line is word for word
the one the Python client (:class:`twenty48_replay.fairplay.client.RemoteGame`) gives
against a fresh server lying the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from support.browser import BrowserPage
from support.fair_game import CLIENT_SEED, EXPECTED, MOVES, PLAYER
from support.hostile_server import LIES, HostileServer
from support.pages import play_on_the_page, python_verdict

if TYPE_CHECKING:
    pass


@pytest.mark.parametrize("lie", [None, *LIES])
def test_the_play_page_reaches_the_same_verdict(
    lie: str | None, browser_page: BrowserPage, tmp_path: Path
) -> None:
    with HostileServer(lie, drip=2.0) as server:
        letters = server.honest_letters(CLIENT_SEED, MOVES)
        seen = play_on_the_page(browser_page, server.url, letters)
        requests = [f"{method} {path}" for method, path, _ in server.requests]
        page = browser_page.page
        evidence = page.evaluate("() => window.localStorage.getItem('twenty48.evidence')")
        link_hidden = page.get_attribute("#evidence-link", "hidden")
        download = None
        if lie is not None and EXPECTED[lie][0] == 1:
            with page.expect_download() as caught:
                page.click("#evidence-link")
            saved = tmp_path / "evidence.json"
            caught.value.save_as(saved)
            download = json.loads(saved.read_text(encoding="utf-8"))
    # Chromium logs every 4xx answer (refuse-valid's 422) as a console error: not the page's.
    assert [e for e in browser_page.errors if "Failed to load resource" not in e] == []
    assert seen["state"] == "over"
    if lie is None:
        assert seen["fair"] == "checked", seen
        assert seen["line"].startswith("✓ Every answer followed the rules")
        assert seen["moves"] == MOVES
        assert evidence is None
        return
    code, words = EXPECTED[lie]
    words = words.format(third=letters[2])
    assert seen["fair"] == ("broken" if code == 1 else "unusable"), seen
    assert seen["line"].startswith("✗ "), seen
    assert words in seen["line"], seen
    if code == 2:
        assert evidence is None
        assert link_hidden is not None
        return
    line = seen["line"].removeprefix("✗ ")
    assert line == python_verdict(lie, letters)  # the same verdict, word for word
    kept = json.loads(evidence)
    assert len(kept) == 1
    assert download is not None
    for document in (kept[0], download):
        assert document["format"] == "twenty48-fair-evidence"
        assert document["verdict"] == line
        assert (document["game_id"], document["player"]) == (1, PLAYER)
        assert document["client_seed"] == CLIENT_SEED
        answered = [answer["request"] for answer in document["answers"]]
        api = [r for r in requests if r.startswith(("POST /api", "GET /api", "GET /.well"))]
        assert answered == api  # every answer the page received, in order
        assert document["answers"][0]["answer"]["token"].startswith("sha256:")
        assert "token-1" not in json.dumps(document)
