"""The command line's edges (issue 9, sections 5, 6, 9 and 10).

* every numeric option has an upper bound, shown in ``--help``, and a
  value beyond it is one usage line with exit 2;
* ``export -o`` never writes over a database, writes whole files or none,
  and ``-o -`` is standard output;
* every command that reads a record file reports an invalid record alike:
  it does what it can, then the reason on stderr and exit 1;
* odd game ids and out-of-range steps are one-line errors, not tracebacks.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from support.common import EXAMPLES, run_cli

TAMPERED = EXAMPLES / "tampered-score.json"
SWAPPED = EXAMPLES / "tampered-swapped-move.json"


def one_error_line(result: Any, code: int) -> str:
    """The single stderr line of a refused command."""
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("twenty48: error: "), result.stderr
    return str(lines[0])


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database with the valid example stored as game 1."""
    path = str(tmp_path_factory.mktemp("edges") / "g.db")
    result = run_cli("import", str(EXAMPLES / "valid.json"), "--db", path)
    assert result.returncode == 0, result.stderr
    return path


# ---------------------------------------------------------------- bounds (6)

#: (command, option, first value beyond the bound, the bound as --help shows it)
BOUNDS = [
    (["export", "1"], "--size", "1025", "120<=x<=1024"),
    (["export", "1"], "--frame-ms", "60001", "10<=x<=60000"),
    (["export", "1"], "--at", "1000001", "-1000001<=x<=1000000"),
    (["verify", "x.json"], "--jobs", "99999999999999999999", f"1<=x<={4 * (os.cpu_count() or 1)}"),
    (["import", "x.json"], "--jobs", str(4 * (os.cpu_count() or 1) + 1), "1<=x<="),
    (["analyze", "1"], "--jobs", "1000", "1<=x<="),
    (["analyze", "1"], "--top", "1001", "1<=x<=1000"),
    (["autoplay"], "--games", "1000000000", "1<=x<=10000"),
    (["autoplay"], "--until", "262144", "4<=x<=131072"),
    (["autoplay"], "--jobs", "1000", "1<=x<="),
    (["list"], "--limit", "100001", "1<=x<=100000"),
    (["replay", "1"], "--at", "-1000002", "-1000001<=x<=1000000"),
    (["replay", "1"], "--line", "1000000001", "1<=x<=1000000000"),
    (["hint"], "--game", "9223372036854775808", "1<=x<=9223372036854775807"),
    (["hint", "--record", str(TAMPERED)], "--at", "1000001", "-1000001<=x<=1000000"),
    (["play"], "--game", "9223372036854775808", "1<=x<=9223372036854775807"),
]


@pytest.mark.parametrize(("command", "option", "value", "shown"), BOUNDS)
def test_numeric_options_are_bounded_and_say_so(
    command: list[str], option: str, value: str, shown: str, tmp_path: Path
) -> None:
    db = str(tmp_path / "untouched.db")
    line = one_error_line(
        run_cli(*command, option, value, "--db", db)
        if command[0] != "verify"
        else run_cli(*command, option, value),
        2,
    )
    assert value in line
    assert "range" in line
    assert not Path(db).exists()  # refused before the database was opened
    help_text = " ".join(run_cli(command[0], "--help", env={"COLUMNS": "250"}).stdout.split())
    assert shown in help_text.replace(" ", ""), help_text


def test_game_ids_beyond_64_bits_or_not_ascii_are_one_line(db: str) -> None:
    assert "range" in one_error_line(run_cli("show", "99999999999999999999", "--db", db), 2)
    for command in (["replay", "99999999999999999999", "--at", "0"], ["analyze", "1" * 30]):
        assert "largest id" in one_error_line(run_cli(*command, "--db", db), 2)
    # "²".isdigit() is true but int("²") fails: it is a (missing) file name, not an id.
    assert "no such file" in one_error_line(run_cli("replay", "²", "--db", db, "--at", "0"), 2)
    assert "not a game id" in one_error_line(run_cli("export", "²", "--db", db), 2)


def test_hint_at_a_step_the_record_lacks_is_one_usage_line() -> None:
    line = one_error_line(
        run_cli("hint", "--record", str(EXAMPLES / "valid.json"), "--at", "9999"), 2
    )
    assert "--at 9999" in line
    assert "0..472" in line


# ---------------------------------------------------------------- export -o (9)


def test_export_never_writes_over_the_open_database(db: str, tmp_path: Path) -> None:
    before = Path(db).read_bytes()
    link = tmp_path / "link.db"
    link.symlink_to(db)
    hard = tmp_path / "hard.db"
    os.link(db, hard)
    for target in (db, str(link), str(hard), db + "-wal", db + "-shm"):
        for fmt in ("json", "svg"):
            result = run_cli("export", "1", "--db", db, "-f", fmt, "-o", target)
            assert result.returncode == 2, (target, result.stderr)
            assert "refusing to write over it" in result.stderr
    assert Path(db).read_bytes() == before
    for companion in (Path(db + "-wal"), Path(db + "-shm")):
        assert not companion.exists() or companion.read_bytes()[:1] not in (b"{", b"<")
    listed = run_cli("list", "--db", db, "--json")
    assert listed.returncode == 0
    assert '"id":1' in listed.stdout


