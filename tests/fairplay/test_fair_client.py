"""The fair client trusts nothing it is shown (issue 19 section 1, acceptance 1).

Against :class:`hostile_server.HostileServer` (real HTTP on loopback), for
every lie: ``twenty48 play --server --moves`` as a real subprocess, and the
TUI (``play --server``'s own code path, the app driven by Textual's
``run_test``), stop at the first wrong answer or at the final check, with
one line naming the rule and the move, exit 1 with the evidence kept in the
local store (``twenty48 evidence``), or exit 2 for an unusable answer.
The browser play page meets the same server in test_fair_client_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Final

import pytest
from support.common import one_line_error, run_cli
from support.fair_game import CLIENT_SEED, EXPECTED, MOVES, PLAYER
from support.hostile import raw_controls
from support.hostile_server import ESCAPES, LIES, HostileServer

from twenty48_cli.remote_play import remote_ui_play
from twenty48_cli.tui.remote_app import RemotePlayApp, RemoteSession
from twenty48_replay.core.errors import Twenty48Error
from twenty48_replay.core.reasons import Reason
from twenty48_replay.fairplay.client import Client
from twenty48_replay.store import Store, list_evidence, load_evidence

assert set(EXPECTED) == set(LIES)


def kept_reports(db: Path) -> list[tuple[str, Any]]:
    """Every evidence report in the local store: (verdict, document)."""
    with Store(str(db)) as store:
        found = []
        for info in reversed(list_evidence(store, 100)):
            loaded = load_evidence(store, info.id)
            assert loaded is not None
            found.append((info.verdict, loaded[1]))
        return found


def check_evidence(db: Path, line: str, server: HostileServer) -> None:
    """The one report kept holds the verdict and every answer the server sent, in order."""
    reports = kept_reports(db)
    assert len(reports) == 1
    verdict, document = reports[0]
    assert line.startswith("twenty48: error: " + verdict + "; evidence kept in the local store")
    assert document["verdict"] == verdict
    # The verdict as a code (SPEC 8.8) says the same words; Danish readers get it translated.
    assert document["verdict_code"]["code"] == "witness.broken"
    assert str(Reason.from_json(document["verdict_code"])) == verdict
    assert (document["server"], document["game_id"], document["player"]) == (server.url, 1, PLAYER)
    assert document["client_seed"] == CLIENT_SEED
    requests = [answer["request"] for answer in document["answers"]]
    sent = [(method + " " + path) for method, path, _ in server.requests if path != "/"]
    assert requests == sent  # every answer, in the order it came
    created = document["answers"][0]["answer"]
    assert created["token"].startswith("sha256:")  # never the token itself
    assert "token-1" not in json.dumps(document)


@pytest.mark.parametrize("lie", [None, *LIES])
def test_play_server_moves_stops_at_the_first_lie(lie: str | None, tmp_path: Path) -> None:
    db = tmp_path / "local.sqlite3"
    with HostileServer(lie) as server:
        letters = server.honest_letters(CLIENT_SEED, MOVES)
        assert len(letters) == MOVES
        started = time.monotonic()
        result = run_cli(
            "play", "--server", server.url, "--moves", letters, "--db", str(db),
            "--client-seed", CLIENT_SEED, "--player", PLAYER, timeout=90,
        )  # fmt: skip
        took = time.monotonic() - started
    assert raw_controls(result.stdout + result.stderr) == []  # no escape sequence got through
    if lie is None:
        assert result.returncode == 0, result.stderr
        assert "signature checked" in result.stderr
        with Store(str(db)) as store:
            assert store.game_as_record(1).moves == letters
        return
    code, words = EXPECTED[lie]
    words = words.format(third=letters[2])
    assert result.returncode == code, result.stdout + result.stderr
    line = one_line_error(result.stderr)
    assert words in line, line
    if code == 1:
        check_evidence(db, line, server)
        last = server.requests[-1]
        if lie in ("false-over", "wrong-n", "spawn-8", "refuse-valid", "two-spawns"):
            assert last[2] == {"move": letters[2], "n": 3}  # stopped at once: nothing after move 3
    elif db.exists():
        assert kept_reports(db) == []
    if lie == "slow":
        assert took < 45  # the 15 s deadline, not one byte every 5 s
    if lie == "commitment-escape":
        assert ESCAPES[:4] not in result.stderr
        assert server.requests[-1][1] == "/api/games"  # the game was not even started


def test_evidence_command_lists_and_prints_a_report(tmp_path: Path) -> None:
    db = tmp_path / "local.sqlite3"
    with HostileServer("false-won") as server:
        letters = server.honest_letters(CLIENT_SEED, MOVES)
        played = run_cli(
            "play", "--server", server.url, "--moves", letters, "--db", str(db),
            "--client-seed", CLIENT_SEED, "--player", PLAYER,
        )  # fmt: skip
    assert played.returncode == 1
    listed = run_cli("evidence", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("1  ")
    assert "it says the game is won" in listed.stdout
    # Issue 20 s.3: in Danish the verdict is read from its stored code, not the English words.
    danish = run_cli("--lang", "da", "evidence", "--db", str(db))
    assert danish.returncode == 0, danish.stderr
    assert "bryder reglerne: det siger, at spillet er vundet" in danish.stdout, danish.stdout
    assert "breaks the rules" not in danish.stdout
    assert " spil " in danish.stdout
    shown = run_cli("evidence", "1", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    document = json.loads(shown.stdout)
    assert document["format"] == "twenty48-fair-evidence"
    assert len(document["answers"]) == 5  # new game, start, moves 1 to 3
    assert document["answers"][-1]["answer"]["won"] is True
    missing = run_cli("evidence", "2", "--db", str(db))
    assert missing.returncode == 1
    assert missing.stderr.strip() == "twenty48: error: no evidence report 2"


# ------------------------------------------------------------------ the TUI

KEYS: Final = {"U": "up", "D": "down", "L": "left", "R": "right"}


def play_in_the_tui(
    server: HostileServer, db: Path, letters: str, *, deadline: float = 15.0
) -> dict[str, Any]:
    """``play --server``'s UI path, the app driven headless: press ``letters``, then q."""
    seen: dict[str, Any] = {"pressed": 0}

    def drive(store: Store, session: RemoteSession) -> None:
        app = RemotePlayApp(store, session)

        async def run() -> None:
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                seen["info"] = str(app.game_screen.query_one("#info").render())
                for letter in letters:
                    if session.stopped is not None:
                        break
                    await pilot.press(KEYS[letter])
                    await pilot.pause()
                    seen["pressed"] += 1
                if session.stopped is None:
                    await pilot.press("q")
                await pilot.pause()

        asyncio.run(run())
        seen["return_code"] = app.return_code
        seen["moves"] = session.game.state.moves

    client = Client(server.url, deadline=deadline)
    try:
        remote_ui_play(
            server.url, player=PLAYER, db=str(db), client_seed=CLIENT_SEED, client=client, run=drive
        )
    except Twenty48Error as exc:
        seen["error"] = exc
    return seen


