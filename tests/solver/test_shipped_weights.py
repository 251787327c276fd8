"""The shipped weights: package data, found with no path, and the heuristic as the fallback.

The real weights are not in the checkout until they are trained: each test puts a
small network it trains itself at the package-data path (the module's DEFAULT_FILE,
patched in the subprocess or with monkeypatch), so the tests pass with or without
the real file.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from support.common import run_cli
from support.small_network import run_cli_shipped, skip_without_native, train_small

import twenty48_replay
from twenty48_replay.solver import network as nw
from twenty48_replay.solver import weights as wf
from twenty48_replay.solver.settings import HEURISTIC, NETWORK

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(twenty48_replay.__file__).resolve().parent
BOARD = "2 4 8 16/0 0 0 0/0 0 2 0/0 0 0 0"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    skip_without_native()
    return train_small(tmp_path_factory.mktemp("net"))


def hint_values(result: subprocess.CompletedProcess[str]) -> dict[str, float]:
    assert result.returncode == 0, result.stderr
    values: dict[str, float] = json.loads(result.stdout)["values"]
    return values


def test_the_shipped_file_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    relative = nw.DEFAULT_FILE.relative_to(PACKAGE).as_posix()
    assert relative == "solver/data/ntuple-4x6.t48w"
    globs = setuptools["package-data"]["twenty48_replay"]
    assert any(fnmatch.fnmatch(relative, glob) for glob in globs)
    excluded = setuptools.get("exclude-package-data", {}).get("twenty48_replay", [])
    assert not any(fnmatch.fnmatch(relative, glob) for glob in excluded)
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    assert "solver/data" not in manifest  # no prune or exclude of it in the sdist


def test_the_checkout_carries_trained_weights_within_50_mb() -> None:
    """The repository holds the weights the package ships (issue 34: at most 50 MB in the
    package, as the file itself), and they pass every check a load makes (the SHA-256
    included): sparse int16 weights of a real training, not a stand-in."""
    path = ROOT / "twenty48_replay" / "solver" / "data" / "ntuple-4x6.t48w"
    assert path.stat().st_size <= 50_000_000
    loaded = wf.load(path)
    try:
        header = loaded.header
        assert (header.layout, header.value_type) == (wf.SPARSE, wf.INT16)
        assert header.metadata.get("kind") == "weights"
        assert header.metadata.get("games", 0) >= 100_000
    finally:
        loaded.close()


@pytest.mark.slow
def test_the_wheel_and_the_sdist_carry_the_weights(tmp_path: Path) -> None:
    """``python -m build`` (sdist, then the wheel from it) of a copy of the project with
    weights at the package-data path: both carry the file, byte for byte."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.t48w")
    shutil.copytree(ROOT / "twenty48_replay", source / "twenty48_replay", ignore=ignore)
    shutil.copytree(ROOT / "cli", source / "cli", ignore=ignore)
    weights = source / "twenty48_replay" / "solver" / "data" / "ntuple-4x6.t48w"
    weights.parent.mkdir(exist_ok=True)
    weights.write_bytes(b"T48NTUPL stands in for the weights")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(tmp_path / "dist")],
        cwd=source,
        capture_output=True,
        text=True,
        env={**os.environ, "TWENTY48_NATIVE": "0"},
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        inside = archive.read("twenty48_replay/solver/data/ntuple-4x6.t48w")
    assert inside == weights.read_bytes()
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    import tarfile

    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert any(n.endswith("twenty48_replay/solver/data/ntuple-4x6.t48w") for n in names)


