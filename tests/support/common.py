"""What many tests share: the project's paths, JSON files, and the real CLI as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schema"
VECTORS = SCHEMA / "vectors"
EXAMPLES = ROOT / "examples"

TESTS = ROOT / "tests"
DATA = TESTS / "data"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run_cli(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``twenty48`` console script as a real subprocess."""
    exe = Path(sys.executable).with_name("twenty48")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "twenty48_cli"]
    return subprocess.run(
        [*command, *args],
        input=stdin.decode("utf-8", "surrogateescape") if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )


def run_race(
    db: str, game_ids: list[int], moves: str, drivers: int, folder: Path, timeout: float = 300
) -> list[dict[str, Any]]:
    """Race ``drivers`` processes of ``tests/support/race_driver.py`` over the same games.

    Each driver loads the games, then creates ``ready-<pid>`` in ``folder``;
    once all are ready the ``go`` file releases them together, so every one
    of them starts from the same soon-stale states.  Waiting for the files,
    not for a fixed time, keeps the race real on a slow or loaded machine.
    Returns each driver's JSON report (appended, conflicts, message).
    """
    go = folder / "go"
    command = [
        sys.executable,
        str(TESTS / "support" / "race_driver.py"),
        db,
        ",".join(map(str, game_ids)),
        moves,
        str(go),
    ]
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(drivers)
    ]
    deadline = time.monotonic() + timeout
    while (ready := len(list(folder.glob("ready-*")))) < drivers:
        for process in processes:
            if process.poll() is not None:
                raise AssertionError(f"a race driver stopped early: {process.communicate()[1]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"only {ready} of {drivers} race drivers loaded their games")
        time.sleep(0.01)
    go.touch()
    reports = []
    for process in processes:
        out, err = process.communicate(timeout=timeout)
        assert process.returncode == 0, err
        reports.append(json.loads(out))
    return reports


def one_line_error(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("twenty48: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]
