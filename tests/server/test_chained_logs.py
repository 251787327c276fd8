"""The moderation log and the key history hold against the database's own owner.

A real server on SQLite and on PostgreSQL, the operator's commands, and an
attacker who owns the database: on SQLite ``INSERT OR REPLACE`` rewrote a
ban into "nobody unban mallory" and erased a key's revocation (REPLACE
deletes without firing delete triggers); on PostgreSQL the tables' owner
disabled the triggers, rewrote the log and enabled them again.  Both left a
database that ``twenty48 check`` called healthy and ``serve`` served.  Now
the triggers refuse REPLACE, a disabled trigger is a schema difference, and
the hash chains show every rewrite made behind them: ``check`` lists it,
``serve`` refuses to start, ``/readyz`` turns 503; a rewrite that recomputed
every hash is found by a head written down earlier (``check --head``).
Last, ``serve`` runs with a PostgreSQL role that owns nothing, granted
exactly what docs/operating.md grants.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url
from support.common import run_cli
from support.pg import fresh_database, server_url
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.fairplay.signing import ServerKey

#: Real serve processes and CLI runs on every test: the slow lane.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HEAD = re.compile(r"--head ((?:key_events|moderation_log):\d+:[0-9a-f]{64})")


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every server and command of these tests keeps its files in the test's folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def is_sqlite(db: str) -> bool:
    return "://" not in db


def cli_ok(*args: str) -> str:
    result = run_cli(*args)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result.stdout


def serve_refused(db: str, *args: str) -> str:
    """``twenty48 serve`` that must refuse to start: its one line (exit 2, no traceback)."""
    result = run_cli("serve", "--db", db, "--port", "1", "--no-analysis", *args, timeout=60)
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def get_json(url: str, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url + path, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def as_owner(db: str, *statements: str) -> None:
    """Statements run as the database's owner, on a connection of its own (the sqlite3 shell)."""
    if is_sqlite(db):
        shell = sqlite3.connect(db, isolation_level=None)
        try:
            for statement in statements:
                shell.execute(statement)
        finally:
            shell.close()
        return
    engine = create_engine(db)
    try:
        with engine.begin() as connection:
            for statement in statements:
                connection.exec_driver_sql(statement)
    finally:
        engine.dispose()


def behind_the_triggers(db: str, *statements: str) -> None:
    """What the owner can do whatever the triggers say: drop them (SQLite) or disable them
    (PostgreSQL), change the logs, and put the triggers back exactly as they were."""
    tables = "('moderation_log', 'key_events')"
    if is_sqlite(db):
        connection = sqlite3.connect(db, isolation_level=None)
        try:
            saved = connection.execute(
                "SELECT name, sql FROM sqlite_master "
                f"WHERE type = 'trigger' AND tbl_name IN {tables}"
            ).fetchall()
            connection.execute("BEGIN IMMEDIATE")
            for name, _sql in saved:
                connection.execute(f"DROP TRIGGER {name}")
            for statement in statements:
                connection.execute(statement)
            for _name, sql in saved:
                connection.execute(sql)
            connection.execute("COMMIT")
        finally:
            connection.close()
        return
    around = ["moderation_log", "key_events"]
    as_owner(
        db,
        *(f"ALTER TABLE {table} DISABLE TRIGGER USER" for table in around),
        *statements,
        *(f"ALTER TABLE {table} ENABLE TRIGGER USER" for table in around),
    )


def check_heads(db: str) -> list[str]:
    """``twenty48 check``'s heads, as ``--head`` takes them back."""
    return HEAD.findall(cli_ok("check", "--db", db))


def key_file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.pem"
    path.write_bytes(ServerKey.generate().private_pem())
    path.chmod(0o600)
    return path


def a_moderated_server(db: str, tmp_path: Path) -> tuple[str, Path]:
    """A server's database: key A used, then rotated to B, A revoked; mallory banned.

    Returns A's key id and B's key file.
    """
    first, second = key_file(tmp_path, "a"), key_file(tmp_path, "b")
    with ServerProcess(db, tmp_path, "--no-analysis", "--key", str(first)):
        pass
    with ServerProcess(db, tmp_path, "--no-analysis", "--key", str(second), "--rotate-key"):
        pass
    old = ServerKey.load(first).key_id
    cli_ok("admin", "revoke-key", old, "--reason", "copied off the old host", "--db", db)
    cli_ok("admin", "ban", "mallory", "--reason", "bot: games 3-9", "--db", db)
    return old, second


def published_key(url: str, key_id: str) -> dict[str, Any]:
    status, document = get_json(url, "/.well-known/twenty48-key")
    assert status == 200
    return next(k for k in document["keys"] if k["key_id"] == key_id)


# ------------------------------------------------------------------ SQLite's REPLACE


