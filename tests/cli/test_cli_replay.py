"""`twenty48 replay --at/--frames/--json` against the library's replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.common import EXAMPLES, ROOT, run_cli

from twenty48_replay import Record, replay
from twenty48_replay.core.board import Board

RECORDS = [
    EXAMPLES / "valid.json",
    ROOT / "tests" / "data" / "win-2048.json",
    ROOT / "tests" / "data" / "long-2000.json",  # passes 2048 and reaches 4096
]


def steps_of(path: Path) -> list[dict[str, object]]:
    return [s.to_json() for s in replay(Record.from_json(path.read_text(encoding="utf-8")))]


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_json_lines_equal_the_library_replay(path: Path) -> None:
    result = run_cli("replay", str(path), "--json")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert lines == steps_of(path)
    assert lines[0]["move"] is None
    assert lines[0]["spawn"] is None


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_at_prints_the_step(path: Path) -> None:
    steps = steps_of(path)
    for at in (0, 1, len(steps) // 2, -1, -len(steps)):
        result = run_cli("replay", str(path), "--at", str(at), "--json")
        assert result.returncode == 0
        assert json.loads(result.stdout) == steps[at]
    text = run_cli("replay", str(path), "--at", "-1").stdout
    last = steps[-1]
    assert f"step {last['step']} / {len(steps) - 1}" in text
    assert f"score {last['score']}" in text
    assert Board.from_rows(last["board"]).pretty() in text  # type: ignore[arg-type]


def test_frames_prints_every_step() -> None:
    path = EXAMPLES / "valid.json"
    result = run_cli("replay", str(path), "--frames")
    assert result.returncode == 0
    assert result.stdout.count("\nstep ") + result.stdout.startswith("step ") == len(steps_of(path))


def test_invalid_record_prints_valid_steps_then_the_reason() -> None:
    path = EXAMPLES / "tampered-swapped-move.json"
    result = run_cli("replay", str(path), "--json")
    assert result.returncode == 1
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert lines == steps_of(path)
    assert "is not a valid move" in result.stderr
    out_of_range = run_cli("replay", str(path), "--at", str(len(lines) + 5))
    assert out_of_range.returncode == 1
    assert "outside" in out_of_range.stderr


def test_stored_game_and_jsonl_line(tmp_path: Path) -> None:
    db = str(tmp_path / "r.sqlite3")
    run_cli("import", "--db", db, str(EXAMPLES / "games.jsonl"))
    stored = run_cli("replay", "1", "--db", db, "--at", "-1", "--json")
    from_file = run_cli(
        "replay", str(EXAMPLES / "games.jsonl"), "--line", "1", "--at", "-1", "--json"
    )
    assert stored.returncode == from_file.returncode == 0
    assert json.loads(stored.stdout) == json.loads(from_file.stdout)
    missing = run_cli("replay", "99", "--db", db, "--at", "0")
    assert missing.returncode == 1
    unreadable = run_cli("replay", str(EXAMPLES / "malformed-score-float.json"), "--at", "0")
    assert unreadable.returncode == 2


def test_viewer_needs_a_terminal() -> None:
    result = run_cli("replay", str(EXAMPLES / "valid.json"))
    assert result.returncode == 2
    assert "needs a terminal" in result.stderr
