"""``twenty48 backup`` says what it copied in the reader's language, counting right
(issue 20 s.3, the last walkthrough).

``--lang da backup`` printed ``8 spil (0 fair), 339968 byte``: the size without the
Danish thousands separator, and "0 fair" beside a local signed fair game.  The
count was of the fair games this database served (``serve``'s table); a signed
record kept from a server is another thing.  The line now names each kind it
has, and formats numbers as the rest of the CLI does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.common import EXAMPLES, VECTORS, run_cli


@pytest.mark.slow
def test_backup_counts_kept_signed_records_and_formats_numbers(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    for record in (VECTORS / "fair" / "record.json", EXAMPLES / "valid.json"):
        imported = run_cli("import", "--db", db, str(record))
        assert imported.returncode == 0, imported.stderr
    said = run_cli("backup", "--db", db, "-o", str(tmp_path / "en.sqlite3"))
    assert said.returncode == 0, said.stderr
    english = said.stdout.splitlines()[0]
    assert re.fullmatch(
        r"backed up .+ to .+en\.sqlite3: 2 games "
        r"\(1 signed fair-play record from a server\), \d{1,3}(,\d{3})+ bytes",
        english,
    ), english
    sagt = run_cli("--lang", "da", "backup", "--db", db, "-o", str(tmp_path / "da.sqlite3"))
    assert sagt.returncode == 0, sagt.stderr
    danish = sagt.stdout.splitlines()[0]
    assert re.fullmatch(
        r"sikkerhedskopierede .+ til .+da\.sqlite3: 2 spil "
        r"\(1 underskrevet fair-play-protokol fra en server\), \d{1,3}(\.\d{3})+ byte",
        danish,
    ), danish


def test_backup_of_plain_games_names_no_fair_kind(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    assert run_cli("import", "--db", db, str(EXAMPLES / "valid.json")).returncode == 0
    sagt = run_cli("--lang", "da", "backup", "--db", db, "-o", str(tmp_path / "da.sqlite3"))
    assert sagt.returncode == 0, sagt.stderr
    assert ": 1 spil, " in sagt.stdout.splitlines()[0]
    assert "fair" not in sagt.stdout.splitlines()[0]
