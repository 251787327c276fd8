"""The operator's guide's backup and restore blocks (docs/operating.md section 7), as written.

The blocks are for a server (root, systemd: ``<!-- not run -->`` for
tests/project/test_docs.py); here each runs as one ``bash -e`` script with the
machine's paths moved into the test's folder (``/var/lib/twenty48``, the key
backup folder, ``/opt/twenty48/bin/twenty48``), ``sudo -u twenty48`` and
``install``'s owner dropped, and ``systemctl stop``/``start`` done by the test
on a real ``serve`` started as the shipped unit starts it (``--key
server-key.pem`` beside the database).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.common import ROOT, run_cli
from support.server_client import play_some
from support.server_harness import ServerProcess
from support.shell_blocks import shell_commands

from twenty48_replay.fairplay.client import Client, RemoteGame

GUIDE = ROOT / "docs" / "operating.md"
TWENTY48 = Path(sys.executable).with_name("twenty48")


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def guide_block(first_command: str, then: str = "") -> list[str]:
    """The commands of the guide's sh block whose first two commands start so.

    ``then`` tells apart blocks that start alike (the restore and the rolling restart
    both start by stopping the server)."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks: dict[int, list[str]] = {}
    lines = text.splitlines()
    for command in shell_commands(text):
        start = max(i for i in range(command.line) if lines[i - 1].startswith("```"))
        blocks.setdefault(start, []).append(command.text)
    found = [
        block
        for block in blocks.values()
        if block[0].startswith(first_command) and (len(block) > 1 and block[1].startswith(then))
    ]
    assert len(found) == 1, [block[0] for block in blocks.values()]
    return found[0]


def adapted(commands: list[str], state: Path, keys: Path) -> str:
    """The commands as a script for this machine (see the module docstring)."""
    script = "\n".join(commands)
    script = script.replace("sudo -u twenty48 ", "").replace("-o twenty48 -g twenty48 ", "")
    script = script.replace("-o root -g root ", "")
    script = script.replace("/opt/twenty48/bin/twenty48", str(TWENTY48))
    script = script.replace("/var/lib/twenty48", str(state))
    return script.replace("/root/twenty48-key-backup", str(keys))


def run_script(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-u", "-o", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_the_guides_backup_then_restore_with_the_server_stopped(tmp_path: Path) -> None:
    state, keys = tmp_path / "state", tmp_path / "key-backup"
    state.mkdir(mode=0o700)
    live = state / "games.sqlite3"
    server_args = ("--no-analysis", "--key", str(state / "server-key.pem"))
    backup = guide_block("sudo -u twenty48 mkdir -p -m 0700 /var/lib/twenty48/backups")
    restore = guide_block("systemctl stop twenty48", then="COPY=")
    assert restore[-1] == "systemctl start twenty48"
    assert not any("systemctl" in command for command in restore[1:-1])

    server = ServerProcess(str(live), tmp_path, *server_args).start()
    try:
        kept = RemoteGame(Client(server.url), "ann")
        play_some(kept, 6)
        record = kept.finish()
        # Twice, as after a rotation on the same day: each backup gets a name of its own.
        for _time in range(2):
            second = time.time() // 1
            backed = run_script(adapted(backup, state, keys))
            assert backed.returncode == 0, backed.stdout + backed.stderr
            said = backed.stdout + backed.stderr
            assert f"key file {state / 'server-key.pem'} (key {record['fair']['key_id']}" in said
            assert "games.sqlite3.server-key.pem" not in said
            while time.time() // 1 == second:  # the next backup in another second
                time.sleep(0.05)
        assert (keys / "server-key.pem").read_bytes() == (state / "server-key.pem").read_bytes()
        lost = RemoteGame(Client(server.url), "bob")  # acknowledged after the backup
        play_some(lost, 3)
        # The copy cannot be put in place while the server runs (the guide's first step).
        copies = sorted((state / "backups").iterdir())
        assert len(copies) == 2, copies
        copy = copies[-1]
        early = run_cli("backup", "--db", str(copy), "-o", str(live), "--force")
        assert early.returncode == 2, early.stderr
    finally:
        server.stop()  # systemctl stop twenty48
    live.write_bytes(b"a disk error later" * 100)  # the disaster the backup is for

    script = adapted(restore[1:-1], state, keys)
    script = re.sub(r"^COPY=.*$", f"COPY={copy}", script, flags=re.M)
    restored = run_script(script)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    (aside,) = state.glob("replaced-*")
    assert (aside / "games.sqlite3").read_bytes().startswith(b"a disk error later")

    with ServerProcess(str(live), tmp_path, *server_args) as again:  # systemctl start
        assert record["fair"]["key_id"] in again.log_text()
        path = tmp_path / "record.json"
        path.write_text(json.dumps(record))
        verified = run_cli("verify", "--json", "--trust", again.url, str(path))
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert json.loads(verified.stdout)["fair"] == "fair"
        client = Client(again.url)
        assert client.game(kept.id)["moves"] == kept.state.moves
        fresh = RemoteGame(client, "cy")
        play_some(fresh, 3)
        assert fresh.finish()["fair"]["key_id"] == record["fair"]["key_id"]
