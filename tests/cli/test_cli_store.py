"""The store commands as a user runs them: real subprocesses on a real SQLite file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from support.common import EXAMPLES, run_cli

from twenty48_replay import Direction, GameState, Record


def expected_after(seed: str, letters: str) -> GameState:
    state = GameState.new(seed)
    for letter in letters:
        state, _, _ = state.play(Direction(letter))
    return state


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cli.sqlite3")


def test_scripted_play_stores_every_move_and_prints_the_board(db: str) -> None:
    result = run_cli("play", "--db", db, "--seed", "cli", "--moves", "L R d l")
    state = expected_after("cli", "LRDL")
    assert result.returncode == 0, result.stderr
    assert f"score {state.score} · moves 4" in result.stdout
    assert state.board.pretty() in result.stdout
    shown = run_cli("show", "--db", db, "1", "--json")
    data = json.loads(shown.stdout)
    assert data["moves"] == "LRDL"
    assert data["final_board"] == state.board.to_rows()


@pytest.mark.slow
def test_scripted_play_refuses_a_null_move_and_keeps_the_ones_before(db: str) -> None:
    state = GameState.new("null-1")  # UP does nothing on this opening
    down = "D" if state.board.slide(Direction.DOWN).changed else "L"
    result = run_cli(
        "play", "--db", db, "--seed", "null-1", "--moves", f"{down}UUUUUUUUUUUUUUUUUUUU"
    )
    assert result.returncode == 1
    assert "refused" in result.stderr
    assert "Traceback" not in result.stderr
    listed = json.loads(run_cli("list", "--db", db, "--json").stdout.splitlines()[0])
    assert listed["moves"] >= 1
    log = json.loads(run_cli("show", "--db", db, "1", "--json").stdout)["moves"]
    assert log.startswith(down)
    assert Record("null-1", log, 0).moves == log


@pytest.mark.slow
def test_play_resumes_the_latest_unfinished_game(db: str) -> None:
    run_cli("play", "--db", db, "--seed", "first", "--moves", "L")
    state = expected_after("first", "L")
    second = next(ch for ch in "UDLR" if state.board.slide(Direction(ch)).changed)
    result = run_cli("play", "--db", db, "--moves", second)
    assert result.returncode == 0
    assert "game 1 " in result.stdout
    new = run_cli("play", "--db", db, "--new", "--moves", "")
    assert "game 2 " in new.stdout


def test_bad_moves_letter_and_conflicting_options_are_usage_errors(db: str) -> None:
    result = run_cli("play", "--db", db, "--moves", "LXR")
    assert result.returncode == 2
    assert "position 2" in result.stderr
    result = run_cli("play", "--db", db, "--game", "1", "--new", "--moves", "L")
    assert result.returncode == 2
    assert "cannot be combined" in result.stderr


@pytest.mark.slow
def test_unknown_game_exits_1(db: str) -> None:
    for args in (["show", "42"], ["export", "42"], ["play", "--game", "42", "--moves", "L"]):
        result = run_cli(*args, "--db", db)
        assert result.returncode == 1, args
        assert result.stderr.strip() == "twenty48: error: no game with id 42"


@pytest.mark.slow
def test_unusable_databases_exit_2(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00garbage" * 1000)
    foreign = tmp_path / "foreign.db"
    connection = sqlite3.connect(foreign)
    connection.execute("CREATE TABLE x (a)")
    connection.commit()
    connection.close()
    before = foreign.read_bytes()
    cases = {
        str(garbage): "not an SQLite database",
        str(foreign): "not a twenty48-replay database",
        str(tmp_path / "no" / "such" / "dir.db"): "does not exist",
        str(tmp_path): "is a directory",
    }
    for path, message in cases.items():
        result = run_cli("list", "--db", path)
        assert result.returncode == 2, (path, result.stderr)
        assert message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert foreign.read_bytes() == before


def test_env_var_and_where(tmp_path: Path) -> None:
    path = tmp_path / "env.sqlite3"
    result = run_cli("where", env={"TWENTY48_DB": str(path)})
    assert result.stdout.strip() == str(path)
    assert path.exists()


@pytest.mark.slow
def test_export_import_round_trip_through_files(db: str, tmp_path: Path) -> None:
    run_cli("play", "--db", db, "--seed", "round", "--moves", "LDLDLDRD")
    imported = run_cli("import", "--db", db, str(EXAMPLES / "games.jsonl"))
    assert imported.returncode == 0, imported.stderr
    assert "6 imported" in imported.stderr
    # Every JSON Lines record is named by its line, as verify names it.
    assert imported.stdout.splitlines() == [
        f"{EXAMPLES / 'games.jsonl'}:{line}: imported as game {line + 1}" for line in range(1, 7)
    ]
    again = run_cli("import", "--db", db, str(EXAMPLES / "games.jsonl"))
    assert "6 duplicates skipped" in again.stderr
    out = tmp_path / "all.jsonl"
    assert run_cli("export", "--db", db, "--all", "-o", str(out)).returncode == 0
    other = str(tmp_path / "other.sqlite3")
    assert run_cli("import", "--db", other, str(out)).returncode == 0
    first = out.read_text().splitlines()
    second = run_cli("export", "--db", other, "--all").stdout.splitlines()
    assert first == second
    verified = run_cli("verify", str(out))
    assert verified.returncode == 0


def test_import_reports_each_rejected_record(db: str) -> None:
    result = run_cli(
        "import",
        "--db",
        db,
        str(EXAMPLES / "valid.json"),
        str(EXAMPLES / "tampered-score.json"),
        str(EXAMPLES / "malformed-score-float.json"),
    )
    assert result.returncode == 2
    assert "tampered-score.json: INVALID, not imported: claimed score" in result.stderr
    assert "malformed-score-float.json:1: field 'score'" in result.stderr  # SPEC 8.5: index 1
    assert "1 imported" in result.stderr
    listed = run_cli("list", "--db", db, "--json").stdout.splitlines()
    assert len(listed) == 1


@pytest.mark.slow
def test_check_detects_a_tampered_projection(db: str) -> None:
    run_cli("play", "--db", db, "--seed", "check", "--moves", "LDLD")
    assert run_cli("check", "--db", db).returncode == 0
    connection = sqlite3.connect(db)
    connection.execute("UPDATE games SET score = score + 2")
    connection.commit()
    connection.close()
    result = run_cli("check", "--db", db, "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["healthy"] is False
    assert any("projection score" in p for p in report["problems"])


@pytest.mark.slow
def test_list_and_stats(db: str) -> None:
    run_cli("import", "--db", db, str(EXAMPLES / "games.jsonl"))
    run_cli("play", "--db", db, "--seed", "live", "--moves", "LD")
    listed = [json.loads(x) for x in run_cli("list", "--db", db, "--json").stdout.splitlines()]
    assert len(listed) == 7
    unfinished = run_cli("list", "--db", db, "--state", "unfinished", "--json").stdout.splitlines()
    assert json.loads(unfinished[0])["seed"] == "live"  # most recent first
    assert len(unfinished) == sum(1 for g in listed if not g["over"])
    stats = json.loads(run_cli("stats", "--db", db, "--json").stdout)
    assert stats["games"] == 7
    assert stats["best_score"] == max(g["score"] for g in listed)
    assert sum(stats["max_tiles"].values()) == 7
    text = run_cli("stats", "--db", db).stdout
    assert "best score" in text


@pytest.mark.slow
def test_a_database_path_that_is_not_a_regular_file_is_refused_and_kept(tmp_path: Path) -> None:
    """A FIFO (like a device) reports size 0: it counted as a new database and a fresh
    one was renamed over it (as root, ``--db /dev/null`` replaced the device node)."""
    import os
    import socket
    import stat

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock_path))
    try:
        for target, kind in ((fifo, stat.S_ISFIFO), (sock_path, stat.S_ISSOCK)):
            for command in (("list",), ("play", "--new", "--moves", "L"), ("check",)):
                result = run_cli(*command, "--db", str(target), timeout=30)
                assert result.returncode == 2, result.stderr
                assert "not a regular file" in result.stderr
                assert kind(os.lstat(target).st_mode)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "sock"]
    finally:
        listener.close()


@pytest.mark.slow
def test_side_files_that_are_not_regular_files_are_refused(db: str, tmp_path: Path) -> None:
    """A FIFO named like the database's -journal hung every command (SQLite opened it
    to look for a hot journal); a -wal link would lead SQLite's writes elsewhere."""
    import os

    assert run_cli("play", "--new", "--seed", "s", "--moves", "U", "--db", db).returncode == 0
    journal = Path(db + "-journal")
    os.mkfifo(journal)
    for command in (("list",), ("play", "--moves", "R")):
        result = run_cli(*command, "--db", db, timeout=30)
        assert result.returncode == 2, result.stderr
        assert "cli.sqlite3-journal next to it is not a regular file" in result.stderr
    journal.unlink()
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    Path(db + "-wal").symlink_to(victim)
    result = run_cli("play", "--moves", "R", "--db", db, timeout=30)
    assert result.returncode == 2, result.stderr
    assert "-wal next to it is not a regular file" in result.stderr
    assert victim.read_bytes() == b"precious"


