"""A small n-tuple network trained in the test, and the CLI run as if it were shipped.

The real weights (tens of MB) are never committed by a test: a network of three
3-tuples trains in a fraction of a second and exports to a few kB.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.common import run_cli
from twenty48_replay.core import native

#: Three 3-tuples: 12,288 weights, a few kB exported.
SMALL = ("--tuples", "0-1-2 4-5-6 0-1-4", "--round", "100", "--window", "200")

#: Runs twenty48's main() with the package's shipped weights path pointed elsewhere
#: (argv[1]): the package-data location, as an installed package would have it.
_SHIPPED = (
    "import sys\n"
    "from pathlib import Path\n"
    "import twenty48_replay.solver.network as n\n"
    "n.DEFAULT_FILE = Path(sys.argv.pop(1))\n"
    "from twenty48_cli.app import main\n"
    "sys.argv[0] = 'twenty48'\n"
    "main()\n"
)


def native_solver() -> bool:
    """Whether the C solver (which the network needs) runs here."""
    return native.ENGINE != "python" and native.module("_solver") is not None


def skip_without_native() -> None:
    """Skip the calling test when the C solver is not built (fail under
    TWENTY48_REQUIRE_NATIVE)."""
    if native_solver():
        return
    if os.environ.get("TWENTY48_REQUIRE_NATIVE") and native.ENGINE != "python":
        pytest.fail("the native solver is not built, but TWENTY48_REQUIRE_NATIVE is set")
    pytest.skip("the native solver is not built or not chosen")


def train_small(folder: Path, games: int = 400) -> Path:
    """Train a small network for ``games`` games and export it as shipped weights."""
    checkpoint = folder / "small-checkpoint.t48w"
    weights = folder / "small.t48w"
    trained = run_cli("solver", "train", str(checkpoint), "--games", str(games), *SMALL)
    assert trained.returncode == 0, trained.stderr
    exported = run_cli("solver", "export", str(checkpoint), str(weights))
    assert exported.returncode == 0, exported.stderr
    return weights


def run_cli_shipped(
    shipped: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The CLI as a subprocess, with ``shipped`` at the place of the package's weights."""
    environ = {**os.environ, **(env or {})}
    if env is None or "TWENTY48_WEIGHTS" not in env:
        environ.pop("TWENTY48_WEIGHTS", None)
    return subprocess.run(
        [sys.executable, "-c", _SHIPPED, str(shipped), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environ,
        check=False,
    )
