"""Moderation (issue 18, section 4): ``twenty48 admin`` on a running server's own database.

A real ``twenty48 serve`` on a free port and the real command line as
subprocesses on the same ``--db``, SQLite and PostgreSQL: every action
counts from the server's next answer, records stay downloadable and
verifiable, and the moderation log is append-only by the database's own
triggers.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError
from support.common import run_cli
from support.names_play import Exchange, finish_a_game
from support.server_harness import ServerProcess

from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import verify
from twenty48_replay.fairplay.client import Client
from twenty48_replay.store import Store


def admin(db: str, *args: str) -> tuple[int, str, str]:
    result = run_cli("admin", *args, "--db", db)
    return result.returncode, result.stdout, result.stderr


def board_ids(client: Client) -> list[int]:
    return [row["id"] for row in client.leaderboard(100)["games"]]


@pytest.mark.slow
def test_hide_ban_and_the_log_while_the_server_runs(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        client = Client(server.url)
        secret = client.register("alice")["secret"]
        alices = finish_a_game(client, "alice", secret, 20)
        first = finish_a_game(client, "mallory", None, 30)
        assert sorted(board_ids(client)) == sorted([alices, first])

        # hide: off the leaderboard at the next request; the record stays and verifies.
        code, out, err = admin(db, "hide", str(first), "--reason", "edited client", "--by", "ops")
        assert code == 0, err
        assert f"game {first} hidden" in out
        assert board_ids(client) == [alices]
        record = Record.from_json(json.dumps(client.record(first)))
        assert verify(record).valid
        assert client.game(first)["id"] == first
        # A second hide, an unknown game, and unusable input change nothing.
        assert admin(db, "hide", str(first), "--reason", "again", "--by", "ops")[0] == 1
        code, _out, err = admin(db, "hide", "999999", "--reason", "x", "--by", "ops")
        assert code == 1
        assert "no fair game 999999" in err
        assert admin(db, "hide", str(alices), "--reason", "a\x1b[2Jb", "--by", "ops")[0] == 2
        assert admin(db, "hide", str(alices), "--reason", "  ", "--by", "ops")[0] == 2
        assert admin(db, "hide", str(alices), "--reason", "x" * 2001, "--by", "ops")[0] == 2
        assert admin(db, "hide", str(alices), "--by", "ops")[0] == 2  # --reason is required
        assert board_ids(client) == [alices]
        assert admin(db, "unhide", str(first), "--by", "ops")[0] == 0
        assert sorted(board_ids(client)) == sorted([alices, first])

        # ban: every game of the name (given in any look-alike spelling) leaves the board,
        # and the name gets no new game and no registration.
        code, out, err = admin(db, "ban", "MALLORY", "--reason", "bot", "--by", "ops")
        assert code == 0, err
        assert board_ids(client) == [alices]
        http = Exchange(server.url)
        http.refused(403, "/api/games", {"player": "mallory"})
        http.refused(403, "/api/players", {"name": "mallory"})
        assert verify(Record.from_json(json.dumps(client.record(first)))).valid
        assert admin(db, "ban", "mallory", "--reason", "again", "--by", "ops")[0] == 1
        assert admin(db, "unban", "mallory", "--by", "ops", "--reason", "appeal")[0] == 0
        assert sorted(board_ids(client)) == sorted([alices, first])
        assert admin(db, "unban", "mallory", "--by", "ops")[0] == 1
        # A ban before the name is ever played.
        assert admin(db, "ban", "trudy", "--reason", "threats", "--by", "ops")[0] == 0
        http.refused(403, "/api/games", {"player": "Trudy"})
        # A look-alike of a banned name is refused too, though nobody registered either:
        # "BiIIy" with capital i's folds to "biiiy", yet reads as "Billy".
        assert admin(db, "ban", "billy", "--reason", "cheats", "--by", "ops")[0] == 0
        http.refused(403, "/api/games", {"player": "BiIIy"})
        http.refused(403, "/api/players", {"name": "BiIIy"})
        assert client.new_game("bilby")["id"]  # a different name plays
        assert admin(db, "unban", "billy", "--reason", "appeal", "--by", "ops")[0] == 0
        assert client.new_game("BiIIy")["id"]  # from the next request on
        client.close()

        # The log: every action that changed something, newest first, who/when/what/why.
        code, out, err = admin(db, "log", "--json")
        assert code == 0, err
        rows = [json.loads(line) for line in out.splitlines()]
        assert [(row["action"], row["game"], row["player"]) for row in rows] == [
            ("unban", None, "billy"),
            ("ban", None, "billy"),
            ("ban", None, "trudy"),
            ("unban", None, "mallory"),
            ("ban", None, "MALLORY"),
            ("unhide", first, None),
            ("hide", first, None),
        ]
        assert {row["by"] for row in rows} == {"ops"}
        assert rows[-1]["reason"] == "edited client"
        assert rows[-1]["at"].endswith("Z")
        code, out, _err = admin(db, "log")
        assert code == 0
        assert "edited client" in out
        assert "MALLORY" in out
        # Without --by the operating system user acts.
        assert admin(db, "hide", str(alices), "--reason", "test")[0] == 0
        newest = json.loads(admin(db, "log", "--json", "-n", "1")[1])
        assert newest["by"]
        assert newest["by"] != "ops"

        code, out, err = admin(db, "suspects", "--json")
        assert code == 0, err
        listed = [json.loads(line) for line in out.splitlines()]
        assert [row["id"] for row in listed] == [first]  # alice's game is hidden now
        assert listed[0]["suspected_bot"] is None  # served with --no-analysis
        assert "internal error" not in server.log_text()

    # The log is append-only: the database itself refuses to change or remove a row.
    for statement in (
        "UPDATE moderation_log SET reason = 'nothing happened'",
        "DELETE FROM moderation_log",
    ):
        with pytest.raises((DBAPIError, sqlite3.Error), match="moderation log is append-only"):
            execute(db, statement)
    if "://" in db:
        with pytest.raises(DBAPIError, match="moderation log is append-only"):
            execute(db, "TRUNCATE moderation_log")
    assert len(admin(db, "log", "--json")[1].splitlines()) == 8  # nothing changed or removed
    with Store(db, read_only=True) as store:
        assert store.check().healthy, store.check().problems


def execute(db: str, statement: str) -> None:
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.begin() as connection:
            connection.execute(text(statement))
    finally:
        engine.dispose()


@pytest.mark.slow
def test_admin_never_makes_a_new_database(tmp_path: Path) -> None:
    # Without the server's --db (or with a typo in it) an action would land in a new,
    # empty database and report success there: refused, naming the file, nothing made.
    missing = tmp_path / "typo.sqlite3"
    for args in (
        ("ban", "mallory", "--reason", "bot", "--by", "ops"),
        ("hide", "3", "--reason", "edited client", "--by", "ops"),
        ("log",),
        ("suspects",),
        ("keys",),
        ("revoke-key", "0123456789abcdef", "--reason", "leaked"),
    ):
        code, out, err = admin(str(missing), *args)
        assert code == 2, (args, out, err)
        assert f"no database at {missing}" in err
        assert "Traceback" not in err
        assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_rebuild_bests_mends_a_table_that_check_says_disagrees(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        client = Client(server.url)
        best = finish_a_game(client, "olga", None, 30)
        other = finish_a_game(client, "pete", None, 20)
        before = client.leaderboard(100)["games"]
        assert sorted(row["id"] for row in before) == sorted([best, other])
        engine = create_engine(db if "://" in db else f"sqlite:///{db}")
        with engine.begin() as connection:  # the derived rows lost, as by a bad restore
            connection.execute(text("DELETE FROM player_bests WHERE player = 'olga'"))
        engine.dispose()
        assert [row["id"] for row in client.leaderboard(100)["games"]] == [other]
        checked = run_cli("check", "--db", db)
        assert checked.returncode == 1, checked.stderr
        assert "players' bests (board): 1 players differ from their games ('olga')" in (
            checked.stdout
        )
        assert "twenty48 admin rebuild-bests" in checked.stdout
        code, _out, err = admin(db, "rebuild-bests")
        assert code == 0, err
        assert "players' bests rebuilt from the games: 2 rows" in err
        assert client.leaderboard(100)["games"] == before
    assert run_cli("check", "--db", db).returncode == 0
