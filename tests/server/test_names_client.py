"""``play --server`` with a registered name: register once, reuse the kept secret (0600).

A real server and the real command line in subprocesses, each "machine"
with its own user data folder (``XDG_DATA_HOME``).
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from support.common import run_cli
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client

NULL_MOVE = "it does not change the board"


def play(url: str, data: Path, local_db: Path, *args: str) -> tuple[int, str]:
    result = run_cli(
        "play",
        "--server",
        url,
        "--moves",
        "LDRU",
        "--db",
        str(local_db),
        *args,
        env={"XDG_DATA_HOME": str(data)},
    )
    out = result.stdout + result.stderr
    # The server's seed is random, so a scripted letter may not change the board: it is
    # refused (exit 1) after the game was finished and signed as it stands, which is a game
    # played as far as these tests are concerned; any other refusal still fails them.
    if result.returncode == 1 and NULL_MOVE in out and "finished and signed" in out:
        return 0, out
    return result.returncode, out


@pytest.mark.slow
def test_register_then_reuse_the_kept_secret(tmp_path: Path) -> None:
    with ServerProcess(str(tmp_path / "server.sqlite3"), tmp_path, "--no-analysis") as server:
        mine, theirs = tmp_path / "mine", tmp_path / "theirs"
        code, out = play(server.url, mine, tmp_path / "a.sqlite3", "--player", "zoë", "--register")
        assert code == 0, out
        assert "registered zoë" in out
        files = list((mine / "twenty48-replay" / "player-secrets").iterdir())
        assert len(files) == 1
        assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
        assert stat.S_IMODE(files[0].parent.stat().st_mode) == 0o700
        secret = files[0].read_text().strip()
        assert secret not in out
        assert "zoë" not in files[0].name

        # Played again from the same machine: the kept secret is used, no new registration.
        code, out = play(server.url, mine, tmp_path / "a.sqlite3", "--player", "zoë")
        assert code == 0, out
        assert "registered" not in out
        assert secret not in out
        client = Client(server.url)
        board = client.leaderboard()["games"]
        assert [(row["player"], row["registered"]) for row in board] == [("zoë", True)]
        client.close()

        # Anyone else: neither plays the name nor registers it again.
        code, out = play(server.url, theirs, tmp_path / "b.sqlite3", "--player", "zoë")
        assert code == 1, out
        assert "is registered on" in out
        code, out = play(
            server.url, theirs, tmp_path / "b.sqlite3", "--player", "ZOË", "--register"
        )
        assert code == 1, out
        assert "registered on" in out
        assert "already" in out

        # An unregistered name plays as before, and is offered registration.
        code, out = play(server.url, theirs, tmp_path / "b.sqlite3", "--player", "ulla")
        assert code == 0, out
        # ... in a note that reads as one, not as an error.
        assert "played as ulla, a name anyone may use on" in out
        assert "to make it yours there, play with --register" in out
        assert "not yours" not in out

        # A kept secret that others can read is not used.
        files[0].chmod(0o644)
        code, out = play(server.url, mine, tmp_path / "a.sqlite3", "--player", "zoë")
        assert code == 1, out
        assert "readable by others" in out
        assert secret not in out
        assert secret not in server.log_text()

    assert run_cli("play", "--register", "--moves", "L").returncode == 2
