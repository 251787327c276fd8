"""``twenty48 solver train / export / weights`` (issue 34), as a user runs them.

Small networks (``--tuples``) so that each training takes a second. Skips
when the native solver is not built (training needs it), fails instead under
TWENTY48_REQUIRE_NATIVE.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.common import run_cli

from twenty48_replay.core import native

if native.ENGINE == "python" or native.module("_solver") is None:
    if os.environ.get("TWENTY48_REQUIRE_NATIVE") and native.ENGINE != "python":
        pytest.fail("the native solver is not built, but TWENTY48_REQUIRE_NATIVE is set")
    pytest.skip("the native solver is not built or not chosen", allow_module_level=True)

SMALL = ("--tuples", "0-1-2 4-5-6 0-1-4", "--round", "100", "--window", "200")


def payload(path: Path) -> bytes:
    """The arrays of a weights file (the metadata holds times, which differ)."""
    from twenty48_replay.solver import weights as wf

    loaded = wf.load(path)
    try:
        return b"".join(bytes(a) for a in loaded.arrays)
    finally:
        loaded.close()


def test_train_resume_export_and_use(tmp_path: Path) -> None:
    straight = tmp_path / "straight.t48w"
    result = run_cli("solver", "train", str(straight), "--games", "600", "-j", "2", *SMALL)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[1] for line in lines[:3]] == ["200", "400", "600"]
    assert "2048" in lines[0]
    assert "moves/CPU s" in lines[0]

    pieces = tmp_path / "pieces.t48w"
    first = run_cli("solver", "train", str(pieces), "--games", "400", "-j", "2", *SMALL)
    assert first.returncode == 0, first.stderr
    again = run_cli("solver", "train", str(pieces), "--games", "600", *SMALL)
    assert again.returncode == 2
    assert "--resume" in again.stderr
    other = run_cli("solver", "train", str(pieces), "--games", "600", "--resume", "-j", "1")
    assert other.returncode == 2
    assert "threads 2, not 1" in other.stderr
    resumed = run_cli("solver", "train", str(pieces), "--games", "600", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stderr
    assert payload(pieces) == payload(straight)

    shipped = tmp_path / "shipped.t48w"
    exported = run_cli("solver", "export", str(straight), str(shipped))
    assert exported.returncode == 0, exported.stderr
    assert "weights kept" in exported.stdout
    described = run_cli("solver", "weights", str(shipped), "--json")
    assert described.returncode == 0, described.stderr
    facts = json.loads(described.stdout)
    assert facts["layout"] == "sparse"
    assert facts["value_type"] == "int16"
    assert facts["games"] == 600
    assert facts["tuples"] == [[0, 1, 2], [4, 5, 6], [0, 1, 4]]

    hint = run_cli(
        "hint",
        "--json",
        "--board",
        "2 4 8 16/0 0 0 0/0 0 2 0/0 0 0 0",
        env={"TWENTY48_WEIGHTS": str(shipped)},
    )
    assert hint.returncode == 0, hint.stderr
    assert json.loads(hint.stdout)["best"] in ("U", "D", "L", "R")


@pytest.mark.parametrize(
    "damage",
    [lambda b: b[:-1], lambda b: b[:60] + bytes([b[60] ^ 1]) + b[61:], lambda b: b"not weights"],
)
def test_a_broken_weights_file_is_one_line_and_exit_2(tmp_path: Path, damage: object) -> None:
    path = tmp_path / "net.t48w"
    trained = run_cli("solver", "train", str(path), "--games", "200", *SMALL)
    assert trained.returncode == 0, trained.stderr
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    for args, env in (
        (("solver", "weights", str(path)), None),
        (("hint", "--board", "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"), {"TWENTY48_WEIGHTS": str(path)}),
        (("solver", "train", str(path), "--games", "400", "--resume"), None),
    ):
        result = run_cli(*args, env=env)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert str(path) in result.stderr


def test_messages_in_danish(tmp_path: Path) -> None:
    path = tmp_path / "net.t48w"
    path.write_bytes(b"T48NTUPL" + b"\0" * 100)
    result = run_cli("--lang", "da", "solver", "weights", str(path))
    assert result.returncode == 2
    assert "vægtfil" in result.stderr
    helped = run_cli("--lang", "da", "solver", "train", "--help")
    assert "kontrolpunkt" in helped.stdout


def test_without_the_native_solver_training_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = run_cli("solver", "train", str(tmp_path / "n.t48w"), env={"TWENTY48_ENGINE": "python"})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "needs the native solver" in result.stderr
    assert not (tmp_path / "n.t48w").exists()
