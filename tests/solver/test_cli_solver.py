"""hint, autoplay and analyze through the real CLI (short games, so they stay fast)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.common import run_cli

from twenty48_replay import Record, verify


def test_hint_on_a_board_picks_the_winning_merge() -> None:
    """The hand-tuned evaluation merges at once.  The network may keep the pair for later
    (moving down keeps it mergeable): its values are expected points to come, the merge's
    2048 included whenever it happens, so only its answer's form is pinned here."""
    board = "1024 1024 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
    result = run_cli("hint", "--json", "--evaluation", "heuristic", "--board", board)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["best"] in ("L", "R")
    assert set(data["values"]) == {"U", "D", "L", "R"}
    default = json.loads(run_cli("hint", "--json", "--board", board).stdout)
    assert set(default["values"]) == {"U", "D", "L", "R"}
    assert default["best"] == max(default["values"], key=default["values"].get)


def test_hint_with_a_single_valid_move() -> None:
    only_up = "0 0 0 0/2 4 2 4/4 2 4 2/2 4 2 4"  # rows full below, columns packed down
    result = run_cli("hint", "--json", "--board", only_up)
    data = json.loads(result.stdout)
    assert data["best"] == "U"
    assert list(data["values"]) == ["U"]
    over = run_cli("hint", "--board", "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2")
    assert over.returncode == 0
    assert "the game is over" in over.stdout


def test_hint_bad_board_is_a_usage_error() -> None:
    result = run_cli("hint", "--board", "2 2 2/0 0 0 0")
    assert result.returncode == 2
    assert "4 rows of 4" in result.stderr


@pytest.mark.slow
def test_hint_marks_the_stored_game_assisted(tmp_path: Path) -> None:
    db = str(tmp_path / "h.sqlite3")
    run_cli("play", "--db", db, "--seed", "hinted", "--moves", "LD")
    result = run_cli("hint", "--db", db)
    assert result.returncode == 0, result.stderr
    assert "best move:" in result.stdout
    assert "marked as assisted" in result.stderr
    exported = json.loads(run_cli("export", "1", "--db", db).stdout)
    assert exported["assisted"] is True
    assert "(assisted)" in run_cli("list", "--db", db).stdout


@pytest.mark.slow
def test_autoplay_games_are_stored_and_verify(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite3")
    result = run_cli(
        "autoplay",
        "--db",
        db,
        "--seed",
        "auto",
        "--games",
        "2",
        "--until",
        "64",
        "--json",
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["seed"] for r in rows] == ["auto", "auto-2"]
    assert all(r["max_tile"] == 64 for r in rows)
    out = tmp_path / "all.jsonl"
    run_cli("export", "--all", "--db", db, "-o", str(out))
    records = [Record.from_json(line) for line in out.read_text().splitlines()]
    assert all(verify(r).valid for r in records)
    assert all(r.player == "solver" for r in records)
    assert run_cli("verify", str(out)).returncode == 0


@pytest.mark.slow
def test_analyze_a_solver_game_is_accurate(tmp_path: Path) -> None:
    db = str(tmp_path / "z.sqlite3")
    run_cli("autoplay", "--db", db, "--seed", "analyse-me", "--until", "64", "--json", timeout=300)
    result = run_cli("analyze", "1", "--db", db, "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["accuracy_percent"] >= 90
    assert data["moves"] == len(data["positions"])
    assert {
        "four_directions",
        "largest_tile_left_corner",
        "walled_in_positions",
        "crowded_moves",
        "crowded_mistakes",
    } <= set(data["classic_mistakes"])
    text = run_cli("analyze", "1", "--db", db, timeout=300).stdout
    assert "Accuracy:" in text
    assert "The four classic mistakes:" in text


def test_strength_deep_and_a_bad_strength() -> None:
    """--strength deep searches nneonneo's full depth; any other value is a usage error."""
    board = "2 4 8 16/4 8 16 32/8 16 32 64/0 0 2 4"
    default = json.loads(run_cli("hint", "--json", "--board", board).stdout)
    deep = run_cli("hint", "--json", "--strength", "deep", "--board", board)
    assert deep.returncode == 0, deep.stderr
    assert set(json.loads(deep.stdout)["values"]) == set(default["values"])
    for command in (["hint", "--board", board], ["autoplay", "--until", "8"], ["analyze", "1"]):
        bad = run_cli(*command, "--strength", "\x1bextreme")
        assert bad.returncode == 2
        assert "must be one of default, deep" in bad.stderr
        assert "\x1b" not in bad.stderr


@pytest.mark.slow
def test_autoplay_at_deep_strength_verifies(tmp_path: Path) -> None:
    db = str(tmp_path / "d.sqlite3")
    result = run_cli(
        "autoplay", "--db", db, "--seed", "deep", "--until", "32", "--strength", "deep", "--json"
    )
    assert result.returncode == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["max_tile"] == 32
    exported = run_cli("export", "1", "--db", db)
    assert verify(Record.from_json(exported.stdout)).valid
