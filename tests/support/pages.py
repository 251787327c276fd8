"""The server's web pages in tests: fetched over HTTP and driven in headless Chromium."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from support.browser import BrowserPage
from support.fair_game import CLIENT_SEED, PLAYER
from support.hostile_server import HostileServer
from support.server_client import raw
from support.server_harness import ServerProcess
from twenty48_replay.fairplay.client import Client, MoveRefusedError, RemoteGame
from twenty48_replay.fairplay.signing import TrustedKey
from twenty48_replay.fairplay.witness import UnfairServerError

if TYPE_CHECKING:
    from playwright.sync_api import Page

KEYS: Final = {"U": "ArrowUp", "D": "ArrowDown", "L": "ArrowLeft", "R": "ArrowRight"}
#: Long enough for the 15 s deadline of the slow lie, and a loaded machine.
VERDICT_MS: Final = 60_000


def get(server: ServerProcess, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    status, answer_headers, body = raw(server.url, "GET", path, None, headers)
    return status, {name.lower(): value for name, value in answer_headers.items()}, body


def finished_game(server: ServerProcess, player: str, moves: int = 12) -> tuple[RemoteGame, Any]:
    """A fair game played through the Python client and finished; its signed record."""
    client = Client(server.url)
    game = RemoteGame(client, player)
    order = "LDRU"
    i = 0
    while game.state.moves < moves and not game.finished:
        for letter in order[i % 4] + order:
            before = game.state.moves
            try:
                game.play(letter)
            except Exception:
                continue
            if game.state.moves > before:
                break
        i += 1
    record = game.finish()
    client.close()
    return game, record


def wait_settled(page: Page, timeout_ms: float = 20_000) -> None:
    """Until the play page has no move waiting or on its way."""
    page.wait_for_function(
        "() => { const g = document.getElementById('game');"
        " return g.dataset.pending === '0' && g.dataset.state !== 'starting'"
        " && g.dataset.state !== 'ending'; }",
        timeout=timeout_ms,
    )


def page_state(page: Page) -> dict[str, Any]:
    data = page.eval_on_selector("#game", "g => ({...g.dataset})")
    cells = [int(v) for v in data["board"].split(",")] if data.get("board") else []
    return {
        "state": data["state"],
        "score": int(data["score"]),
        "moves": int(data["moves"]),
        "board": [cells[i : i + 4] for i in range(0, 16, 4)] if cells else [],
        "id": int(data["gameId"]) if data.get("gameId") else None,
    }


def start_game(page: Page, player: str, seed: str = "") -> dict[str, Any]:
    page.fill("#player", player)
    page.fill("#seed-input", seed)
    page.click("#new-game-button")
    page.wait_for_selector("#game[data-state=playing]")
    return page_state(page)


def python_verdict(lie: str, letters: str) -> str:
    """The Python client's line against a fresh server telling the same lie."""
    with HostileServer(lie) as server:
        client = Client(server.url)
        try:
            game = RemoteGame(client, PLAYER, CLIENT_SEED)
            for letter in letters:
                if game.finished:
                    break
                try:
                    game.play(letter)
                except MoveRefusedError:
                    break
            record = game.finish()
            game.check(record, TrustedKey.from_well_known(client.key()))
        except UnfairServerError as exc:
            return str(exc)
        finally:
            client.close()
    raise AssertionError(f"the Python client accepted the lie {lie}")


def settled(page: Page) -> None:
    page.wait_for_function(
        "() => { const g = document.getElementById('game');"
        " return g.dataset.pending === '0' && g.dataset.state !== 'starting'"
        " && g.dataset.state !== 'ending'; }",
        timeout=VERDICT_MS,
    )


def play_on_the_page(browser_page: BrowserPage, url: str, letters: str) -> dict[str, Any]:
    page = browser_page.page
    browser_page.open(url + "/")
    page.fill("#player", PLAYER)
    page.fill("#seed-input", CLIENT_SEED)
    page.click("#new-game-button")
    settled(page)
    for letter in letters:
        if page.get_attribute("#game", "data-state") != "playing":
            break
        page.keyboard.press(KEYS[letter])
        settled(page)
    if page.get_attribute("#game", "data-state") == "playing":
        page.click("#finish")
        page.click("#confirm-end-yes")  # "End game" asks first (issue 20 section 2)
    page.wait_for_selector("#game[data-fair]", state="attached", timeout=VERDICT_MS)
    return {
        "fair": page.get_attribute("#game", "data-fair"),
        "line": page.text_content("#fair-check") or "",
        "moves": int(page.get_attribute("#game", "data-moves") or 0),
        "state": page.get_attribute("#game", "data-state"),
    }