def test_export_refuses_any_sqlite_file_and_wal(db: str, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("create table t(x)").connection.close()
    wal = tmp_path / "log"
    wal.write_bytes(b"\x37\x7f\x06\x82" + bytes(28))
    for target in (other, wal):
        before = target.read_bytes()
        result = run_cli("export", "1", "--db", db, "-o", str(target))
        assert result.returncode == 2
        assert "refusing" in result.stderr
        assert target.read_bytes() == before
    result = run_cli("export", str(TAMPERED), "-f", "svg", "-o", str(TAMPERED))
    assert result.returncode == 2
    assert "refusing" in result.stderr


def test_export_dash_is_stdout_and_files_are_replaced_whole(db: str, tmp_path: Path) -> None:
    dashed = run_cli_in(tmp_path, "export", "1", "--db", db, "-o", "-")
    assert dashed.returncode == 0
    assert dashed.stdout.startswith("{")
    assert not (tmp_path / "-").exists()
    target = tmp_path / "out.json"
    target.write_text("old contents")
    target.chmod(0o640)
    assert run_cli("export", "1", "--db", db, "-o", str(target)).returncode == 0
    assert target.read_text().startswith("{")
    assert target.stat().st_mode & 0o777 == 0o640
    failed = run_cli("export", "99", "--db", db, "-o", str(target))
    assert failed.returncode == 1
    assert target.read_text().startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary left


def run_cli_in(folder: Path, *args: str) -> Any:
    """run_cli with ``folder`` as the working directory."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return run_cli(*args)
    finally:
        os.chdir(cwd)


# ---------------------------------------------------------------- invalid records (10)


@pytest.mark.parametrize("record", [TAMPERED, SWAPPED], ids=["score", "swapped"])
def test_every_reader_reports_an_invalid_record_alike(record: Path, tmp_path: Path) -> None:
    """Each does what it can (prints, draws, analyses), then the reason and exit 1."""
    expected = run_cli("replay", str(record), "--at", "0").stderr.splitlines()[-1]
    assert expected.startswith(f"twenty48: error: {record}: INVALID: ")
    out = tmp_path / "picture"
    for args in (
        ["replay", str(record), "--json"],
        ["analyze", str(record), "--jobs", "1"],
        ["hint", "--record", str(record)],
        ["export", str(record), "-f", "svg", "-o", str(out)],
        ["export", str(record), "-f", "gif", "-o", str(out), "--steps", "0:20"],
    ):
        result = run_cli(*args)
        assert result.returncode == 1, (args, result.stderr)
        assert result.stderr.splitlines()[-1] == expected, args
        assert "Traceback" not in result.stderr
        if args[0] == "export":
            assert out.stat().st_size > 0, args  # the picture was still drawn
            out.unlink()
        else:
            assert result.stdout, args


@pytest.mark.parametrize("columns", ["99999999999", "0", "-5", "wide"])
def test_a_hostile_terminal_size_is_ignored(columns: str) -> None:
    """Rich pads help lines to COLUMNS: 99999999999 was a MemoryError traceback (and
    999999999 grew to 19.8 GB); a size that is not 1..1000 is dropped."""
    result = run_cli("--help", env={"COLUMNS": columns, "LINES": columns}, timeout=60)
    assert result.returncode == 0, result.stderr[-500:]
    assert "Traceback" not in result.stderr
    assert "verify" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 1000


def test_export_to_a_pipe_writes_without_peeking(tmp_path: Path) -> None:
    """``-o FIFO`` (or ``-o >(gzip > f)``): the database check opened the pipe to read its
    first bytes and waited for ever for a writer."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def drain() -> None:
        with open(fifo, "rb") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        result = run_cli(
            "export", str(EXAMPLES / "valid.json"), "--format", "svg", "-o", str(fifo), timeout=20
        )
    finally:
        if not received and reader.is_alive():
            with open(fifo, "wb"):  # release the reader if nothing was written
                pass
        reader.join(10)
    assert result.returncode == 0, result.stderr
    assert b"<svg" in received[0]


def test_a_gif_has_at_most_20000_frames(tmp_path: Path) -> None:
    """A record may hold 1,000,000 moves; its whole GIF would take gigabytes and minutes
    (20,001 frames: 7 s, 120 MB, a 36 MB file).  Over the limit is a usage error."""
    record = Path(__file__).parents[1] / "data" / "long-20000.json"
    out = tmp_path / "long.gif"
    result = run_cli("export", str(record), "-f", "gif", "-o", str(out))
    assert "a GIF of 20,001 frames is over the limit of 20,000" in one_error_line(result, 2)
    assert not out.exists()
    tail = run_cli("export", str(record), "-f", "gif", "--steps", "-50:", "-o", str(out))
    assert tail.returncode == 0, tail.stderr
    assert out.read_bytes()[:6] == b"GIF89a"
