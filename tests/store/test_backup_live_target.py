"""``twenty48 backup`` never writes over a live database: restoring is a step of its own.

``backup --db COPY -o LIVE --force`` used to rename a copy over the database a
running ``serve`` had open: exit 0, and the server went on with its ``-wal``
beside another database (malformed, acknowledged games lost).  Now a target
with a ``-wal``/``-shm``/``-journal`` beside it (a server has it open, or one
stopped without closing it) is refused, with or without ``--force``, and the
live database is left as it was: a real ``serve`` keeps playing on it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from support.common import run_cli
from support.server_client import play_some
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client, RemoteGame


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def _moves(db: Path) -> dict[int, int]:
    """Fair game id -> moves stored, read from the file as it is on disk."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(
            connection.execute(
                "SELECT f.id, g.move_count FROM fair_games f JOIN games g ON g.id = f.game_id"
            ).fetchall()
        )
    finally:
        connection.close()


@pytest.mark.slow
def test_backup_refuses_the_database_a_running_serve_has_open(tmp_path: Path) -> None:
    live = tmp_path / "live" / "games.sqlite3"
    live.parent.mkdir()
    copy = tmp_path / "backups" / "games-copy.sqlite3"
    copy.parent.mkdir()
    with ServerProcess(str(live), tmp_path, "--no-analysis") as server:
        first = RemoteGame(Client(server.url), "ann")
        play_some(first, 6)
        first.finish()
        taken = run_cli("backup", "--db", str(live), "-o", str(copy))
        assert taken.returncode == 0, taken.stderr
        later = RemoteGame(Client(server.url), "bob")  # acknowledged after the backup
        play_some(later, 6)
        before = live.stat().st_ino

        for extra in ((), ("--force",)):
            result = run_cli("backup", "--db", str(copy), "-o", str(live), *extra)
            assert result.returncode == 2, result.stdout + result.stderr
            (line,) = result.stderr.strip().splitlines()
            assert "live database" in line
            assert f"{live}-" in line  # names the side file it found
            assert "Restoring" in line
            assert "Traceback" not in result.stderr
        assert live.stat().st_ino == before  # not renamed over
        assert not [p for p in live.parent.iterdir() if p.name.endswith(".part")]

        # The server never noticed: it goes on with the same game and a new one.
        play_some(later, 12)
        last = RemoteGame(Client(server.url), "cy")
        play_some(last, 4)
        acknowledged = {first.id: first.state.moves, later.id: later.state.moves}
        acknowledged[last.id] = last.state.moves
    checked = run_cli("check", "--db", str(live))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert _moves(live) == acknowledged


@pytest.mark.slow
def test_backup_refuses_a_database_left_open_by_a_killed_server(tmp_path: Path) -> None:
    """After a crash the -wal may hold acknowledged moves: replacing the file beside it is
    refused too, and the database then opens with every acknowledged move."""
    live = tmp_path / "games.sqlite3"
    copy = tmp_path / "copy.sqlite3"
    server = ServerProcess(str(live), tmp_path, "--no-analysis").start()
    try:
        game = RemoteGame(Client(server.url), "ann")
        play_some(game, 5)
        assert run_cli("backup", "--db", str(live), "-o", str(copy)).returncode == 0
        play_some(game, 9)
    finally:
        server.kill()
    assert os.path.exists(f"{live}-wal")
    result = run_cli("backup", "--db", str(copy), "-o", str(live), "--force")
    assert result.returncode == 2, result.stderr
    assert "live database" in result.stderr
    assert run_cli("check", "--db", str(live)).returncode == 0
    assert _moves(live) == {game.id: game.state.moves}


def test_an_old_backup_is_still_replaced_with_force(tmp_path: Path) -> None:
    """A closed database (no side files) is an ordinary file: --force replaces it."""
    db = tmp_path / "g.sqlite3"
    assert run_cli("where", "--db", str(db)).returncode == 0
    old = tmp_path / "old.sqlite3"
    assert run_cli("backup", "--db", str(db), "-o", str(old)).returncode == 0
    again = run_cli("backup", "--db", str(db), "-o", str(old), "--force")
    assert again.returncode == 0, again.stderr


@pytest.mark.slow
def test_backup_names_the_key_file_the_deployment_uses_also_after_a_rotation(
    tmp_path: Path,
) -> None:
    """As the systemd unit runs it (``--key server-key.pem``), and after a rotation to a new
    file: backup names the file that holds the key, never a default file that does not exist;
    ``--key`` is checked to hold the database's key."""
    live = tmp_path / "games.sqlite3"
    first, rotated = tmp_path / "server-key.pem", tmp_path / "server-key-2027.pem"
    with ServerProcess(str(live), tmp_path, "--no-analysis", "--key", str(first)) as server:
        old_id = RemoteGame(Client(server.url), "ann").finish()["fair"]["key_id"]
    said = run_cli("backup", "--db", str(live), "-o", str(tmp_path / "b1.sqlite3"))
    assert said.returncode == 0, said.stderr
    assert f"key file {first} (key {old_id}" in said.stderr
    assert "games.sqlite3.server-key.pem" not in said.stderr

    rotation = ("--no-analysis", "--key", str(rotated), "--rotate-key")
    with ServerProcess(str(live), tmp_path, *rotation) as server:
        new_id = RemoteGame(Client(server.url), "bob").finish()["fair"]["key_id"]
    assert new_id != old_id
    said = run_cli("backup", "--db", str(live), "-o", str(tmp_path / "b2.sqlite3"))
    assert said.returncode == 0, said.stderr
    assert f"key file {rotated} (key {new_id}" in said.stderr
    assert str(first) not in said.stderr  # the retired key's file is not the one to keep
    checked = run_cli(
        "backup", "--db", str(live), "--key", str(rotated), "-o", str(tmp_path / "b3.sqlite3")
    )
    assert checked.returncode == 0, checked.stderr
    assert f"key file {rotated} (key {new_id}" in checked.stderr
    wrong = run_cli(
        "backup", "--db", str(live), "--key", str(first), "-o", str(tmp_path / "b4.sqlite3")
    )
    assert wrong.returncode == 2, wrong.stderr
    assert old_id in wrong.stderr
    assert new_id in wrong.stderr
    assert not (tmp_path / "b4.sqlite3").exists()

    # Nowhere beside the database (the key lives elsewhere): says so, with the key id.
    rotated.rename(tmp_path / "elsewhere.key")
    said = run_cli("backup", "--db", str(live), "-o", str(tmp_path / "b5.sqlite3"))
    assert said.returncode == 0, said.stderr
    assert f"holding key {new_id}" in said.stderr
    assert "--key" in said.stderr
