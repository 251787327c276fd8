"""Issue 13, points 9-12: help, options that would be ignored, messages and exported JSON.

Every check runs the real ``twenty48`` command in a subprocess.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.common import EXAMPLES, run_cli

from twenty48_replay import Record

VALID = EXAMPLES / "valid.json"


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A database holding examples/valid.json as game 1."""
    path = str(tmp_path / "messages.sqlite3")
    assert run_cli("import", "--db", path, str(VALID)).returncode == 0
    return path


# ------------------------------------------------------------- 10: ignored options


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--at", "5"], "--at goes with --format svg, not --format json"),
        (["--steps", "1:3"], "--steps goes with --format gif, not --format json"),
        (["--format", "svg", "--steps", "1:3"], "--steps goes with --format gif, not --format svg"),
        (["--format", "gif", "--at", "5"], "--at goes with --format svg, not --format gif"),
        (["--format", "svg", "--size", "300"], "--size goes with --format gif, not --format svg"),
        (["--frame-ms", "50"], "--frame-ms goes with --format gif, not --format json"),
    ],
)
def test_export_options_of_another_format_are_usage_errors(
    db: str, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "out"
    result = run_cli("export", "1", *args, "-o", str(out), "--db", db)
    assert result.returncode == 2
    assert result.stderr == f"twenty48: error: {message} (see 'twenty48 export -h')\n"
    assert not out.exists()


# ------------------------------------------------------------------- 11: messages


def test_analyze_names_one_empty_cell_in_the_singular(tmp_path: Path) -> None:
    result = run_cli("analyze", str(VALID), "--top", "1000", timeout=600)
    assert result.returncode == 0, result.stderr
    assert " 1 empty cells" not in result.stdout
    assert re.search(r"\(-[\d.]+%\), 1 empty cell$", result.stdout, re.MULTILINE)


def test_a_gif_of_one_frame_says_frame(db: str, tmp_path: Path) -> None:
    out = tmp_path / "one.gif"
    result = run_cli("export", "1", "--format", "gif", "--steps", "3:4", "-o", str(out), "--db", db)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith(f"wrote 1 frame (step 3) as GIF to {out} (")


def test_a_json_error_says_at_once(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n\n\n\n  "seed": "abc\n')
    result = run_cli("verify", str(broken))
    assert result.returncode == 2
    assert "at at" not in result.stderr
    assert "not JSON: Invalid control character at line 5 column 15" in result.stderr
    broken.write_text('{\n\n\n\n  "seed": "abc')
    result = run_cli("verify", str(broken))
    assert "not JSON: Unterminated string starting at line 5 column 11" in result.stderr


def test_a_bad_moves_letter_is_quoted_as_typed(tmp_path: Path) -> None:
    result = run_cli("play", "--db", str(tmp_path / "m.sqlite3"), "--moves", "lurdx")
    assert result.returncode == 2
    assert "--moves: letter 'x' at position 5 is not U, D, L or R" in result.stderr


def test_hint_on_an_empty_board_does_not_call_the_game_over() -> None:
    result = run_cli("hint", "--board", "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0")
    assert result.returncode == 0
    assert "no move is possible: the board is empty" in result.stdout
    assert "game is over" not in result.stdout


def test_replay_at_names_the_spawn_cell_as_the_viewer_does() -> None:
    result = run_cli("replay", str(VALID), "--at", "3")
    assert result.returncode == 0, result.stderr
    header = result.stdout.splitlines()[0]
    assert header.endswith("spawned 2 at row 3, col 4")
    assert "cell 11" not in header


def test_json_lines_on_stdin_name_every_line() -> None:
    lines = (EXAMPLES / "games.jsonl").read_bytes().splitlines()[:2]
    result = run_cli("verify", "-", stdin=b"\n".join(lines) + b"\n")
    assert result.returncode == 0, result.stderr
    assert [line.split(": ")[0] for line in result.stdout.splitlines()] == ["-:1", "-:2"]
    single = run_cli("verify", "-", stdin=VALID.read_bytes())
    assert single.stdout.startswith("-: valid")


def test_an_option_without_its_value_points_to_the_commands_help() -> None:
    result = run_cli("verify", "-j")
    assert result.returncode == 2
    assert result.stderr.endswith("(see 'twenty48 verify -h')\n")


def test_analyze_json_gives_the_game_number(db: str) -> None:
    result = run_cli("analyze", "1", "--json", "--top", "1", "--db", db, timeout=600)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["game"] == 1
    from_file = json.loads(run_cli("analyze", str(VALID), "--json", "--top", "1").stdout)
    assert from_file["file"] == str(VALID)
    assert "game" not in from_file


# --------------------------------------------------------------- 12: exported JSON


def test_exported_json_keeps_each_board_row_on_one_line(db: str) -> None:
    result = run_cli("export", "1", "--db", db)
    assert result.returncode == 0, result.stderr
    record = Record.from_json(result.stdout)
    assert record.final_board is not None
    rows = ",\n".join(f"    [{', '.join(map(str, row))}]" for row in record.final_board)
    assert f'  "final_board": [\n{rows}\n  ],\n' in result.stdout
    assert json.loads(result.stdout) == json.loads(VALID.read_text())


# ----------------------------------------------------------------------- 9: help

COMMANDS = [
    "play",
    "replay",
    "list",
    "show",
    "stats",
    "export",
    "import",
    "verify",
    "hint",
    "autoplay",
    "analyze",
    "check",
    "where",
    "evidence",
    "serve",
    "backup",
    "admin",
]


def help_text(*command: str) -> str:
    result = run_cli(*command, "--help", env={"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_help_ends_with_examples_of_itself(command: str) -> None:
    text = help_text(*([command] if command else []))
    tail = text[text.rindex("Examples:") :]
    assert text.rstrip().endswith(tail.rstrip())
    lines = [line.strip() for line in tail.splitlines()[1:] if line.strip()]
    assert len(lines) >= 4  # at least two examples: what each does, then its command line
    commands = lines[1::2]
    assert all(f"twenty48 {command}".rstrip() in line for line in commands), commands


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_one_option_order_and_no_raw_markup(command: str) -> None:
    text = help_text(command)
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage
    assert "``" not in text
    assert "**" not in text
    options = re.findall(r"^│ (--[a-z-]+)", text, re.MULTILINE)
    assert options[-1] == "--help"
    tail = [name for name in options if name in ("--db", "--json")]
    assert options[len(options) - 1 - len(tail) : -1] == tail
    assert tail in ([], ["--db"], ["--json"], ["--db", "--json"])


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        ("replay", "twenty48 replay [OPTIONS] ID|FILE"),
        ("show", "twenty48 show [OPTIONS] ID"),
        ("export", "twenty48 export [OPTIONS] [ID|FILE]"),
        ("import", "twenty48 import [OPTIONS] FILE..."),
        ("verify", "twenty48 verify [OPTIONS] FILE..."),
        ("analyze", "twenty48 analyze [OPTIONS] ID|FILE"),
    ],
)
def test_usage_lines_name_the_arguments(command: str, usage: str) -> None:
    assert f"Usage: {usage}" in help_text(command)


def test_every_example_is_a_command_line_the_parser_accepts() -> None:
    """The examples name real options with the right values (parsed, not run)."""
    import shlex

    import typer

    from twenty48_cli.app import app
    from twenty48_cli.helptext import EXAMPLES, ROOT_EXAMPLES

    group = typer.main.get_command(app)
    for pairs in [ROOT_EXAMPLES, *EXAMPLES.values()]:
        for _what, line in pairs:
            words = shlex.split(line.split("|")[-1])
            words = words[words.index("twenty48") + 1 :]
            if words[0] == "COMMAND":
                continue
            command = group.commands[words[0]]  # type: ignore[attr-defined]
            command.make_context(words[0], words[1:])  # raises on an unknown option or value
