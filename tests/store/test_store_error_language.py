"""A database or option that cannot be used is said in the reader's language
(issue 20 s.3: no English inside Danish text that a person reads).

StoreError and the ``--rate-limit`` errors were f-strings, so ``--lang da``
printed ``twenty48: fejl: nope/g.db: folder nope does not exist``.  They are
now marked templates with parameters (:class:`twenty48_replay.core.errors.MessageError`),
the operating system's reason through ``os_problem``.  Each case runs the real
command in English and in Danish: the English line is exactly what it was, the
Danish one is translated and keeps none of the English line's words (beyond the
file names, option names and values it quotes).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.common import EXAMPLES, run_cli

#: Words that are the same in both languages.
SHARED_WORDS = {"database", "sqlite", "min", "ip"}


def error_line(result: subprocess.CompletedProcess[str], prefix: str) -> str:
    """The one error line (exit 2, no traceback) without its ``twenty48: error:`` prefix."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(prefix), lines[0]
    return lines[0][len(prefix) :]


def words(line: str, quoted: list[str]) -> set[str]:
    """The line's words, leaving out what it quotes (paths, values, options, commands)."""
    for text in sorted(quoted, key=len, reverse=True):
        line = line.replace(text, " ")
    line = re.sub(r"'twenty48 [^']*'|--[a-z-]+", " ", line)
    return {word.lower() for word in re.findall(r"[^\W\d_]{2,}", line)} - SHARED_WORDS


def check(
    args: list[str],
    english: str,
    danish: str,
    quoted: list[str],
    *,
    prefix: tuple[str, ...] = (),
    home: str = "",
) -> None:
    """``args`` in both languages: the exact English line, the exact Danish one, no English left."""
    said = error_line(run(["--lang", "en", *args], prefix=prefix, home=home), "twenty48: error: ")
    assert said == english
    sagt = error_line(run(["--lang", "da", *args], prefix=prefix, home=home), "twenty48: fejl: ")
    assert sagt == danish
    left = words(english, quoted) & words(danish, quoted)
    assert not left, (danish, left)