def test_the_default_is_the_network_when_it_can_be_read(
    small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from twenty48_replay.solver import native_search

    module = native_search.solver_module()
    monkeypatch.delenv(nw.ENV_VAR, raising=False)
    monkeypatch.setattr(nw, "DEFAULT_FILE", small)
    choice = nw.choose(module)
    assert choice.evaluation == (NETWORK if nw.DEFAULT_EVALUATION == NETWORK else HEURISTIC)
    assert choice.note is None
    assert nw.choose(module, HEURISTIC) == nw.Choice(None)
    assert nw.choose(module, NETWORK).network is not None
    monkeypatch.setenv(nw.ENV_VAR, "none")
    assert nw.choose(module).network is None
    assert nw.choose(module, NETWORK).network is not None  # the option wins
    monkeypatch.setattr(nw, "DEFAULT_FILE", small.with_name("absent.t48w"))
    monkeypatch.delenv(nw.ENV_VAR)
    assert nw.choose(module) == nw.Choice(None)  # a checkout without weights: no note
    absent = nw.choose(module, NETWORK)
    assert absent.network is None
    assert absent.note is not None
    assert "hand-tuned" in absent.note
    assert nw.choose(None, NETWORK).note is not None  # no C search, network asked for


def test_hint_autoplay_analyze_use_the_shipped_network(small: Path, tmp_path: Path) -> None:
    shipped = hint_values(run_cli_shipped(small, "hint", "--json", "--board", BOARD))
    named = hint_values(
        run_cli("hint", "--json", "--board", BOARD, env={"TWENTY48_WEIGHTS": str(small)})
    )
    heuristic = hint_values(
        run_cli_shipped(small, "hint", "--json", "--board", BOARD, "--evaluation", "heuristic")
    )
    switched_off = hint_values(
        run_cli_shipped(small, "hint", "--json", "--board", BOARD, env={"TWENTY48_WEIGHTS": "none"})
    )
    if nw.DEFAULT_EVALUATION == NETWORK:
        assert shipped == named
    assert heuristic == switched_off
    assert heuristic != named
    db = str(tmp_path / "games.db")
    rows = []
    for env in ({}, {"TWENTY48_WEIGHTS": str(small)}):
        played = run_cli_shipped(
            small,
            "autoplay",
            "--db",
            db,
            "--seed",
            "shipped",
            "--until",
            "128",
            "-j",
            "1",
            "--json",
            "--evaluation",
            "network",
            env=env,
        )
        assert played.returncode == 0, played.stderr
        assert played.stderr == ""
        row = json.loads(played.stdout)
        rows.append((row["score"], row["moves"]))
    assert rows[0] == rows[1]
    analysed = run_cli_shipped(small, "analyze", "1", "--db", db, "--json", "-j", "1")
    assert analysed.returncode == 0, analysed.stderr
    assert analysed.stderr == ""
    assert json.loads(analysed.stdout)["evaluation"] == nw.DEFAULT_EVALUATION


@pytest.mark.parametrize("damage", [lambda b: b[:-1], lambda b: b"not weights"])
def test_a_damaged_shipped_file_falls_back_with_one_note(
    small: Path, tmp_path: Path, damage: object
) -> None:
    broken = tmp_path / "ntuple-4x6.t48w"
    broken.write_bytes(damage(small.read_bytes()))  # type: ignore[operator]
    fell_back = run_cli_shipped(
        broken, "hint", "--json", "--board", BOARD, "--evaluation", "network"
    )
    assert fell_back.returncode == 0, fell_back.stderr
    note = fell_back.stderr.strip().splitlines()
    assert len(note) == 1, fell_back.stderr
    assert str(broken) in note[0]
    assert "using the hand-tuned evaluation" in note[0]
    heuristic = run_cli("hint", "--json", "--board", BOARD, "--evaluation", "heuristic")
    assert hint_values(fell_back) == hint_values(heuristic)
    # The same file named explicitly: one line and exit 2, never a quiet fallback.
    named = run_cli("hint", "--board", BOARD, env={"TWENTY48_WEIGHTS": str(broken)})
    assert named.returncode == 2
    assert len(named.stderr.strip().splitlines()) == 1, named.stderr
    assert str(broken) in named.stderr


def test_without_weights_the_heuristic_plays_and_says_so_when_asked(tmp_path: Path) -> None:
    absent = tmp_path / "ntuple-4x6.t48w"
    quiet = run_cli_shipped(absent, "hint", "--json", "--board", BOARD)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""
    asked = run_cli_shipped(absent, "hint", "--json", "--board", BOARD, "--evaluation", "network")
    assert asked.returncode == 0, asked.stderr
    assert asked.stderr.count("\n") == 1
    assert "no network weights" in asked.stderr
    assert hint_values(asked) == hint_values(quiet)
    danish = run_cli_shipped(
        absent, "--lang", "da", "hint", "--board", BOARD, "--evaluation", "network"
    )
    assert danish.returncode == 0, danish.stderr
    assert "håndjusterede" in danish.stderr
    bad = run_cli("hint", "--board", BOARD, "--evaluation", "neural")
    assert bad.returncode == 2
    assert "heuristic, network" in bad.stderr


def test_the_pure_python_search_notes_that_it_cannot_use_the_network(small: Path) -> None:
    result = run_cli_shipped(
        small,
        "hint",
        "--json",
        "--board",
        BOARD,
        "--evaluation",
        "network",
        env={"TWENTY48_ENGINE": "python"},
    )
    assert result.returncode == 0, result.stderr
    assert "needs the native solver" in result.stderr
    assert result.stderr.count("\n") == 1


def test_solver_weights_describes_the_shipped_file(small: Path, tmp_path: Path) -> None:
    described = run_cli_shipped(small, "solver", "weights", "--json")
    assert described.returncode == 0, described.stderr
    if nw.DEFAULT_EVALUATION == NETWORK:
        assert json.loads(described.stdout)["file"] == str(small)
    absent = run_cli_shipped(tmp_path / "absent.t48w", "solver", "weights")
    assert absent.returncode == 0, absent.stderr
    assert "hand-tuned" in absent.stdout
