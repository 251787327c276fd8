"""``twenty48 backup`` (issue 18, section 6): a consistent copy of a live SQLite database.

Taken while a real ``twenty48 serve`` keeps committing moves, restored (the copy
plus the key file) under a new server, and checked there: the schema and every
game (``twenty48 check``), every signed record with ``verify --trust URL``, and
no acknowledged move of the moment of the copy missing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url
from support.common import run_cli
from support.leaks import assert_no_leak, private_key_forms
from support.pg import fresh_database
from support.server_client import play_some
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.fairplay.signing import ServerKey


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def pg_db() -> Iterator[str]:
    yield from fresh_database()


@pytest.mark.slow
def test_backup_while_serving_then_restore_and_verify(tmp_path: Path) -> None:
    live = tmp_path / "live" / "games.sqlite3"
    live.parent.mkdir()
    copy = tmp_path / "backups" / "games-copy.sqlite3"
    copy.parent.mkdir()
    records = []
    with ServerProcess(str(live), tmp_path, "--no-analysis") as server:
        for player in ("ann", "bob"):
            client = Client(server.url)
            game = RemoteGame(client, player)
            play_some(game, 8)
            records.append(game.finish())
        acknowledged: dict[int, int] = {}
        stop = threading.Event()

        def keep_playing(player: str) -> None:
            client = Client(server.url)
            game = RemoteGame(client, player)
            while not stop.is_set() and not game.finished:
                play_some(game, game.state.moves + 1)
                acknowledged[game.id] = game.state.moves

        players = [threading.Thread(target=keep_playing, args=(p,)) for p in ("cy", "dee")]
        for thread in players:
            thread.start()
        try:
            while len(acknowledged) < 2 or min(acknowledged.values()) < 5:
                threading.Event().wait(0.05)
            before = dict(acknowledged)
            result = run_cli("backup", "--db", str(live), "-o", str(copy))
            after = dict(acknowledged)
        finally:
            stop.set()
            for thread in players:
                thread.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert "backed up" in result.stdout
    assert "signing key is not in the copy" in result.stderr
    assert str(live) + ".server-key.pem" in result.stderr
    # It names the key the database signs with: serve's --key may be any file.
    assert f"(key {records[0]['fair']['key_id']}" in result.stderr
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert not list(copy.parent.glob(".*part*"))  # no temporary file left
    assert not Path(str(copy) + "-wal").exists()

    # The copy is one moment: every move acknowledged before the backup began is in it,
    # nothing after the backup ended, and each game's log agrees with its projection.
    connection = sqlite3.connect(copy)
    counts = dict(
        connection.execute(
            "SELECT f.id, g.move_count FROM fair_games f JOIN games g ON g.id = f.game_id"
        ).fetchall()
    )
    connection.close()
    for fair_id in before:
        assert before[fair_id] <= counts[fair_id] <= after[fair_id] + 1, (counts, before, after)
    checked = run_cli("check", "--db", str(copy))
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # Restore: the copy and the key file, in place of the lost originals.
    restored = tmp_path / "restored" / "games.sqlite3"
    restored.parent.mkdir()
    shutil.copy2(copy, restored)
    # Without its key file the restored database is refused loudly: one line naming the
    # key its records were signed with and the file it looked for, exit 2, and no new key
    # made (a new key would make every old record fail verify --trust URL as not fair).
    restored_key = Path(str(restored) + ".server-key.pem")
    without_key = run_cli("serve", "--db", str(restored), "--port", "1", timeout=60)
    assert without_key.returncode == 2, without_key.stderr
    (line,) = without_key.stderr.strip().splitlines()
    assert "missing" in line
    assert records[0]["fair"]["key_id"] in line
    assert str(restored_key) in line
    assert "--rotate-key" in line
    assert "Traceback" not in without_key.stderr
    assert not restored_key.exists()
    assert without_key.stdout == ""
    key = ServerKey.load(Path(str(live) + ".server-key.pem"))
    assert_no_leak([result.stdout, result.stderr, line], private_key_forms(key))
    shutil.copy2(str(live) + ".server-key.pem", restored_key)
    with ServerProcess(str(restored), tmp_path, "--no-analysis") as server:
        files = []
        for index, record in enumerate(records):
            path = tmp_path / f"record-{index}.json"
            path.write_text(json.dumps(record))
            files.append(str(path))
        verified = run_cli("verify", "--json", "--trust", server.url, *files)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert [json.loads(line)["fair"] for line in verified.stdout.splitlines()] == [
            "fair",
            "fair",
        ]
        # The restored server serves the games as the copy has them, and goes on.
        client = Client(server.url)
        for fair_id in before:
            assert client.game(fair_id)["moves"] == counts[fair_id]
        fresh = RemoteGame(client, "eve")
        play_some(fresh, 3)
        assert fresh.finish()["fair"]["key_id"] == records[0]["fair"]["key_id"]


@pytest.mark.slow
def test_backup_refusals(tmp_path: Path, pg_db: str) -> None:
    db = tmp_path / "g.sqlite3"
    assert run_cli("where", "--db", str(db)).returncode == 0
    side = Path(str(db) + "-wal")
    link = tmp_path / "link.sqlite3"
    link.symlink_to(db)
    for target in (db, side, link, Path(str(db) + "-shm")):
        result = run_cli("backup", "--db", str(db), "-o", str(target))
        assert result.returncode == 2, (target, result.stderr)
        assert "refusing to write over it" in result.stderr
    existing = tmp_path / "old-backup.sqlite3"
    existing.write_bytes(b"last night")
    result = run_cli("backup", "--db", str(db), "-o", str(existing))
    assert result.returncode == 2
    assert "--force" in result.stderr
    assert existing.read_bytes() == b"last night"
    forced = run_cli("backup", "--db", str(db), "-o", str(existing), "--force")
    assert forced.returncode == 0, forced.stderr
    assert existing.read_bytes().startswith(b"SQLite format 3\x00")
    for name in ("-", str(tmp_path)):
        result = run_cli("backup", "--db", str(db), "-o", name)
        assert result.returncode == 2
    missing = run_cli("backup", "--db", str(db), "-o", str(tmp_path / "no" / "such" / "f"))
    assert missing.returncode == 2
    assert len(missing.stderr.strip().splitlines()) == 1
    postgres = run_cli("backup", "--db", pg_db, "-o", str(tmp_path / "pg.sqlite3"))
    assert postgres.returncode == 2
    assert "pg_dump" in postgres.stderr
    assert not (tmp_path / "pg.sqlite3").exists()
    for result in (postgres, missing):
        assert "Traceback" not in result.stderr


def _libpq(url: str) -> str:
    """The libpq URL of an SQLAlchemy one (pg_dump knows no ``+psycopg``)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.mark.slow