@pytest.mark.parametrize("lie", [None, *LIES])
def test_the_tui_stops_at_the_first_lie(lie: str | None, tmp_path: Path) -> None:
    db = tmp_path / "local.sqlite3"
    with HostileServer(lie, drip=1.0) as server:
        letters = server.honest_letters(CLIENT_SEED, MOVES)
        seen = play_in_the_tui(server, db, letters, deadline=4.0)
    if lie is None:
        assert "error" not in seen, seen
        assert seen["moves"] == MOVES
        assert seen["return_code"] in (None, 0)
        return
    code, words = EXPECTED[lie]
    words = words.format(third=letters[2])
    error = seen.get("error")
    assert isinstance(error, Twenty48Error), seen
    assert error.exit_code == code
    line = "twenty48: error: " + error.translated()
    assert words in line, line
    if lie in ("false-over", "false-won", "wrong-score", "wrong-n", "spawn-occupied",
               "two-spawns", "spawn-8", "refuse-valid", "deep-nesting", "slow"):  # fmt: skip
        # Stopped during play: the UI closed at once with the same exit code.
        assert seen["return_code"] == code
        assert seen["pressed"] == 3
        assert seen["moves"] == 2
    if code == 1:
        check_evidence(db, line, server)
    if "info" in seen:
        assert raw_controls(seen["info"]) == []


def test_evidence_text_from_the_server_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    """The verdict, the server's URL and every answer are the server's text: escaped in the
    listing, and JSON (with those characters as \\uXXXX) in a report."""
    from support.hostile import HOSTILE

    from twenty48_replay.store import save_evidence

    db = tmp_path / "local.sqlite3"
    document = {
        "server": "http://x" + HOSTILE,
        "game_id": 1,
        "answers": [{"request": "GET /api/games/1", "answer": {"error": HOSTILE + "\u2028"}}],
    }
    with Store(str(db)) as store:
        save_evidence(store, 0, "verdict " + HOSTILE, document)
    listed = run_cli("evidence", "--db", str(db))
    shown = run_cli("evidence", "1", "--db", str(db))
    for result in (listed, shown):
        assert result.returncode == 0, result.stderr
        assert raw_controls(result.stdout + result.stderr) == []
        assert "\u2028" not in result.stdout
    assert json.loads(shown.stdout) == document


def test_evidence_lists_a_verdict_without_a_readable_code_in_its_stored_words(
    tmp_path: Path,
) -> None:
    """A document without ``verdict_code``, or with one that names no known code, still
    lists: its stored English verdict, in either language."""
    from twenty48_replay.store import save_evidence

    db = tmp_path / "local.sqlite3"
    with Store(str(db)) as store:
        save_evidence(store, 0, "old words", {"server": "http://a", "game_id": 1})
        save_evidence(
            store, 0, "odd words", {"server": "http://b", "game_id": 2, "verdict_code": {"x": 1}}
        )
        save_evidence(
            store,
            0,
            "its score is 5",
            {
                "server": "http://c",
                "game_id": 3,
                "verdict_code": {"code": "no.such.code", "params": {}},
            },
        )
    for language in ("en", "da"):
        listed = run_cli("--lang", language, "evidence", "--db", str(db))
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        assert [line.rsplit("  ", 1)[-1] for line in lines] == [
            "its score is 5",
            "odd words",
            "old words",
        ]