@pytest.mark.slow
def test_a_database_reached_through_a_link_is_made_where_the_link_leads(tmp_path: Path) -> None:
    target = tmp_path / "real.sqlite3"
    target.touch()
    link = tmp_path / "link.sqlite3"
    link.symlink_to(target)
    assert (
        run_cli("play", "--new", "--seed", "s", "--moves", "U", "--db", str(link)).returncode == 0
    )
    assert link.is_symlink()
    assert target.read_bytes()[:15] == b"SQLite format 3"
    dangling = tmp_path / "dangling.sqlite3"
    dangling.symlink_to(tmp_path / "nowhere" / "x.sqlite3")
    result = run_cli("list", "--db", str(dangling))
    assert result.returncode == 2
    assert "symbolic link to nothing" in result.stderr


@pytest.mark.slow
def test_a_plain_path_is_the_file_name_whatever_it_holds(tmp_path: Path) -> None:
    """'?' and '%' in a plain path were read as URL syntax: the checks ran on one file
    and SQLite opened another ('g?mode=memory&uri=true' played into an in-memory database,
    'b%41' wrote to 'bA')."""
    for name in ("g?mode=memory&uri=true", "b%41", "c#d"):
        path = tmp_path / name
        played = run_cli("play", "--new", "--seed", "s", "--moves", "U", "--db", str(path))
        assert played.returncode == 0, played.stderr
        listed = run_cli("list", "--json", "--db", str(path))
        assert listed.returncode == 0, listed.stderr
        assert len(listed.stdout.splitlines()) == 1
        assert path.read_bytes()[:15] == b"SQLite format 3"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b%41", "c#d", "g?mode=memory&uri=true"]