def test_postgresql_backup_with_pg_dump_while_serving_as_the_guide_says(
    tmp_path: Path, pg_db: str
) -> None:
    """docs/operating-keys.md section 7 for PostgreSQL: pg_dump while serve commits moves,
    pg_restore into a new database, twenty48 check, serve with the key, verify --trust URL."""
    tools = [shutil.which(name) for name in ("pg_dump", "pg_restore")]
    if None in tools:
        pytest.skip("pg_dump / pg_restore not installed")
    key_file = tmp_path / "server-key.pem"
    dump = tmp_path / "twenty48.dump"
    with ServerProcess(pg_db, tmp_path, "--no-analysis", "--key", str(key_file)) as server:
        record = RemoteGame(Client(server.url), "ann")
        play_some(record, 6)
        signed = record.finish()
        playing = RemoteGame(Client(server.url), "bob")
        stop = threading.Event()

        def keep_playing() -> None:
            while not stop.is_set() and not playing.finished:
                play_some(playing, playing.state.moves + 1)

        player = threading.Thread(target=keep_playing)
        player.start()
        try:
            while playing.state.moves < 3:
                threading.Event().wait(0.05)
            dumped = subprocess.run(
                ["pg_dump", "--format=custom", f"--file={dump}", _libpq(pg_db)],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        finally:
            stop.set()
            player.join(timeout=60)
    assert dumped.returncode == 0, dumped.stderr

    for restored in fresh_database():
        loaded = subprocess.run(
            ["pg_restore", "--no-owner", "-d", _libpq(restored), str(dump)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert loaded.returncode == 0, loaded.stderr
        checked = run_cli("check", "--db", restored)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        # Without the key file: refused (one line, exit 2); with it, the old record is fair.
        line = run_cli("serve", "--db", restored, "--port", "1", "--key", str(tmp_path / "none"))
        assert line.returncode == 2, line.stderr
        assert signed["fair"]["key_id"] in line.stderr
        with ServerProcess(restored, tmp_path, "--no-analysis", "--key", str(key_file)) as server:
            path = tmp_path / "record.json"
            path.write_text(json.dumps(signed))
            verified = run_cli("verify", "--json", "--trust", server.url, str(path))
            assert verified.returncode == 0, verified.stdout + verified.stderr
            assert json.loads(verified.stdout)["fair"] == "fair"
            assert Client(server.url).game(playing.id)["moves"] >= 3
