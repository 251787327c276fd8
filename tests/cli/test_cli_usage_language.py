"""Click's own usage messages and counted words, in English and Danish, as real subprocesses.

Typer's click writes "No such option", "is not in the range" and friends in
English only; the error boundary translates them (``cli/usage.py``), and
counted words take a real singular or plural instead of "duplicate(s)".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.common import EXAMPLES, run_cli

#: Usage errors of every kind click raises, each with the command it names.
USAGE_ERRORS = [
    (["list", "--bogus"], "list"),
    (["list", "--limt", "3"], "list"),
    (["list", "--limit", "0"], "list"),
    (["list", "--limit", "abc"], "list"),
    (["list", "--state", "foo"], "list"),
    (["list", "--player"], "list"),
    (["show"], "show"),
    (["show", "1", "2"], "show"),
    (["show", "1", "2", "3"], "show"),
    (["verify", "--jobs"], "verify"),
    (["verify", "--jobs", "0", "x.json"], "verify"),
    (["bogus"], None),
    (["lst"], None),
    (["export", "--size", "x", "1"], "export"),
]
#: Words of click's English sentences; none may be left in a Danish line.
CLICK_ENGLISH = re.compile(
    r"No such|Invalid value|is not|Missing|requires|Got unexpected|Possible options|"
    r"Did you mean|extra argument \(|\(s\)|range|valid"
)


@pytest.mark.parametrize(("args", "command"), USAGE_ERRORS, ids=lambda v: " ".join(v or []))
def test_click_usage_errors_are_danish_in_danish(args: list[str], command: str | None) -> None:
    result = run_cli("--lang", "da", *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("twenty48: fejl: "), line
    assert not CLICK_ENGLISH.search(line), line
    where = f"twenty48 {command}" if command else "twenty48"
    assert line.endswith(f"(se '{where} -h')"), line


def test_click_usage_errors_in_danish_read_as_expected() -> None:
    """A few whole lines, so the translation says what click said."""
    expected = {
        ("list", "--limit", "0"): "Ugyldig værdi for '--limit' / '-n': 0 er ikke i intervallet "
        "1<=x<=100000.",
        ("list", "--limt", "3"): "Tilvalget findes ikke: --limt (mulige tilvalg: --limit)",
        ("show",): "Argumentet 'ID' mangler.",
        ("show", "1", "2"): "Uventet ekstra argument (2)",
        ("show", "1", "2", "3"): "Uventede ekstra argumenter (2 3)",
        ("lst",): "Kommandoen 'lst' findes ikke. Mente du 'list'?",
        ("verify", "--jobs"): "Tilvalget '--jobs' kræver en værdi.",
    }
    for args, message in expected.items():
        result = run_cli("--lang", "da", *args)
        assert f"twenty48: fejl: {message} (se " in result.stderr, result.stderr


def test_extra_arguments_have_a_real_plural_in_english() -> None:
    one = run_cli("show", "1", "2")
    assert "Got unexpected extra argument (2) (see 'twenty48 show -h')" in one.stderr
    two = run_cli("show", "1", "2", "3")
    assert "Got unexpected extra arguments (2 3)" in two.stderr
    assert "(s)" not in one.stderr + two.stderr


@pytest.mark.parametrize(
    ("language", "once", "twice"),
    [
        (
            "en",
            "6 imported, 0 duplicates skipped, 0 invalid, 0 unreadable",
            "0 imported, 6 duplicates skipped, 0 invalid, 0 unreadable",
        ),
        (
            "da",
            "importeret: 6, dubletter sprunget over: 0, ugyldige: 0, ulæselige: 0",
            "importeret: 0, dubletter sprunget over: 6, ugyldige: 0, ulæselige: 0",
        ),
    ],
)
def test_import_counts_take_singular_or_plural(
    tmp_path: Path, language: str, once: str, twice: str
) -> None:
    db = str(tmp_path / "games.sqlite3")
    first = run_cli("--lang", language, "import", "--db", db, str(EXAMPLES / "games.jsonl"))
    assert first.stderr.splitlines()[-1] == once
    again = run_cli("--lang", language, "import", "--db", db, str(EXAMPLES / "games.jsonl"))
    assert again.stderr.splitlines()[-1] == twice
    single = run_cli("--lang", language, "import", "--db", db, str(EXAMPLES / "valid.json"))
    summary = single.stderr.splitlines()[-1]
    assert summary.split(", ")[1] == (
        "1 duplicate skipped" if language == "en" else "dubletter sprunget over: 1"
    )
    bad = run_cli("--lang", language, "import", "--db", db, str(EXAMPLES / "tampered-score.json"))
    assert bad.stderr.splitlines()[-1].split(", ")[2] == (
        "1 invalid" if language == "en" else "ugyldige: 1"
    )
    assert "(s)" not in first.stderr + again.stderr + single.stderr + bad.stderr


def test_export_all_names_one_record_in_the_singular(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    run_cli("import", "--db", db, str(EXAMPLES / "valid.json"))
    out = tmp_path / "all.jsonl"
    result = run_cli("export", "--db", db, "--all", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "1 record" in result.stderr, result.stderr
    assert "(s)" not in result.stderr, result.stderr


def grid(rows: list[list[int]]) -> tuple[tuple[int, int, int, int], ...]:
    return tuple((a, b, c, d) for a, b, c, d in rows)


def test_a_final_board_reason_counts_cells_in_singular_and_plural() -> None:
    """The verify reason "differs ... in 1 cell" / "in 15 cells", never "cell(s)"."""
    from twenty48_replay.core.record import Record
    from twenty48_replay.core.replay import verify

    record = Record.from_json((EXAMPLES / "valid.json").read_text(encoding="utf-8"))
    rows = [list(row) for row in verify(record).board.to_rows()]
    one = [list(row) for row in rows]
    one[0][0] = 2 if one[0][0] != 2 else 4
    reasons = verify(Record(record.seed, record.moves, record.score, final_board=grid(one))).reasons
    assert any(" in 1 cell, first at row 1 column 1" in r for r in reasons), reasons
    many = [[2 if v != 2 else 4 for v in row] for row in rows]
    reasons = verify(
        Record(record.seed, record.moves, record.score, final_board=grid(many))
    ).reasons
    assert any(" in 16 cells, first at" in r for r in reasons), reasons
