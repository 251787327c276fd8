"""The server's keys (issue 18, section 5): a real ``twenty48 serve``, real HTTP, real CLI,
SQLite and PostgreSQL.

The database remembers every key it signed with; ``serve`` refuses a missing or
different key file while it holds signed records, unless ``--rotate-key``; the
well-known document lists the current and retired keys with their periods and
revocations; ``verify --trust URL`` accepts a record of a retired key signed in
its period and refuses one of a revoked key, with the reason.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from support.common import run_cli
from support.leaks import assert_no_leak, private_key_forms
from support.pg import fresh_database
from support.server_client import play_some
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client, RemoteGame, ServerError
from twenty48_replay.fairplay.keyset import read_key_set
from twenty48_replay.fairplay.signing import ServerKey
from twenty48_replay.store.legacy import metadata_v2
from twenty48_replay.store.tables import metadata
from twenty48_replay.store.upgrade import V5_INDEXES


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every server and command of these tests keeps its files in the test's folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def finished_record(url: str, player: str, moves: int = 6) -> dict[str, Any]:
    """One fair game played and finished on the server at ``url``; its signed record."""
    client = Client(url)
    game = RemoteGame(client, player)
    play_some(game, moves)
    record = game.finish()
    client.close()
    return record


def verify_json(url: str, *records: dict[str, Any], folder: Path) -> list[dict[str, Any]]:
    """``twenty48 verify --json --trust URL`` of the records; one result each."""
    files = []
    for index, record in enumerate(records):
        path = folder / f"record-{index}-{os.getpid()}.json"
        path.write_text(json.dumps(record))
        files.append(str(path))
    result = run_cli("verify", "--json", "--trust", url, *files)
    assert result.returncode in (0, 1), result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def serve_refused(db: str, *args: str) -> str:
    """``twenty48 serve`` that must refuse to start: its one line (exit 2, no traceback)."""
    result = run_cli("serve", "--db", db, "--port", "1", "--no-analysis", *args, timeout=60)
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def default_key(db: str, tmp_path: Path) -> Path:
    """Where serve keeps its key without --key: beside an SQLite file, else the data folder."""
    if "://" in db:
        return tmp_path / "xdg" / "twenty48-replay" / "twenty48-server.server-key.pem"
    return Path(db + ".server-key.pem")


@pytest.mark.slow
def test_rotation_and_revocation_end_to_end(db: str, tmp_path: Path) -> None:
    """Sign, refuse a lost or foreign key, rotate, verify old and new, revoke, verify again."""
    said: list[str | bytes] = []  # every answer, log and command output, scanned at the end
    with ServerProcess(db, tmp_path, "--no-analysis") as first:
        old_record = finished_record(first.url, "ann")
        document = Client(first.url).key()
        said += [first.log_text(), json.dumps(document), json.dumps(old_record)]
    old_key = old_record["fair"]["key_id"]
    assert document["key_id"] == old_key
    (entry,) = document["keys"]
    assert entry["until"] is None
    assert entry["from"] <= old_record["fair"]["ended"]
    key_file = default_key(db, tmp_path)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    # A different key file, or none, while the database holds signed records: refused.
    other = tmp_path / "other.pem"
    other.write_bytes(ServerKey.generate().private_pem())
    other.chmod(0o600)
    other_id = ServerKey.load(other).key_id
    line = serve_refused(db, "--key", str(other))
    said.append(line)
    assert other_id in line
    assert old_key in line
    assert "--rotate-key" in line
    moved = tmp_path / "kept-away.pem"
    key_file.rename(moved)
    line = serve_refused(db)
    said.append(line)
    assert "missing" in line
    assert old_key in line
    assert "--rotate-key" in line
    assert not key_file.exists()  # a refused start makes no key
    moved.rename(key_file)
    # --rotate-key with the key in use is refused too (left in a unit file, it would
    # accept the next lost key silently).
    assert "already" in serve_refused(db, "--rotate-key")

    # Rotation: a new key file (made, 0600), the old key retired and still published.
    new_file = tmp_path / "new-key.pem"
    rotated = ServerProcess(db, tmp_path, "--no-analysis", "--key", str(new_file), "--rotate-key")
    with rotated:
        assert stat.S_IMODE(new_file.stat().st_mode) == 0o600
        new_key = ServerKey.load(new_file).key_id
        assert f"key {old_key} retired" in rotated.log_text()
        published = Client(rotated.url).key()
        assert published["key_id"] == new_key
        keys = {k["key_id"]: k for k in published["keys"]}
        assert keys[new_key]["until"] is None
        assert keys[old_key]["until"] == keys[new_key]["from"]
        assert read_key_set(published).listed
        new_record = finished_record(rotated.url, "bob")
        assert new_record["fair"]["key_id"] == new_key
        old_verdict, new_verdict = verify_json(rotated.url, old_record, new_record, folder=tmp_path)
        assert (old_verdict["fair"], new_verdict["fair"]) == ("fair", "fair"), (
            old_verdict,
            new_verdict,
        )
        # The replay page of the old game trusts every published key, the retired one too.
        status, page = _get_text(rotated.url, "/games/1")
        said += [page, json.dumps(published), json.dumps(new_record)]
        assert status == 200
        assert old_key in page
        assert new_key in page

        # Revocation, by the operator's command on the same database while serving.
        refused = run_cli("admin", "revoke-key", new_key, "--reason", "x", "--db", db)
        assert refused.returncode == 1
        assert "key in use" in refused.stderr
        revoked = run_cli(
            "admin", "revoke-key", old_key, "--reason", "copied off the old host", "--db", db
        )
        assert revoked.returncode == 0, revoked.stderr
        published = Client(rotated.url).key()  # the very next answer publishes it
        keys = {k["key_id"]: k for k in published["keys"]}
        assert keys[old_key]["revoked"] is True
        assert keys[old_key]["reason"] == "copied off the old host"
        old_verdict, new_verdict = verify_json(rotated.url, old_record, new_record, folder=tmp_path)
        assert old_verdict["fair"] == "not fair"
        assert old_verdict["valid"] is False
        assert "revoked: copied off the old host" in old_verdict["reasons"][0]
        assert new_verdict["fair"] == "fair"
        said += [refused.stdout, refused.stderr, revoked.stdout, revoked.stderr]
        said += [json.dumps(Client(rotated.url).key()), rotated.log_text()]

    again = run_cli("admin", "revoke-key", old_key, "--reason", "twice", "--db", db)
    assert again.returncode == 1
    assert "revoked already" in again.stderr
    unknown = run_cli("admin", "revoke-key", "0123456789abcdef", "--reason", "who", "--db", db)
    assert unknown.returncode == 1
    assert "no key 0123456789abcdef" in unknown.stderr
    for bad in (["NOTAKEYID"], [old_key, "--reason", ""], [old_key, "--reason", "a\x1bb"]):
        if len(bad) == 1:
            bad = [*bad, "--reason", "r"]
        usage = run_cli("admin", "revoke-key", *bad, "--db", db)
        assert usage.returncode == 2, (bad, usage.stderr)
    listing = run_cli("admin", "keys", "--db", db, "--json")
    assert listing.returncode == 0, listing.stderr
    keys = {k["key_id"]: k for k in json.loads(listing.stdout)["keys"]}
    assert keys[new_key]["until"] is None
    assert keys[old_key]["revoked"] is True
    human = run_cli("admin", "keys", "--db", db)
    said += [again.stderr, unknown.stderr, listing.stdout, human.stdout, human.stderr]
    assert "in use" in human.stdout
    assert "revoked: copied off the old host" in human.stdout

    # A retired (here revoked) key never comes back, rotation or not.
    for extra in ([], ["--rotate-key"]):
        line = serve_refused(db, "--key", str(key_file), *extra)
        said.append(line)
        assert old_key in line
        assert "one period only" in line
    # Neither private key, in any encoding, in anything the server or a command said.
    secrets = [
        *private_key_forms(ServerKey.load(key_file)),
        *private_key_forms(ServerKey.load(new_file)),
    ]
    assert_no_leak(said, secrets)


@pytest.mark.slow
def test_the_key_history_is_append_only(db: str, tmp_path: Path) -> None:
    """The database itself refuses to change or delete a key event (as for the move log)."""
    with ServerProcess(db, tmp_path, "--no-analysis") as running:
        finished_record(running.url, "cy", 2)
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        for statement in (
            "UPDATE key_events SET key_id = 'ffffffffffffffff'",
            "DELETE FROM key_events",
        ):
            with (
                pytest.raises(Exception, match="key history is append-only"),
                engine.begin() as connection,
            ):
                connection.execute(text(statement))
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT seq, event FROM key_events")).all()
    finally:
        engine.dispose()
    assert [tuple(row) for row in rows] == [(1, "current")]


@pytest.mark.slow
def test_no_signed_records_no_refusal(tmp_path: Path) -> None:
    """A key change before anything was signed is recorded as a rotation, not refused."""
    db = str(tmp_path / "fresh.sqlite3")
    with ServerProcess(db, tmp_path, "--no-analysis") as running:
        first_key = Client(running.url).key()["key_id"]
    Path(db + ".server-key.pem").unlink()
    with ServerProcess(db, tmp_path, "--no-analysis") as running:
        document = Client(running.url).key()
    assert document["key_id"] != first_key
    assert [k["key_id"] for k in document["keys"]] == [document["key_id"], first_key]
    # --rotate-key on a database that has no key yet: nothing to rotate, nothing created.
    empty = tmp_path / "empty.sqlite3"
    line = serve_refused(str(empty), "--rotate-key")
    assert "nothing to rotate" in line
    assert not empty.exists()


@pytest.fixture
def pg_db() -> Iterator[str]:
    yield from fresh_database()


@pytest.mark.slow
def test_a_rotation_elsewhere_stops_signing_here(pg_db: str, tmp_path: Path) -> None:
    """Two servers on one PostgreSQL database: after the second rotates, the first refuses
    to sign (503, nothing stored) and says so at /readyz, instead of signing with a retired key."""
    db = pg_db
    first = ServerProcess(db, tmp_path, "--no-analysis")
    with first:
        client = Client(first.url, retries=0)
        game = RemoteGame(client, "dee")
        play_some(game, 3)
        new_file = tmp_path / "rotated.pem"
        with ServerProcess(
            db, tmp_path, "--no-analysis", "--key", str(new_file), "--rotate-key"
        ) as second:
            assert Client(second.url).key()["key_id"] == ServerKey.load(new_file).key_id
        # A fresh connection: the first one idled past uvicorn's keep-alive timeout (5 s)
        # while the second server started.
        with pytest.raises(ServerError) as refused:
            Client(first.url, retries=0).finish(game.id, game.token)
        assert "rotated by another process" in str(refused.value)
        assert Client(first.url).game(game.id)["finished"] is False
        status, answer = _get(first.url, "/readyz")
        assert status == 503
        assert "rotated by another process" in answer["error"]
    # The first server's key file cannot start it again: its key is retired.
    line = serve_refused(db)
    assert "one period only" in line


def _get_text(url: str, path: str) -> tuple[int, str]:
    import http.client

    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("GET", path, headers={"Accept": "text/html"})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


def _get(url: str, path: str) -> tuple[int, Any]:
    status, body = _get_text(url, path)
    return status, json.loads(body)


@pytest.mark.slow
def test_a_version_2_database_with_signed_records_is_upgraded(db: str, tmp_path: Path) -> None:
    """Schema 2 knew no key history: the next serve records the key file's key from the first
    game it signed, so old records verify with the URL; another key file is refused."""
    backend = "postgresql" if "://" in db else "sqlite"
    with ServerProcess(db, tmp_path, "--no-analysis") as running:
        record = finished_record(running.url, "eve")
    # Back to exactly version 2: none of version 3's tables (no key history, and on
    # PostgreSQL no trigger function).
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    with engine.begin() as connection:
        for table in reversed(metadata.sorted_tables):  # every table version 3 added
            if table.name not in metadata_v2.tables:
                connection.execute(text(f"DROP TABLE {table.name}"))
        for _table, index in V5_INDEXES:  # version 5's indexes on version 2's tables
            connection.execute(text(f"DROP INDEX {index}"))
        if backend == "postgresql":
            connection.execute(text("DROP FUNCTION twenty48_key_events_append_only()"))
            connection.execute(text("DROP FUNCTION twenty48_moderation_append_only()"))
        connection.execute(
            text("UPDATE twenty48_meta SET value = '2' WHERE key = 'schema_version'")
        )
    engine.dispose()
    checked = run_cli("check", "--db", db)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    other = tmp_path / "other.pem"
    other.write_bytes(ServerKey.generate().private_pem())
    other.chmod(0o600)
    line = serve_refused(db, "--key", str(other))
    assert record["fair"]["key_id"] in line
    with ServerProcess(db, tmp_path, "--no-analysis") as running:
        document = Client(running.url).key()
        (entry,) = document["keys"]
        assert entry["key_id"] == record["fair"]["key_id"]
        assert entry["from"] <= record["fair"]["started"]
        (verdict,) = verify_json(running.url, record, folder=tmp_path)
        assert verdict["fair"] == "fair", verdict
    assert run_cli("check", "--db", db).returncode == 0


@pytest.mark.parametrize(
    ("command", "danish", "english"),
    [
        ([], "Driv en pointserver", "Run a score server"),
        (["keys"], "Hver nøgle, serveren har underskrevet med", "Every key the server has signed"),
        (
            ["revoke-key"],
            "Markér en udskiftet nøgle som tilbagekaldt",
            "Mark a retired key revoked",
        ),
    ],
)
def test_admin_help_is_danish_in_danish(command: list[str], danish: str, english: str) -> None:
    wide = {"COLUMNS": "200"}
    result = run_cli("--lang", "da", "admin", *command, "--help", env=wide)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.replace("│", " ").split())
    assert danish in text
    assert english not in text
    assert "Tilvalg" in text
    if command:
        assert "Eksempler:" in text
        assert f"twenty48 admin {command[0]}" in text
    english_help = run_cli("admin", *command, "--help", env=wide)
    assert english in " ".join(english_help.stdout.replace("│", " ").split())
