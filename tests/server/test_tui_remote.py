"""``twenty48 play --server``'s UI, driven headless against a real server subprocess."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.server_client import server_log_letters
from support.server_harness import ServerProcess
from textual.widgets import Static

from twenty48_cli.remote_play import keep_record
from twenty48_cli.tui.remote_app import RemoteGameScreen, RemotePlayApp, RemoteSession
from twenty48_cli.tui.widgets import BoardView
from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.store import Store


@pytest.mark.slow
def test_play_ui_on_a_server(tmp_path: Path) -> None:
    db = str(tmp_path / "server.sqlite3")
    local = str(tmp_path / "local.sqlite3")
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        client = Client(server.url)
        game = RemoteGame(client, "ivy")
        session = RemoteSession(game)
        with Store(local) as store:
            app = RemotePlayApp(store, session)
            shown: list[list[int]] = []
            statuses: list[str] = []

            async def run() -> None:
                async with app.run_test(size=(80, 24)) as pilot:
                    await pilot.pause()
                    for key in ["left", "down", "right", "up"] * 5:
                        await pilot.press(key)
                        await pilot.pause()
                    shown.append(app.game_screen.query_one(BoardView).values())
                    await pilot.press("t")
                    await pilot.pause()
                    statuses.append(str(app.game_screen.query_one("#status", Static).content))
                    await pilot.press("q")

            asyncio.run(run())
        assert game.state.moves > 0
        # The board on screen is the server's, and the server's log is what was played.
        assert shown[0] == [v for row in game.state.board.to_rows() for v in row]
        assert server_log_letters(db, game.id) == game.letters
        assert "no hints" in statuses[0]
        record = game.finish()
        with Store(local) as store:
            local_id = keep_record(store, game, record)
        client.close()
    with Store(local) as store:
        exported = store.game_as_record(local_id).to_dict()
    assert exported["signature"] == record["signature"]
    assert exported["fair"] == record["fair"]


@pytest.mark.slow
def test_fair_play_screen_commitment_help_and_null_moves(tmp_path: Path) -> None:
    """The whole commitment shows before the first move, ? explains fair play, and a key
    that changes nothing is not sent to the server (no 422 in its log, nothing played)."""
    from textual.widgets import Static as StaticWidget

    from twenty48_cli.tui.screens import HelpScreen

    db = str(tmp_path / "server.sqlite3")
    keys = {"U": "up", "D": "down", "L": "left", "R": "right"}
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        client = Client(server.url + "/")
        game = RemoteGame(client, "una")
        with Store(str(tmp_path / "local.sqlite3")) as store:
            app = RemotePlayApp(store, RemoteSession(game))
            seen: dict[str, object] = {}

            async def run() -> None:
                async with app.run_test(size=(80, 24)) as pilot:
                    await pilot.pause()
                    info = app.game_screen.query_one("#info", StaticWidget)
                    seen["info"] = str(info.content)
                    seen["info_width"] = info.size.width
                    await pilot.press("question_mark")
                    await pilot.pause()
                    seen["help"] = isinstance(app.screen, HelpScreen) and str(
                        app.screen.query_one("#help-text", StaticWidget).content
                    )
                    await pilot.press("escape")
                    await pilot.pause()
                    for _ in range(60):  # play until some direction changes nothing
                        board = game.state.board
                        valid = {d.letter for d in board.valid_directions()}
                        stuck = [d for d in "UDLR" if d not in valid]
                        if stuck:
                            before = (game.state.moves, game.letters)
                            await pilot.press(keys[stuck[0]])
                            await pilot.pause()
                            seen["null"] = (before, (game.state.moves, game.letters))
                            break
                        await pilot.press("left" if game.state.moves % 2 else "up")
                        await pilot.pause()
                    await pilot.press("q")

            asyncio.run(run())
        client.close()
        log = server.log_text()
    assert f"commitment {game.commitment}" in str(seen["info"])
    assert len(game.commitment) == 64
    assert f"on {server.url} " in str(seen["info"])
    assert isinstance(seen["info_width"], int)
    assert seen["info_width"] >= len("commitment ") + 64  # on one line at 80 columns
    help_text = str(seen["help"])
    assert "finish" in help_text
    assert "commitment" in help_text
    assert "No hints" in help_text
    assert "null" in seen, "no direction was ever refused in 60 moves"
    null = seen["null"]
    assert isinstance(null, tuple)
    assert null[0] == null[1]
    assert '/moves HTTP/1.1" 422' not in log
    assert server_log_letters(db, game.id) == game.letters


@pytest.mark.slow
def test_a_move_waiting_for_a_server_that_is_down_says_so(tmp_path: Path) -> None:
    """The server stops between two moves: the status line says the move waits and is being
    sent again (the screen does not freeze without a word); once the server is back, the
    move is played, the line clears, and the server's log has every move."""
    db = str(tmp_path / "server.sqlite3")
    server = ServerProcess(db, tmp_path, "--no-analysis").start()
    try:
        client = Client(server.url, retries=60, deadline=300)
        game = RemoteGame(client, "wes")
        with Store(str(tmp_path / "local.sqlite3")) as store:
            app = RemotePlayApp(store, RemoteSession(game))
            screen = app.game_screen
            assert isinstance(screen, RemoteGameScreen)
            seen: dict[str, object] = {}

            def status() -> str:
                return str(app.game_screen.query_one("#status", Static).content)

            async def until(condition: object, what: str) -> None:
                for _ in range(3000):  # a bound, not a timing: each pause is a few ms at least
                    if callable(condition) and condition():
                        return
                    await asyncio.sleep(0.05)
                raise AssertionError(f"never: {what}; status {status()!r}")

            async def run() -> None:
                async with app.run_test(size=(80, 24)) as pilot:
                    await pilot.pause()
                    for key in ("left", "down", "right", "up"):
                        if game.state.moves:
                            break
                        await pilot.press(key)
                        await pilot.pause()
                    assert game.state.moves == 1
                    server.stop()
                    board = game.state.board
                    key = next(
                        name
                        for letter, name in (("L", "left"), ("D", "down"), ("R", "right"))
                        if letter in {d.letter for d in board.valid_directions()}
                    )
                    await pilot.press(key)
                    await until(lambda: "waiting for the server" in status(), "waiting shown")
                    seen["waiting"] = status()
                    await pilot.press("up")  # waits with the move: not sent meanwhile
                    assert game.state.moves == 1
                    server.start()
                    await until(
                        lambda: game.state.moves == 2 and not screen.waiting, "move 2 played"
                    )
                    await pilot.pause()
                    seen["after"] = status()
                    await pilot.press("q")
                    await pilot.pause()
                    await pilot.press("y")

            asyncio.run(run())
        assert seen["waiting"] == "waiting for the server… retrying"
        assert "waiting" not in str(seen["after"])
        assert client.retried > 0
        assert server_log_letters(db, game.id) == game.letters
        client.close()
    finally:
        server.stop()
