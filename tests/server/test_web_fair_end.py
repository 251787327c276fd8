"""The play page asks before it ends and signs a fair game, and says after what was signed.

A real ``twenty48 serve`` and headless Chromium (tests/support/browser.py): "End game",
and "New game" while a game is on, show "End and sign game N now? Its score
counts as it stands."; "Keep playing" changes nothing on the server; "End and
sign" finishes the game, and the status names the game, score and moves
that were signed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.browser import BrowserPage
from support.pages import page_state, start_game, wait_settled
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("web-end")
    with ServerProcess(str(folder / "web.sqlite3"), folder, "--no-analysis") as running:
        yield running


def play_some(page: object, count: int = 6) -> None:
    for key in ["ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp"] * (count // 4 + 1):
        page.keyboard.press(key)  # type: ignore[attr-defined]
    wait_settled(page)  # type: ignore[arg-type]


def test_end_game_asks_first_then_says_what_was_signed(
    web_server: ServerProcess, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    browser_page.open(web_server.url + "/")
    fair_id = start_game(page, "asks first")["id"]
    play_some(page)
    client = Client(web_server.url)
    question = f"End and sign game {fair_id} now? Its score counts as it stands."
    assert page.is_hidden("#confirm-end")

    page.click("#finish")
    assert page.is_visible("#confirm-end")
    assert page.text_content("#confirm-end-text") == question
    assert page.get_attribute("#game", "data-state") == "playing"
    page.click("#confirm-end-no")  # keep playing: nothing is sent, nothing ends
    assert page.is_hidden("#confirm-end")
    assert page.get_attribute("#game", "data-state") == "playing"
    assert client.game(fair_id)["finished"] is False
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowLeft")
    wait_settled(page)  # the keys play again once the question is gone

    page.click("#finish")
    page.click("#confirm-end-yes")
    page.wait_for_selector("#game[data-state=over]")
    shown = page_state(page)
    record = client.record(fair_id)
    assert len(record["moves"]) == shown["moves"]
    status = page.text_content("#status") or ""
    moves = "1 move" if shown["moves"] == 1 else f"{shown['moves']} moves"
    assert f"Signed game {fair_id}: {shown['score']} points in {moves}" in status, status
    assert page.is_hidden("#confirm-end")
    assert browser_page.errors == []
    client.close()


def test_new_game_during_a_game_asks_before_signing_it(
    web_server: ServerProcess, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    browser_page.open(web_server.url + "/")
    first = start_game(page, "twice")["id"]
    play_some(page)
    client = Client(web_server.url)

    page.click("#new-game-button")
    assert page.text_content("#confirm-end-text") == (
        f"End and sign game {first} now? Its score counts as it stands."
    )
    page.click("#confirm-end-no")
    assert page_state(page)["id"] == first
    assert page.get_attribute("#game", "data-state") == "playing"
    assert client.game(first)["finished"] is False

    page.click("#new-game-button")
    page.click("#confirm-end-yes")
    page.wait_for_function(
        f"() => document.getElementById('game').dataset.gameId !== '{first}'"
        " && document.getElementById('game').dataset.state === 'playing'"
    )
    assert client.game(first)["finished"] is True
    assert page_state(page)["id"] != first
    assert browser_page.errors == []
    client.close()
