"""``twenty48 list`` fits the terminal (issue 20 s.3 point 5): 80, 60 and 40 columns, en and da.

At 60 columns the list was 75 wide and wrapped into itself.  It now narrows
step by step (cli/columns.py): dates without the time, tighter numbers, then
columns dropped and long names cut, always with "...".  A pipe without
``COLUMNS`` gets every column, as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from support.common import run_cli

LONG_NAME = "Bartholomew Longname-Smithson"
LANGUAGES = ["en", "da"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("list-width") / "games.sqlite3"
    for seed, player in (("hello", LONG_NAME), ("x", "ann"), ("y", "Zoë")):
        played = run_cli(
            "play", "--db", str(path), "--seed", seed, "--player", player, "--moves", "LDRU"
        )
        assert played.returncode == 0, played.stderr
    return path


def listed(db: Path, language: str, columns: int | None) -> list[str]:
    env = {} if columns is None else {"COLUMNS": str(columns)}
    result = run_cli("--lang", language, "list", "--db", str(db), env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("columns", [80, 60, 40])
def test_list_fits_the_terminal_and_cuts_no_word_without_an_ellipsis(
    db: Path, language: str, columns: int
) -> None:
    wide = listed(db, language, None)
    words = {word for line in wide for word in line.split()}
    lines = listed(db, language, columns)
    assert len(lines) == len(wide) == 4
    for line in lines:
        assert cell_len(line) <= columns, (columns, line)
        for word in line.split():
            assert word in words or word.endswith("..."), (word, line)
    # The id of every game is always there, first; the state, last.
    assert [line.split()[0] for line in lines[1:]] == [line.split()[0] for line in wide[1:]]
    assert [line.split()[-1] for line in lines[1:]] == [line.split()[-1] for line in wide[1:]]
    if columns == 80:
        assert lines == wide  # every column fits at 80: nothing narrowed


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_pipe_without_columns_gets_every_column(db: Path, language: str) -> None:
    heading, *rows = listed(db, language, None)
    if language == "da":
        assert heading.split() == ["id", "spillet", "spiller", "point", "maks", "træk", "tilstand"]
    else:
        assert heading.split() == ["id", "played", "player", "score", "max", "moves", "state"]
    assert any("Bartholomew L..." in row for row in rows)
    assert len(listed(db, language, 1000)) == 4


def test_at_40_columns_the_name_is_cut_with_an_ellipsis() -> None:
    """The narrowing keeps the id, the player (cut), the score and the state."""
    from twenty48_cli.columns import Column, Table, fit
    from twenty48_cli.games_cmd import NARROWING

    table = Table(
        [
            Column("id", "id", ["1"], right=True, minimum=5),
            Column("played", "played", ["2026-12-01 21:24"], minimum=16),
            Column("player", "player", [LONG_NAME], limit=16),
            Column("score", "score", ["123456"], right=True, minimum=8),
            Column("max", "max", ["2048"], right=True, minimum=6),
            Column("moves", "moves", ["999"], right=True, minimum=6),
            Column("state", "state", ["over (assisted) (signed)"]),
        ]
    )
    lines = fit(table, 40, NARROWING)
    assert all(cell_len(line) <= 40 for line in lines), lines
    assert lines[0].split() == ["id", "player", "score", "state"]
    assert lines[1].split()[1].endswith("...")
