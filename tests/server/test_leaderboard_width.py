"""The leaderboard fits a phone's width in both languages (issue 20, the last walkthrough).

At 420 px the Danish table scrolled sideways inside its frame and cut its last
heading ("GENAFSPILN..."): the headings never wrapped.  Measured in headless
Chromium on a real server's page with real finished games, a long player name
among them: the table is no wider than its frame, and every heading is whole.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.browser import BrowserPage
from support.pages import finished_game
from support.server_harness import ServerProcess


@pytest.fixture(scope="module")
def board_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("board-width")
    args = ("--no-analysis", "--rate-limits", "off")
    with ServerProcess(str(folder / "web.sqlite3"), folder, *args) as running:
        finished_game(running, "Ulla", moves=40)
        finished_game(running, "Bartholomew-Christopher", moves=12)
        yield running


#: How the table sits in its frame, and the headings cut or hidden.
MEASURE = """() => {
  const wrap = document.querySelector('.table-wrap');
  const table = document.getElementById('board-table');
  const cut = [...table.querySelectorAll('thead th')]
    .filter((th) => getComputedStyle(th).display !== 'none')
    .filter((th) => th.scrollWidth > th.clientWidth + 1
      || th.getBoundingClientRect().right > wrap.getBoundingClientRect().right + 1)
    .map((th) => th.textContent);
  return {table: table.scrollWidth, frame: wrap.clientWidth,
          page: document.documentElement.scrollWidth, cut};
}"""


@pytest.mark.parametrize("language", ["en", "da"])
@pytest.mark.parametrize("width", [420, 360])
def test_the_leaderboard_fits_a_phone(
    board_server: ServerProcess,
    new_browser_page: Callable[..., BrowserPage],
    language: str,
    width: int,
    tmp_path: Path,
) -> None:
    browser_page = new_browser_page(viewport={"width": width, "height": 800})
    browser_page.open(f"{board_server.url}/leaderboard?lang={language}")
    browser_page.wait_for("document.querySelectorAll('#rows tr').length === 2")
    time.sleep(0.2)
    seen = browser_page.page.evaluate(MEASURE)
    assert seen["cut"] == [], seen
    assert seen["table"] <= seen["frame"], seen
    assert seen["page"] <= width, seen
    assert browser_page.errors == []
    browser_page.screenshot(tmp_path / f"leaderboard-{language}-{width}.png")
