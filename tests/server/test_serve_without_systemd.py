"""The operator's guide's way to run ``serve`` without systemd (section 5), as written.

The block is a script for a container or a machine without systemd: a state
folder only its user reads, ``umask 077``, the open-files limit, ``exec`` of
the unit's own command.  Here it runs in ``bash`` with the machine's paths
moved into the test's folder and a free port: the server answers, its files
are private, and SIGINT (the stop signal the guide gives) ends it with exit 0.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from support.common import ROOT
from support.server_harness import free_port
from support.shell_blocks import shell_commands

TWENTY48 = Path(sys.executable).with_name("twenty48")


def without_systemd_block() -> list[str]:
    text = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    commands = [c.text for c in shell_commands(text)]
    first = commands.index("mkdir -p -m 0700 /var/lib/twenty48")
    block = commands[first : first + 4]
    assert block[-1].startswith("exec /opt/twenty48/bin/twenty48 serve "), block
    return block


@pytest.mark.slow
def test_the_guides_script_runs_serve_and_stops_on_sigint(tmp_path: Path) -> None:
    state = tmp_path / "state"
    port = free_port()
    script = "\n".join(without_systemd_block())
    script = script.replace("/opt/twenty48/bin/twenty48", str(TWENTY48))
    script = script.replace("/var/lib/twenty48", str(state))
    script = script.replace("--port 8048", f"--port {port}")
    assert str(port) in script
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["bash", "-e", "-c", script + " --no-analysis"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "HOME": str(tmp_path)},
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        assert stat.S_IMODE(state.stat().st_mode) == 0o700
        for name in ("games.sqlite3", "server-key.pem"):
            assert stat.S_IMODE((state / name).stat().st_mode) == 0o600, name
        assert "twenty48 serve: database" in log.read_text()
        process.send_signal(signal.SIGINT)  # exec: bash's process is serve itself
        assert process.wait(timeout=60) == 0, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