def test_insert_or_replace_cannot_rewrite_a_ban_or_erase_a_revocation(tmp_path: Path) -> None:
    db = str(tmp_path / "server.sqlite3")
    old, current = a_moderated_server(db, tmp_path)
    connection = sqlite3.connect(db, isolation_level=None)  # as the sqlite3 shell would
    try:
        for table, where, changes in (
            ("moderation_log", "id = 1", {"actor": "nobody", "action": "unban"}),
            ("key_events", "event = 'revoked'", {"key_id": "ffffffffffffffff"}),
        ):
            cursor = connection.execute(f"SELECT * FROM {table} WHERE {where}")
            columns = [d[0] for d in cursor.description]
            row = dict(zip(columns, cursor.fetchone(), strict=True)) | changes
            marks = ", ".join("?" * len(columns))
            for verb in ("INSERT OR REPLACE", "REPLACE"):
                with pytest.raises(sqlite3.DatabaseError, match="is append-only"):
                    connection.execute(
                        f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                        list(row.values()),
                    )
            sets = ", ".join(f"{name} = excluded.{name}" for name in changes)
            with pytest.raises(sqlite3.DatabaseError, match="is append-only"):
                connection.execute(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}) "
                    f"ON CONFLICT DO UPDATE SET {sets}",
                    list(row.values()),
                )
    finally:
        connection.close()
    log = [json.loads(line) for line in cli_ok("admin", "log", "--json", "--db", db).splitlines()]
    assert [(a["action"], a["player"], a["by"] != "nobody") for a in log] == [
        ("ban", "mallory", True)
    ]
    with ServerProcess(db, tmp_path, "--no-analysis", "--key", str(current)) as server:
        assert published_key(server.url, old)["revoked"] is True


# ------------------------------------------------------------------ behind the triggers


def test_a_rewrite_behind_the_triggers_is_found_by_check_and_serve(db: str, tmp_path: Path) -> None:
    old, current = a_moderated_server(db, tmp_path)
    before = check_heads(db)
    behind_the_triggers(
        db,
        "UPDATE moderation_log SET actor = 'nobody', action = 'unban' WHERE id = 1",
        "DELETE FROM key_events WHERE event = 'revoked'",
    )
    checked = run_cli("check", "--db", db)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "moderation_log: row 1 does not follow the hash chain" in checked.stdout
    assert "key_events: 2 rows ending in" in checked.stdout
    assert "but the recorded head is 3 rows" in checked.stdout
    assert HEAD.findall(checked.stdout) != before
    line = serve_refused(db, "--key", str(current))
    assert "key_events does not end at its recorded head" in line
    assert "'twenty48 check' lists every problem" in line
    assert old  # the revocation serve would otherwise have published as "revoked": false


