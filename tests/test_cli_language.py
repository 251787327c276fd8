"""The ``twenty48`` program in English and Danish, as real subprocesses.

Text for people changes with ``--lang`` / ``TWENTY48_LANG``; machine output
(``--json``, records, JSON Lines) and exit codes never do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES, run_cli


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--lang", "de", "where"], {}), (["where"], {"TWENTY48_LANG": "klingon"})],
    ids=["option", "environment"],
)
def test_an_unknown_language_is_a_usage_error_naming_the_choices(
    args: list[str], env: dict[str, str]
) -> None:
    result = run_cli(*args, env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("twenty48: error: ")
    assert "en, da" in lines[0]
    assert "Traceback" not in result.stderr


def test_the_language_option_is_in_the_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    assert "--lang" in result.stdout
    assert "TWENTY48_LANG" in result.stdout


def test_machine_output_is_the_same_in_every_language(tmp_path: Path) -> None:
    """JSON of verify, list, show, stats, replay and the exported records: byte for byte.

    The database is made once; both languages then read the same games.
    """
    db = str(tmp_path / "games.sqlite3")
    assert run_cli("import", "--db", db, str(EXAMPLES / "valid.json")).returncode == 0
    played = run_cli("play", "--db", db, "--seed", "lang", "--player", "p", "--moves", "LDRU")
    assert played.returncode == 0
    valid, tampered = str(EXAMPLES / "valid.json"), str(EXAMPLES / "tampered-score.json")
    commands = [
        ["verify", "--json", valid, tampered],
        ["list", "--db", db, "--json"],
        ["show", "--db", db, "1", "--json"],
        ["stats", "--db", db, "--json"],
        ["replay", "--db", db, "1", "--at", "5", "--json"],
        ["export", "--db", db, "--all"],
    ]
    outputs = {
        language: [run_cli(*command, env={"TWENTY48_LANG": language}) for command in commands]
        for language in ("en", "da")
    }
    for english, danish in zip(outputs["en"], outputs["da"], strict=True):
        assert english.stdout.strip()
        for line in english.stdout.splitlines():
            json.loads(line)
        assert (danish.returncode, danish.stdout) == (english.returncode, english.stdout)
    one = [run_cli("export", "--db", db, "1", env={"TWENTY48_LANG": lang}) for lang in ("en", "da")]
    json.loads(one[0].stdout)
    assert one[0].stdout == one[1].stdout


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "twenty48: error: --moves: letter 'Q' at position 3 is not U, D, L or R"),
        ("da", "twenty48: fejl: --moves: bogstavet 'Q' på plads 3 er ikke U, D, L eller R"),
    ],
)
def test_a_refused_input_in_each_language(tmp_path: Path, language: str, expected: str) -> None:
    """The same refusal, the same exit code, nothing stored; only the words change."""
    db = str(tmp_path / "games.sqlite3")
    env = {"TWENTY48_LANG": language}
    result = run_cli("play", "--db", db, "--seed", "s", "--moves", "LDQ", env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(expected), result.stderr
    assert len(result.stderr.splitlines()) == 1
    listing = run_cli("list", "--db", db, "--json")
    assert listing.returncode == 0
    assert listing.stdout == ""


def test_danish_messages_from_the_library_and_the_commands(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    da = {"TWENTY48_LANG": "da"}
    missing = run_cli("--lang", "da", "show", "--db", db, "99")
    assert (missing.returncode, missing.stderr) == (1, "twenty48: fejl: intet spil med id 99\n")
    english = run_cli("show", "--db", db, "99")
    assert (english.returncode, english.stderr) == (1, "twenty48: error: no game with id 99\n")
    played = run_cli("play", "--db", db, "--seed", "s", "--moves", "LR", env=da)
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith("spil 1  seed 's'\npoint ")
    assert "udførte 2 træk (træk 1-2)" in played.stderr
    listing = run_cli("list", "--db", db, env=da)
    assert listing.stdout.split()[:4] == ["id", "spillet", "spiller", "point"]
    assert "i gang" in listing.stdout
    over = run_cli("play", "--db", db, "--game", "1", "--moves", "RR", env=da)
    assert over.returncode == 1
    assert "twenty48: fejl: bogstav 2 i --moves (R, som ville være træk 4) afvist" in over.stderr
    assert "det ændrer ikke brættet; trækket før det er gemt" in over.stderr
