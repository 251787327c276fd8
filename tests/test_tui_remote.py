"""``twenty48 play --server``'s UI, driven headless against a real server subprocess."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from server_harness import ServerProcess
from test_server import server_log_letters
from textual.widgets import Static

from twenty48_replay.client import Client, RemoteGame
from twenty48_replay.store import Store

if TYPE_CHECKING:
    from cli.remote_play import keep_record
    from cli.tui.remote_app import RemotePlayApp, RemoteSession
    from cli.tui.widgets import BoardView
else:
    from twenty48_cli.remote_play import keep_record
    from twenty48_cli.tui.remote_app import RemotePlayApp, RemoteSession
    from twenty48_cli.tui.widgets import BoardView


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
        exported = store.export_record(local_id).to_dict()
    assert exported["signature"] == record["signature"]
    assert exported["fair"] == record["fair"]
