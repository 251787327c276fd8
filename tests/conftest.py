"""Shared fixtures: paths, hypothesis profiles, and a runner for the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schema"
VECTORS = SCHEMA / "vectors"
EXAMPLES = ROOT / "examples"

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=300
)
settings.register_profile("ci", parent=settings.get_profile("default"), max_examples=1000)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default")
)


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


@pytest.fixture
def cli() -> Any:
    return run_cli


def wait_for_ready_drivers(folder: Path, count: int, timeout: float = 120) -> None:
    """Wait until ``count`` race drivers have loaded their games.

    Each driver creates ``ready-<pid>`` in ``folder`` once its (soon stale)
    states are loaded; waiting for the files, not for a fixed time, keeps
    the race tests meaningful on a slow or loaded machine.
    """
    deadline = time.monotonic() + timeout
    while (ready := len(list(folder.glob("ready-*")))) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"only {ready} of {count} race drivers loaded their games")
        time.sleep(0.01)