def test_readyz_publishes_the_heads_and_reports_a_rewrite(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis", "--key", str(key_file(tmp_path, "k"))) as s:
        assert "log heads (write them down" in s.log_text()
        cli_ok("admin", "ban", "mallory", "--reason", "bot", "--db", db)
        deadline = time.monotonic() + 60
        while True:  # the chains are followed again at most every 10 s
            status, ready = get_json(s.url, "/readyz")
            assert status == 200, ready
            if ready["chains"]["moderation_log"]["rows"] == 1:
                break
            assert time.monotonic() < deadline, ready
            time.sleep(0.5)
        published = [
            f"{log}:{head['rows']}:{head['head']}" for log, head in ready["chains"].items()
        ]
        assert sorted(published) == sorted(check_heads(db))
        behind_the_triggers(db, "UPDATE moderation_log SET reason = 'nothing' WHERE id = 1")
        while True:
            status, answer = get_json(s.url, "/readyz")
            if status == 503:
                break
            assert time.monotonic() < deadline + 30, answer
            time.sleep(0.5)
    assert "changed behind the server's back" in answer["error"]
    assert "moderation_log: row 1 does not follow the hash chain" in answer["error"]


def test_a_consistent_rewrite_is_found_by_a_head_written_down(db: str, tmp_path: Path) -> None:
    """An attacker who knows the chain rewrites a row and recomputes every hash after it and
    the recorded head: inside the database all agrees; a head kept outside it does not."""
    from twenty48_replay.store import log_chain
    from twenty48_replay.store.tables import moderation_log

    store_db = db if not is_sqlite(db) else f"sqlite:///{db}"
    cli_ok("where", "--db", db)  # the server's database (admin refuses to make one)
    cli_ok("admin", "ban", "mallory", "--reason", "bot", "--db", db)
    written = [h for h in check_heads(db) if h.startswith("moderation_log:")]
    assert written[0].startswith("moderation_log:1:")
    cli_ok("admin", "ban", "trudy", "--reason", "bot too", "--db", db)
    cli_ok("check", "--db", db, "--head", written[0])  # later rows are fine

    engine = create_engine(store_db)
    with engine.connect() as connection:
        rows = [dict(row) for row in connection.execute(select(moderation_log)).mappings()]
    engine.dispose()
    rows[0].update(actor="nobody", action="unban")
    previous, statements = log_chain.GENESIS, []
    for row in sorted(rows, key=lambda r: r["id"]):
        previous = log_chain.link(previous, log_chain.MODERATION_LOG, row)
        statements.append(
            f"UPDATE moderation_log SET actor = '{row['actor']}', action = '{row['action']}', "
            f"chain = '{previous}' WHERE id = {row['id']}"
        )
    statements.append(f"UPDATE log_heads SET head = '{previous}' WHERE log = 'moderation_log'")
    behind_the_triggers(db, *statements)

    cli_ok("check", "--db", db)  # consistent inside: only the written head tells
    found = run_cli("check", "--db", db, "--head", written[0])
    assert found.returncode == 1, found.stdout + found.stderr
    assert "the head written down (1 rows," in found.stdout
    assert "is not on this chain" in found.stdout
    bad = run_cli("check", "--db", db, "--head", "moderation_log:1:xyz")
    assert bad.returncode == 2
    assert "is not LOG:ROWS:HEAD" in bad.stderr


def test_backup_prints_the_heads_of_its_copy(tmp_path: Path) -> None:
    db = str(tmp_path / "server.sqlite3")
    with ServerProcess(db, tmp_path, "--no-analysis", "--key", str(key_file(tmp_path, "k"))):
        cli_ok("admin", "ban", "mallory", "--reason", "bot", "--db", db)
        backed = run_cli("backup", "--db", db, "-o", str(tmp_path / "copy.sqlite3"))
    assert backed.returncode == 0, backed.stderr
    assert "the copy's log heads" in backed.stdout
    assert sorted(HEAD.findall(backed.stdout)) == sorted(check_heads(db))
    assert sorted(check_heads(str(tmp_path / "copy.sqlite3"))) == sorted(check_heads(db))


@pytest.fixture
def pg_db() -> Iterator[str]:
    yield from fresh_database()


def test_a_disabled_trigger_is_found(pg_db: str, tmp_path: Path) -> None:
    cli_ok("where", "--db", pg_db)
    as_owner(pg_db, "ALTER TABLE moderation_log DISABLE TRIGGER moderation_no_update_delete")
    checked = run_cli("check", "--db", pg_db)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "unexpected trigger not firing moderation_log.moderation_no_update_delete" in (
        checked.stdout
    )
    line = serve_refused(pg_db)
    assert "trigger not firing moderation_log.moderation_no_update_delete" in line


# ------------------------------------------------------------------ a role that owns nothing


def grants_from_the_guide() -> str:
    """The SQL block of docs/operating.md that grants serve's role its rights."""
    guide = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    block = guide.split("<!-- grants for serve's role: begin -->", 1)[1]
    block = block.split("<!-- grants for serve's role: end -->", 1)[0]
    return block.strip().removeprefix("```sql").removesuffix("```").strip()


def test_serve_runs_with_a_role_that_owns_nothing(tmp_path: Path) -> None:
    base = make_url(server_url())
    suffix = uuid.uuid4().hex[:8]
    owner, player_role, name = f"t_owner_{suffix}", f"t_serve_{suffix}", f"t_roles_{suffix}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE ROLE "{owner}" LOGIN'))
        connection.execute(text(f'CREATE ROLE "{player_role}" LOGIN'))
        connection.execute(text(f'CREATE DATABASE "{name}" OWNER "{owner}"'))
    as_role = {
        role: base.set(database=name, username=role).render_as_string(hide_password=False)
        for role in (owner, player_role)
    }
    try:
        cli_ok("where", "--db", as_role[owner])  # the owner makes the schema
        as_owner(as_role[owner], grants_from_the_guide().replace("twenty48;", f"{player_role};"))
        url = as_role[player_role]
        key = key_file(tmp_path, "serve")
        with ServerProcess(url, tmp_path, "--no-analysis", "--key", str(key)) as server:
            client = Client(server.url)
            game = RemoteGame(client, "ann")
            for letter in "LDRULDRU":
                try:
                    game.play(letter)
                except Exception:  # a move that changes nothing
                    continue
            record = game.finish()
            client.close()
            assert record["fair"]["key_id"] == ServerKey.load(key).key_id
            cli_ok("admin", "ban", "mallory", "--reason", "bot", "--db", url)
            # The players' bests: written by hides and a rebuild, with the guide's grants.
            fair_id = str(record["fair"]["game_id"])
            cli_ok("admin", "hide", fair_id, "--reason", "test", "--db", url)
            cli_ok("admin", "unhide", fair_id, "--reason", "test", "--db", url)
            cli_ok("admin", "rebuild-bests", "--db", url)
            assert [row["id"] for row in client.leaderboard(10)["games"]] == [int(fair_id)]
            assert get_json(server.url, "/readyz")[0] == 200
        for statement, refusal in (
            ("ALTER TABLE moderation_log DISABLE TRIGGER USER", "must be owner"),
            ("UPDATE moderation_log SET actor = 'nobody'", "permission denied"),
            ("DELETE FROM key_events", "permission denied"),
            ("UPDATE moves SET direction = 'L'", "permission denied"),
        ):
            with pytest.raises(Exception, match=refusal):
                as_owner(url, statement)
        assert run_cli("check", "--db", url).returncode == 0
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'DROP ROLE IF EXISTS "{player_role}"'))
            connection.execute(text(f'DROP ROLE IF EXISTS "{owner}"'))
        admin.dispose()