def test_options_in_an_sqlite_url_are_refused(tmp_path: Path) -> None:
    """The file checks work on the path; options could open another database or drop locks."""
    url = f"sqlite:///{tmp_path / 'g.sqlite3'}?uri=true&nolock=1"
    result = run_cli("play", "--new", "--moves", "L", "--db", url)
    assert result.returncode == 2
    assert "options in an SQLite URL (nolock, uri) are not supported" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_giant_stored_value_is_refused_not_loaded(db: str) -> None:
    """SQLite allows 1 GB values and does not enforce VARCHAR(n); a 100 MB player made
    ``show`` take about 5x the file in memory.  Every connection caps values at 64 MiB.

    ``play --game 1``: the game with the giant name is asked for by id.  A plain ``play``
    resumes the current player's own game, which the player index finds without reading
    another player's name, so it starts a new game and reads no giant value."""
    assert run_cli("play", "--new", "--seed", "s", "--moves", "U", "--db", db).returncode == 0
    connection = sqlite3.connect(db)
    connection.execute("UPDATE games SET player = printf('%.*c', 70000000, 'x')")
    connection.commit()
    connection.close()
    for command in (("list",), ("show", "1"), ("export", "1"), ("play", "--game", "1", "-m", "R")):
        result = run_cli(*command, "--db", db)
        assert result.returncode == 2, (command, result.stderr[-300:])
        assert "a stored value is over 64 MiB" in result.stderr
        assert len(result.stderr.splitlines()) == 1
    checked = run_cli("check", "--db", db)
    assert checked.returncode == 1
    assert "a stored value is over 64 MiB" in checked.stdout + checked.stderr


def test_check_reads_rows_only_from_tables(db: str) -> None:
    """``check`` opens files that are refused for use; a recursive view named ``moves``
    made it loop for ever."""
    assert run_cli("play", "--new", "--seed", "s", "--moves", "U", "--db", db).returncode == 0
    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("ALTER TABLE moves RENAME TO old_moves")
    connection.execute(
        "CREATE VIEW moves AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
        "SELECT 1 AS game_id, x AS seq, 'U' AS direction, 0 AS played_ms FROM c"
    )
    connection.close()
    result = run_cli("check", "--db", db, timeout=30)
    assert result.returncode == 1, result.stderr
    assert "games not read: not a table in this database: moves" in result.stdout
    assert "unexpected view moves" in result.stdout


def _hot_journal(original: bytes, page_size: int, pages: list[int]) -> bytes:
    """An SQLite rollback journal that restores ``pages`` (1-based) of ``original``."""
    import struct

    nonce = 0x12345678
    header = bytes.fromhex("d9d505f920a163d7") + struct.pack(
        ">IIIII", len(pages), nonce, len(original) // page_size, 512, page_size
    )
    records = b""
    for number in pages:
        data = original[(number - 1) * page_size : number * page_size]
        checksum = nonce + sum(data[i] for i in range(page_size - 200, 0, -200))
        records += struct.pack(">I", number) + data + struct.pack(">I", checksum & 0xFFFFFFFF)
    return header.ljust(512, b"\0") + records


@pytest.mark.slow
def test_a_rollback_journal_next_to_the_database_is_refused(db: str, tmp_path: Path) -> None:
    """The checks read the main file alone; the first writing connection then rolled the
    journal back into it: a hand-made journal put back a trigger, which ran on the first move
    (the game's score became 999999)."""
    assert run_cli("play", "--new", "--seed", "s", "--moves", "U", "--db", db).returncode == 0
    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("PRAGMA journal_mode = DELETE")
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    clean = Path(db).read_bytes()
    connection.execute(
        "CREATE TRIGGER t AFTER INSERT ON moves BEGIN UPDATE games SET score = 999999; END"
    )
    connection.close()
    hostile = Path(db).read_bytes()
    pages = range(0, len(hostile), page_size)
    changed = [
        start // page_size + 1
        for start in pages
        if hostile[start : start + page_size] != clean[start : start + page_size]
    ]
    Path(db).write_bytes(clean)
    Path(db + "-journal").write_bytes(_hot_journal(hostile, page_size, changed))
    for command in (("play", "--moves", "R"), ("list",), ("check",)):
        result = run_cli(*command, "--db", db)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert "holds a rollback journal" in result.stderr
    assert Path(db).read_bytes() == clean
