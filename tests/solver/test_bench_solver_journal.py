"""``tests/bench/bench_solver.py --journal``: a game played in pieces is the game played at once.

Deep games take hours of a core and sessions may end at any time, so the
benchmark saves each game and goes on from the save; these tests run the
script as a user would (a real subprocess) and compare the games.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "bench" / "bench_solver.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--seeds", "3", "--workers", "1", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def game_row(output: str) -> list[str]:
    """Seed, score, max tile and moves of the game's row (times differ from run to run)."""
    row = next(line for line in output.splitlines() if line.startswith("bench-3 "))
    return row.split()[:4]


def test_a_game_saved_in_pieces_and_played_on_is_the_same_game(tmp_path: Path) -> None:
    whole = run("--target", "256")
    assert whole.returncode == 0, whole.stderr
    first = run("--target", "128", "--journal", str(tmp_path), "--save-every", "7")
    assert first.returncode == 0, first.stderr
    saved = json.loads((tmp_path / "bench-3.json").read_text())
    assert saved["finished"]
    assert saved["max_tile"] == 128
    then = run("--target", "256", "--journal", str(tmp_path), "--save-every", "7")
    assert then.returncode == 0, then.stderr
    assert game_row(then.stdout) == game_row(whole.stdout)
    assert len(json.loads((tmp_path / "bench-3.json").read_text())["moves"]) == int(
        game_row(whole.stdout)[3]
    )
    # --report: the saved game, replayed and verified, and nothing played.
    report = run("--target", "256", "--journal", str(tmp_path), "--report")
    assert report.returncode == 0, report.stderr
    assert game_row(report.stdout) == game_row(whole.stdout)
    assert "INVALID" not in report.stdout
    assert "unfinished" not in report.stdout


def test_a_journal_it_did_not_write_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bench-3.json"
    first = run("--target", "16", "--journal", str(tmp_path))
    assert first.returncode == 0, first.stderr
    saved = json.loads(path.read_text())
    path.write_text(json.dumps(saved | {"moves": "UUX"}))
    refused = run("--target", "256", "--journal", str(tmp_path))
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"{path}: its moves or counts are not what this script writes"
    ]
    # A save from before a field was added to the settings goes on (the field had
    # its default then).
    older = saved | {
        "settings": {k: v for k, v in saved["settings"].items() if k != "late_distinct"}
    }
    path.write_text(json.dumps(older))
    again = run("--target", "32", "--journal", str(tmp_path))
    assert again.returncode == 0, again.stderr
    # Another strength, or the same strength whose settings have changed since
    # the save (or a save that did not record them), is another player.
    for other in (
        saved | {"strength": "deep"},
        saved | {"settings": saved["settings"] | {"max_plies": 9}},
        {k: v for k, v in saved.items() if k != "settings"},
    ):
        path.write_text(json.dumps(other))
        refused = run("--target", "256", "--journal", str(tmp_path))
        assert refused.returncode == 2
        assert "saved with other settings" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("rule", "shown", "recorded"),
    [
        (
            ("--crowded-nodes", "50000", "--crowded-empty", "2"),
            "crowded_max_nodes=50000, crowded_empty=2",
            {"crowded_nodes": 50000, "crowded_empty": 2},
        ),
        (("--table-per-move",), "table_per_move=True", {"table_per_move": True}),
        (("--no-table-per-move",), "table_per_move=False", {"table_per_move": False}),
    ],
)
def test_a_journal_goes_on_only_with_the_same_rule(
    tmp_path: Path, rule: tuple[str, ...], shown: str, recorded: dict[str, object]
) -> None:
    first = run("--target", "64", "--journal", str(tmp_path), *rule)
    assert first.returncode == 0, first.stderr
    assert shown in first.stdout
    saved = json.loads((tmp_path / "bench-3.json").read_text())
    assert {key: saved[key] for key in recorded} == recorded
    refused = run("--target", "128", "--journal", str(tmp_path))
    assert refused.returncode == 2
    assert "saved with other settings" in refused.stderr
    again = run("--target", "128", "--journal", str(tmp_path), *rule)
    assert again.returncode == 0, again.stderr


def test_a_crowded_rule_the_settings_refuse_is_a_usage_error() -> None:
    refused = run("--target", "64", "--crowded-empty", "16")
    assert refused.returncode == 2
    assert "crowded_empty must be from 0 to 15, not 16" in refused.stderr
    assert "Traceback" not in refused.stderr