def run(
    args: list[str], *, prefix: tuple[str, ...] = (), home: str = ""
) -> subprocess.CompletedProcess[str]:
    """The command as this user, or with ``prefix`` (``setpriv`` to another) and ``home``."""
    if not prefix:
        return run_cli(*args)
    exe = str(Path(sys.executable).with_name("twenty48"))
    return subprocess.run(
        [*prefix, exe, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": home},
        check=False,
    )


def test_unusable_databases_and_outputs_are_refused_in_danish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # short relative names in the lines
    Path("junk.db").write_text("this is not a database, just some words\n", encoding="utf-8")
    Path("folder.db").mkdir()
    Path("a-file").write_text("x", encoding="utf-8")
    assert run_cli("list", "--db", "g.db").returncode == 0
    check(
        ["list", "--db", "nope/g.db"],
        "nope/g.db: folder nope does not exist",
        "nope/g.db: mappen nope findes ikke",
        ["nope/g.db", "nope"],
    )
    check(
        ["list", "--db", "junk.db"],
        "junk.db: not an SQLite database",
        "junk.db: ikke en SQLite-database",
        ["junk.db"],
    )
    check(
        ["list", "--db", "folder.db"],
        "folder.db: is a directory, not a database file",
        "folder.db: er en mappe, ikke en databasefil",
        ["folder.db"],
    )
    check(
        ["backup", "--db", "g.db", "-o", "nothere/copy.db"],
        "nothere/copy.db: cannot write (no such file or directory)",
        "nothere/copy.db: kan ikke skrive (filen eller mappen findes ikke)",
        ["nothere/copy.db"],
    )
    check(
        ["backup", "--db", "g.db", "-o", "a-file/copy.db"],
        "a-file/copy.db: cannot write (not a directory)",
        "a-file/copy.db: kan ikke skrive (ikke en mappe)",
        ["a-file/copy.db"],
    )
    assert not Path("nothere").exists()
    assert Path("a-file").read_text(encoding="utf-8") == "x"


def test_a_bad_rate_limit_or_proxy_address_is_refused_in_danish(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    invalid_en = "Invalid value for '--rate-limit': "
    invalid_da = "Ugyldig værdi for '--rate-limit': "
    see_en, see_da = " (see 'twenty48 serve -h')", " (se 'twenty48 serve -h')"
    names = "create-game, move, submit-record, register-name"
    cases = [
        (
            "move=0/s",
            "'move=0/s': the count must be at least 1",
            "'move=0/s': antallet skal være mindst 1",
        ),
        (
            "move=5/s:0",
            "'move=5/s:0': the burst must be at least 1",
            "'move=5/s:0': stødet skal være mindst 1",
        ),
        (
            "nope=1/s",
            f"no rate limit named 'nope' (there are {names})",
            f"ingen hastighedsgrænse hedder 'nope' (der er {names})",
        ),
        (
            "garbage",
            "'garbage' is not NAME=COUNT/UNIT[:BURST] (UNIT s, min, h or d), e.g. move=15/s:45",
            "'garbage' er ikke NAVN=ANTAL/ENHED[:STØD] (ENHED s, min, h eller d), "
            "f.eks. move=15/s:45",
        ),
    ]
    for value, english, danish in cases:
        check(
            ["serve", "--db", db, "--rate-limit", value],
            invalid_en + english + see_en,
            invalid_da + danish + see_da,
            [
                f"'{value}'",
                "'nope'",
                names,
                "move=15/s:45",
                "Invalid value for",
                "Ugyldig værdi for",
            ],
        )
    check(
        ["serve", "--db", db, "--forwarded-allow-ips", "10.0.0.1,bogus"],
        "Invalid value for '--forwarded-allow-ips': 'bogus' is not an IP address or network"
        + see_en,
        "Ugyldig værdi for '--forwarded-allow-ips': 'bogus' er ikke en IP-adresse eller et netværk"
        + see_da,
        ["'bogus'", "Invalid value for", "Ugyldig værdi for"],
    )
    assert not Path(db).exists()


def test_a_read_only_database_and_a_closed_folder_are_refused_in_danish(tmp_path: Path) -> None:
    """As ``nobody`` when the tests run as root (root ignores file modes)."""
    # In the system temporary folder, where the user "nobody" can reach it
    # (pytest's folders are 0700, at a depth that differs under pytest-xdist).
    base = Path(tempfile.mkdtemp(prefix="twenty48-ro-"))
    base.chmod(0o755)
    folder = base / "ro"
    folder.mkdir()
    path = folder / "ro.sqlite3"
    assert run_cli("play", "--db", str(path), "--seed", "ro", "--moves", "L").returncode == 0
    closed = base / "closed"
    closed.mkdir()
    keeper = sqlite3.connect(path)  # keeps -wal and -shm in place
    keeper.execute("SELECT count(*) FROM games").fetchone()
    try:
        for name in ("ro.sqlite3", "ro.sqlite3-wal", "ro.sqlite3-shm"):
            (folder / name).chmod(0o444)
        folder.chmod(0o555)
        closed.chmod(0o000)
        prefix: tuple[str, ...] = ()
        if os.geteuid() == 0:
            prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
        shown = str(path)
        check(
            ["import", "--db", shown, str(EXAMPLES / "valid.json")],
            f"{shown}: the database is read-only",
            f"{shown}: databasen er skrivebeskyttet",
            [shown],
            prefix=prefix,
            home=str(base),
        )
        copy = str(folder / "copy.db")
        check(
            ["backup", "--db", shown, "-o", copy],
            f"{copy}: cannot write (permission denied)",
            f"{copy}: kan ikke skrive (adgang nægtet)",
            [copy],
            prefix=prefix,
            home=str(base),
        )
        hidden = str(closed / "x.sqlite3")
        check(
            ["list", "--db", hidden],
            f"{hidden}: cannot reach the file (permission denied)",
            f"{hidden}: kan ikke nå filen (adgang nægtet)",
            [hidden],
            prefix=prefix,
            home=str(base),
        )
    finally:
        closed.chmod(0o755)
        folder.chmod(0o755)
        keeper.close()
        shutil.rmtree(base)
