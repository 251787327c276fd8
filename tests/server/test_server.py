"""The score server (issue 10): a real ``twenty48 serve`` subprocess, a real HTTP client,
SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from support.common import EXAMPLES, VECTORS, run_cli
from support.server_client import play_some, raw, server_log_letters
from support.server_harness import TWENTY48, DroppingProxy, ServerProcess, free_port

from twenty48_replay.fairplay.client import Client, RemoteGame, ServerError
from twenty48_replay.fairplay.signing import TrustedKey
from twenty48_replay.store.tables import SCHEMA_VERSION


@pytest.fixture
def server(db: str, tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(db, tmp_path, "--no-analysis") as running:
        yield running


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server on an SQLite file, for the tests about SQLite files themselves."""
    with ServerProcess(str(tmp_path / "server.sqlite3"), tmp_path, "--no-analysis") as running:
        yield running


@pytest.mark.slow
def test_fair_game_end_to_end(server: ServerProcess, tmp_path: Path) -> None:
    client = Client(server.url)
    game = RemoteGame(client, "ann")
    assert len(game.commitment) == 64
    play_some(game, 30)
    record = game.finish()
    key = TrustedKey.from_well_known(client.key())
    assert game.check_record(record, key) == []
    assert record["fair"]["commitment"] == game.commitment
    assert record["moves"] == game.letters == server_log_letters(server.db, game.id)
    # The game is an ordinary stored game too: export gives the signed record.
    exported = run_cli("export", str(record["fair"]["game_id"]), "--db", server.db)
    assert exported.returncode == 0, exported.stderr
    stored = json.loads(exported.stdout)
    assert stored["signature"] == record["signature"]
    assert game.check_record(stored, key) == []
    checked = run_cli("check", "--db", server.db)
    assert checked.returncode == 0, checked.stderr
    # Anyone can check it offline against the server's published key.
    path = tmp_path / "fair.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    trusted = run_cli("verify", "--json", "--trust", server.url, str(path))
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    verdict = json.loads(trusted.stdout.splitlines()[0])
    assert verdict["valid"] is True
    assert verdict["fair"] == "fair"
    # A changed byte fails.
    tampered = dict(record, score=record["score"] + 4)
    assert game.check_record(tampered, key) != []
    board = client.leaderboard()["games"]
    assert [(g["id"], g["player"], g["score"]) for g in board] == [
        (game.id, "ann", record["score"])
    ]
    assert board[0]["record_url"] == f"/api/games/{game.id}/record"
    client.close()


@pytest.mark.slow
def test_move_semantics(server: ServerProcess) -> None:
    client = Client(server.url)
    created = client.new_game("bob")
    gid, token = created["id"], created["token"]
    with pytest.raises(ServerError) as info:
        client.move(gid, token, 1, "L")
    assert info.value.status == 409  # not started
    with pytest.raises(ServerError) as info:
        client.record(gid)
    assert info.value.status == 409
    with pytest.raises(ServerError) as info:
        client.start(gid, "wrong-token", "abc")
    assert info.value.status == 403
    opening = client.start(gid, token, "my seed ✓")
    assert len(opening["board"]) == 4
    assert opening["moves"] == 0
    with pytest.raises(ServerError) as info:
        client.start(gid, token, "again")
    assert info.value.status == 409
    # Find a move that changes the board and one that does not (if any).
    answers = {}
    refusals = []
    for letter in "LRUD":
        try:
            answers[letter] = client.move(gid, token, 1, letter)
            break
        except ServerError as exc:
            refusals.append(exc)
    assert all(r.status == 422 and "does not change the board" in r.reason for r in refusals)
    ((first, answer),) = answers.items()
    assert answer["n"] == 1
    assert answer["move"] == first
    assert "spawn" in answer
    # Retrying n=1 with the same move: the same answer, applied once.
    assert client.move(gid, token, 1, first) == answer
    other = next(letter for letter in "LRUD" if letter != first)
    with pytest.raises(ServerError) as info:
        client.move(gid, token, 1, other)
    assert info.value.status == 409
    with pytest.raises(ServerError) as info:
        client.move(gid, token, 3, first)
    assert info.value.status == 409
    # Wrong or missing token: 403 / 401, nothing changes.
    with pytest.raises(ServerError) as info:
        client.move(gid, token[:-1] + ("A" if token[-1] != "A" else "B"), 2, "L")
    assert info.value.status == 403
    status, _headers, body = raw(
        server.url, "POST", f"/api/games/{gid}/moves", b'{"move": "L", "n": 2}'
    )
    assert status == 401
    assert json.loads(body)["error"]
    assert client.game(gid)["moves"] == 1
    assert server_log_letters(server.db, gid) == first
    with pytest.raises(ServerError) as info:
        client.move(999999, token, 1, "L")
    assert info.value.status == 404
    finished = client.finish(gid, token)
    assert len(finished["server_seed"]) == 64
    assert client.finish(gid, token)["server_seed"] == finished["server_seed"]
    with pytest.raises(ServerError) as info:
        client.move(gid, token, 2, "L")
    assert info.value.status == 409
    # The retry of a move from before the finish still gets its answer.
    assert client.move(gid, token, 1, first)["board"] == answer["board"]
    client.close()


BAD_REQUESTS: list[tuple[str, str, bytes | None, dict[str, str]]] = [
    ("POST", "/api/games", b"not json", {}),
    ("POST", "/api/games", b"", {}),
    ("POST", "/api/games", b"[1, 2]", {}),
    ("POST", "/api/games", b'{"player": 5}', {}),
    ("POST", "/api/games", b'{"player": ""}', {}),
    ("POST", "/api/games", b'{"player": "a\\u0000b"}', {}),
    ("POST", "/api/games", b'{"player": "' + b"x" * 500 + b'"}', {}),
    ("POST", "/api/games", b'{"player": NaN}', {}),
    ("POST", "/api/games", b"\xff\xfe", {}),
    ("POST", "/api/games", b"[" * 100_000, {}),
    ("POST", "/api/games", b'{"player": "x", "pad": "' + b"y" * 70_000 + b'"}', {}),
    ("GET", "/api/games", None, {}),
    ("POST", "/api/games/abc/moves", b'{"move": "L", "n": 1}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/-1/moves", b'{"move": "L", "n": 1}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/99999999999999999999999/start", b"{}", {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/moves", b'{"move": "L", "n": 1}', {"Authorization": "Basic x"}),
    ("POST", "/api/games/1/moves", b'{"move": "X", "n": 1}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/moves", b'{"move": "L", "n": "1"}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/moves", b'{"move": "L", "n": true}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/moves", b'{"move": "L", "n": 0}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/moves", b'{"move": "L", "n": 1e400}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/moves", b'{"move": "L"}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/moves", b'{"move": "L", "n": 1}', {"Authorization": "Bearer é"}),
    ("POST", "/api/games/1/start", b'{"client_seed": ""}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/start", b'{"client_seed": 7}', {"Authorization": "Bearer x"}),
    ("POST", "/api/games/1/finish", None, {}),
    ("GET", "/api/games/1/record", None, {}),
    ("GET", "/api/games/0", None, {}),
    ("GET", "/api/leaderboard?limit=0", None, {}),
    ("GET", "/api/leaderboard?limit=abc", None, {}),
    ("GET", "/api/leaderboard?limit=100000", None, {}),
    ("POST", "/api/records", b"{}", {}),
    ("POST", "/api/records", b"nope", {}),
    ("POST", "/api/records", b'{"format": "twenty48-record"}', {}),
    ("DELETE", "/api/games/1", None, {}),
    ("GET", "/nowhere", None, {}),
]


@pytest.mark.slow
def test_bad_requests_get_a_json_4xx(server: ServerProcess) -> None:
    client = Client(server.url)
    created = client.new_game("carol")
    client.start(created["id"], created["token"], "seed")
    for method, path, body, headers in BAD_REQUESTS:
        status, _headers, answer = raw(server.url, method, path, body, headers)
        assert 400 <= status < 500, (method, path, body and body[:40], status, answer[:200])
        assert isinstance(json.loads(answer)["error"], str), (path, answer[:200])
    # Broken HTTP framing never reaches the application: uvicorn answers a plain 400.
    status, _headers, answer = raw(server.url, "POST", "/api/games", b"{}", {"Content-Length": "x"})
    assert status == 400
    # Nothing above changed the game, and the server still answers.
    assert client.game(created["id"])["moves"] == 0
    log = server.log_text()
    assert '" 500 ' not in log  # the access log's status field
    assert "internal error" not in log
    client.close()


@pytest.mark.slow
def test_self_seeded_records_are_listed_apart(server: ServerProcess) -> None:
    client = Client(server.url)
    valid = (EXAMPLES / "valid.json").read_bytes()
    status, _h, body = raw(server.url, "POST", "/api/records", valid)
    assert status == 201, body
    stored = json.loads(body)
    assert stored["self_seeded"] is True
    assert stored["duplicate"] is False
    status, _h, body = raw(server.url, "POST", "/api/records", valid)
    assert status == 201
    assert json.loads(body)["duplicate"] is True
    status, _h, body = raw(
        server.url, "POST", "/api/records", (EXAMPLES / "tampered-score.json").read_bytes()
    )
    assert status == 422
    assert "score" in json.loads(body)["error"]
    listed = client.request("GET", "/api/records")["records"]
    assert [r["id"] for r in listed] == [stored["id"]]
    assert client.leaderboard()["games"] == []
    # A fair record cannot be submitted as self-seeded.
    game = RemoteGame(client, "dan")
    play_some(game, 5)
    fair_record = game.finish()
    status, _h, body = raw(server.url, "POST", "/api/records", json.dumps(fair_record).encode())
    assert status == 422
    client.close()


@pytest.mark.slow
def test_leaderboard_one_per_player_and_tie_breaks(db: str, tmp_path: Path) -> None:
    """Ties are made in the database directly (random server seeds cannot be steered)."""
    from twenty48_replay.core.board import Board
    from twenty48_replay.core.game import GameState
    from twenty48_replay.store import Store, bests, reads, writes
    from twenty48_replay.store import fair_games as fair_store

    rows = [  # player, score, moves, finished_ms
        ("a", 100, 50, 3000),
        ("a", 300, 90, 4000),  # a's best
        ("b", 300, 80, 5000),  # ties a's score with fewer moves: above a
        ("c", 300, 80, 4500),  # ties b's score and moves, ended earlier: above b
        ("d", 50, 10, 1000),
    ]
    store = Store(db)
    with store.transaction() as connection:
        for i, (player, score, moves, ended) in enumerate(rows, 1):
            state = GameState(
                f"seed{i}", Board.from_rows([[2, 0, 0, 0]] + [[0] * 4] * 3), score, moves
            )
            fair_id = fair_store.create(
                connection,
                player=player,
                token_hash="0" * 64,
                server_seed="1" * 64,
                commitment="2" * 64,
                key_id="3" * 16,
                now_ms=0,
            )
            game_id = writes.create_game(
                connection, state, player=player, now_ms=0, digest=reads.log_digest("")
            )
            connection.execute(
                text(
                    "UPDATE fair_games SET game_id = :g, client_seed = 'x', finished_ms = :f "
                    "WHERE id = :i"
                ),
                {"g": game_id, "f": ended, "i": fair_id},
            )
            bests.note_finished(connection, fair_id)  # what finishing does beside its own rows
    store.close()
    with ServerProcess(db, tmp_path, "--no-analysis") as running:
        board = Client(running.url).leaderboard(limit=3)["games"]
    assert [(g["player"], g["score"], g["moves"]) for g in board] == [
        ("c", 300, 80),
        ("b", 300, 80),
        ("a", 300, 90),
    ]


@pytest.mark.slow
def test_server_seed_never_leaks_before_finish(db: str, tmp_path: Path) -> None:
    seen: list[tuple[float, str]] = []  # (time, everything a response carried)

    with ServerProcess(db, tmp_path, "--no-analysis") as running:

        def call(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            payload = None if body is None else json.dumps(body).encode()
            _status, answer_headers, answer = raw(running.url, method, path, payload, headers)
            seen.append((time.monotonic(), json.dumps(answer_headers) + answer.decode()))
            if "json" not in answer_headers.get("content-type", "json"):
                return None  # a web page or one of its files
            return json.loads(answer)

        def pages(*game_ids: int) -> None:
            """The web pages and their scripts, and every game's replay page (issue 11)."""
            for path in ("/", "/leaderboard", "/static/js/play_page.js"):
                call("GET", path)
            call("GET", "/static/js/api_client.js")
            for fair_id in game_ids:
                call("GET", f"/games/{fair_id}")

        open_game = call("POST", "/api/games", {"player": "eve"})
        done_game = call("POST", "/api/games", {"player": "eve"})
        for game in (open_game, done_game):
            call("POST", f"/api/games/{game['id']}/start", {"client_seed": "c"}, game["token"])
            n = 1
            for letter in "LURD" * 5:
                answer = call(
                    "POST",
                    f"/api/games/{game['id']}/moves",
                    {"move": letter, "n": n},
                    game["token"],
                )
                if "error" not in answer:
                    n += 1
            call("GET", f"/api/games/{game['id']}")
            call("GET", f"/api/games/{game['id']}/record")
            call("GET", "/api/leaderboard")
            pages(game["id"])
        finish_time = time.monotonic()
        call("POST", f"/api/games/{done_game['id']}/finish", None, done_game["token"])
        call("GET", f"/api/games/{done_game['id']}/record")
        call("GET", f"/api/games/{open_game['id']}")
        pages(open_game["id"], done_game["id"])
        log = running.log_text()
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    with engine.connect() as connection:
        secrets = {
            row.id: (row.server_seed, row.seed)
            for row in connection.execute(
                text(
                    "SELECT f.id, f.server_seed, g.seed FROM fair_games f "
                    "JOIN games g ON g.id = f.game_id"
                )
            )
        }
    engine.dispose()
    open_secrets = secrets[open_game["id"]]
    done_secrets = secrets[done_game["id"]]
    for when, content in seen:
        for secret in open_secrets:
            assert secret not in content
        if when < finish_time:
            for secret in done_secrets:
                assert secret not in content
    assert any(done_secrets[0] in content for _, content in seen)  # revealed at the end
    # ... also in the finished game's replay page, which embeds its signed record.
    assert any(done_secrets[0] in content and "<html" in content for _, content in seen)
    for secret in (*open_secrets, *done_secrets):
        assert secret not in log
    assert "POST /api/games" in log  # the log was on and captured


@pytest.mark.slow
def test_well_known_key_and_openapi(server: ServerProcess, db: str, tmp_path: Path) -> None:
    client = Client(server.url)
    key = client.key()
    assert key["algorithm"].lower() == "ed25519"
    assert len(key["key_id"]) == 16
    document = client.request("GET", "/openapi.json")
    assert {
        "/api/games",
        "/api/games/{id}/moves",
        "/api/leaderboard",
        "/api/records",
        "/.well-known/twenty48-key",
    } <= set(document["paths"])
    if "://" not in db:
        key_file = Path(db + ".server-key.pem")
        assert key_file.stat().st_mode & 0o777 == 0o600
    client.close()


@pytest.mark.slow
def test_bot_signals_on_the_leaderboard(db: str, tmp_path: Path) -> None:
    args = ("--bot-match-rate", "0.0", "--bot-min-moves", "1")
    with ServerProcess(db, tmp_path, *args) as running:
        client = Client(running.url)
        game = RemoteGame(client, "bot")
        play_some(game, 12)
        game.finish()
        deadline = time.monotonic() + 120
        while True:
            entry = client.leaderboard()["games"][0]
            if entry["engine_match_rate"] is not None or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        client.close()
    assert 0.0 <= entry["engine_match_rate"] <= 1.0
    assert isinstance(entry["median_move_interval_ms"], int)
    assert entry["suspected_bot"] is True


@pytest.mark.slow
def test_play_server_scripted(server: ServerProcess, tmp_path: Path) -> None:
    local = str(tmp_path / "local.sqlite3")
    result = run_cli(
        "play", "--server", server.url, "--moves", "LRLRLRLR" * 3, "--db", local, "--player", "fay"
    )
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout.startswith("game ")
    fair_id = int(result.stdout.split()[1])
    record = Client(server.url).record(fair_id)
    exported = run_cli("export", "1", "--db", local)
    assert json.loads(exported.stdout)["signature"] == record["signature"]
    # A refused letter is exit 1 with the reason.
    refused = run_cli(
        "play", "--server", server.url, "--moves", "UDUDUDUDUDUDUDUDUDUDUDUDUDUD", "--db", local
    )
    if refused.returncode == 1:
        assert "refused" in refused.stderr
    bad = run_cli("play", "--server", "http://127.0.0.1:1", "--moves", "L", "--db", local)
    assert bad.returncode != 0
    assert "Traceback" not in bad.stderr


@pytest.mark.slow
def test_sqlite_database_is_readable_by_plain_sqlite(sqlite_server: ServerProcess) -> None:
    server = sqlite_server
    game = RemoteGame(Client(server.url), "gus")
    play_some(game, 3)
    connection = sqlite3.connect(server.db)
    assert connection.execute("SELECT count(*) FROM fair_games").fetchone()[0] == 1
    connection.close()


@pytest.mark.slow
def test_dropped_connection_retry_does_not_double(server: ServerProcess) -> None:
    """A move whose answer is lost is sent again with the same n: applied once."""
    client = Client(server.url)
    game = RemoteGame(client, "hal")
    play_some(game, 5)
    n = game.state.moves + 1
    results: list[Any] = []

    def send(letter: str) -> None:
        try:
            results.append(Client(server.url).move(game.id, game.token, n, letter))
        except ServerError as exc:
            results.append(exc.status)

    for letter in "LDRU":
        threads = [threading.Thread(target=send, args=(letter,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if all(isinstance(r, dict) for r in results):
            break
        assert all(r == 422 for r in results), results
        results.clear()
    assert len({json.dumps(r, sort_keys=True) for r in results}) == 1
    letters = server_log_letters(server.db, game.id)
    assert len(letters) == n
    assert letters[:-1] == game.letters


@pytest.mark.slow
def test_a_version_1_database_is_upgraded_and_served(tmp_path: Path) -> None:
    """A database of schema version 1 (before the server's tables) is upgraded and served."""
    from twenty48_replay.store.dialects import install_triggers
    from twenty48_replay.store.legacy import metadata_v1

    db = tmp_path / "old.sqlite3"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as connection:
        metadata_v1.create_all(connection)
        install_triggers(connection)
        connection.exec_driver_sql(
            "INSERT INTO twenty48_meta (key, value) VALUES "
            "('application', 'twenty48-replay'), ('schema_version', '1')"
        )
    engine.dispose()
    with ServerProcess(str(db), tmp_path, "--no-analysis") as running:
        game = RemoteGame(Client(running.url), "old")
        play_some(game, 2)
    checked = run_cli("check", "--db", str(db))
    assert checked.returncode == 0, checked.stderr
    version = sqlite3.connect(db).execute(
        "SELECT value FROM twenty48_meta WHERE key = 'schema_version'"
    )
    assert version.fetchall() == [(str(SCHEMA_VERSION),)]


@pytest.mark.slow
def test_a_lost_answer_is_retried_with_the_same_n(server: ServerProcess) -> None:
    """The server commits a move, the answer is lost on the way: the client sends the
    same n again on a new connection and gets the same answer; the move is stored once."""
    proxy = DroppingProxy(server.port)
    client = Client(proxy.url)
    game = RemoteGame(client, "joe")
    play_some(game, 3)
    for _ in range(3):
        before = game.state.moves
        proxy.drop_next.set()
        play_some(game, before + 1)
        assert game.state.moves == before + 1
    assert proxy.dropped == 3
    assert client.retried >= 3
    assert server_log_letters(server.db, game.id) == game.letters
    client.close()
    proxy.close()


@pytest.mark.slow
def test_serve_refuses_unusable_settings_in_one_line(
    sqlite_server: ServerProcess, tmp_path: Path
) -> None:
    server = sqlite_server
    open_key = tmp_path / "open.pem"
    open_key.write_text("x", encoding="utf-8")
    open_key.chmod(0o644)
    cases = [
        ("--db", str(tmp_path / "none" / "x.sqlite3")),
        ("--port", "0"),
        ("--db", str(tmp_path / "k.sqlite3"), "--key", str(open_key)),
        ("--db", str(tmp_path / "k.sqlite3"), "--port", str(server.port)),  # in use
        ("--db", str(tmp_path / "k.sqlite3"), "--bot-match-rate", "2"),
    ]
    for args in cases:
        result = run_cli("serve", *args, timeout=60)
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, (args, result.stderr)
        assert lines[0].startswith("twenty48: error: ")


def _analysed_server(tmp_path: Path) -> ServerProcess:
    """A SQLite server in its own process group whose analysis worker has done one game."""
    running = ServerProcess(
        str(tmp_path / "server.sqlite3"), tmp_path, "--bot-min-moves", "1", own_group=True
    ).start()
    client = Client(running.url)
    game = RemoteGame(client, "kim")
    play_some(game, 4)
    game.finish()
    deadline = time.monotonic() + 120
    while client.leaderboard()["games"][0]["engine_match_rate"] is None:
        assert time.monotonic() < deadline, running.log_text()
        time.sleep(0.2)
    client.close()
    return running


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.slow
def test_ctrl_c_stops_serve_quietly_after_an_analysed_game(tmp_path: Path) -> None:
    """Ctrl-C reaches the analysis worker too (one process group): it must ignore it,
    so the log has no worker traceback, and serve exits 0."""
    running = _analysed_server(tmp_path)
    try:
        assert running.children(), "the analysis worker should be running"
        assert running.ctrl_c() == 0, running.log_text()
    finally:
        running.stop()
    log = running.log_text()
    assert "Traceback" not in log, log
    assert "KeyboardInterrupt" not in log, log


@pytest.mark.slow
def test_the_analysis_worker_exits_when_serve_is_killed(tmp_path: Path) -> None:
    running = _analysed_server(tmp_path)
    children = running.children()
    assert children
    running.kill()
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in children if _alive(pid)]
    for pid in left:  # do not leave them behind when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, "the analysis worker outlived serve"


@pytest.mark.slow
def test_serve_refuses_a_bad_key_before_creating_anything(tmp_path: Path) -> None:
    """A key that is a directory is refused as such (not by its mode), and no refused
    setting leaves a new database or a new key file behind."""
    junk = tmp_path / "junk.pem"
    junk.write_text("not a key", encoding="utf-8")
    junk.chmod(0o600)
    shared = tmp_path / "shared.pem"
    shared.write_text("x", encoding="utf-8")
    shared.chmod(0o644)
    os.mkfifo(tmp_path / "fifo.pem", 0o600)
    new_db = tmp_path / "new.sqlite3"
    port = str(free_port())
    cases = [
        (str(tmp_path), "is a directory, not a file"),
        (str(tmp_path / "fifo.pem"), "is a named pipe, not a file"),
        (str(junk), "is not an unencrypted PEM private key"),
        (str(shared), "chmod 600"),
        (str(tmp_path / "none" / "k.pem"), "cannot create key file"),
    ]
    for key, reason in cases:
        result = run_cli("serve", "--db", str(new_db), "--key", key, "--port", port, timeout=60)
        assert result.returncode == 2, (key, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, (key, result.stderr)
        assert lines[0].startswith("twenty48: error: ")
        assert reason in lines[0], (key, lines[0])
        assert "mode" not in lines[0] or key == str(shared)
        assert not new_db.exists(), key
    # An unusable database with the default key beside it: no key is made.
    foreign = tmp_path / "foreign.txt"
    foreign.write_text("not a database\n", encoding="utf-8")
    result = run_cli("serve", "--db", str(foreign), "--port", port, timeout=60)
    assert result.returncode == 2, result.stderr
    assert not Path(str(foreign) + ".server-key.pem").exists()


def no_game_on(server: ServerProcess) -> bool:
    try:
        Client(server.url).game(1)
    except ServerError as exc:
        return exc.status == 404
    return False


@pytest.mark.slow
def test_play_server_checks_the_local_store_before_playing(
    sqlite_server: ServerProcess, tmp_path: Path
) -> None:
    """An unusable --db stops play --server before a game exists on the server (scripted and
    UI: the UI run under a real terminal, a pty)."""
    import pty

    foreign = tmp_path / "foreign.txt"
    foreign.write_text("not a database\n", encoding="utf-8")
    scripted = run_cli("play", "--server", sqlite_server.url, "--moves", "LR", "--db", str(foreign))
    assert scripted.returncode == 2, scripted.stderr
    assert len(scripted.stderr.splitlines()) == 1, scripted.stderr
    assert no_game_on(sqlite_server)
    leader, follower = pty.openpty()
    try:
        command = [str(TWENTY48), "play", "--server", sqlite_server.url, "--db", str(foreign)]
        ui = subprocess.run(
            command, stdin=follower, stdout=follower, stderr=subprocess.PIPE, timeout=60
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert ui.returncode == 2, ui.stderr
    assert b"not an SQLite database" in ui.stderr, ui.stderr
    assert no_game_on(sqlite_server)


@pytest.mark.slow
def test_play_server_url_with_a_trailing_slash(sqlite_server: ServerProcess) -> None:
    result = run_cli("play", "--server", sqlite_server.url + "/", "--moves", "LR")
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout.startswith(f"game 1 on {sqlite_server.url}  commitment ")
    where = result.stderr.split("record at ", 1)[1].split(",", 1)[0]
    assert where == f"{sqlite_server.url}/api/games/1/record"
    with urllib.request.urlopen(where, timeout=30) as answer:
        fair = json.loads(answer.read())["fair"]
    assert fair["game_id"] == 1
    # The end says what was revealed and checked.
    assert f"server seed revealed: {fair['server_seed']}; commitment checked" in result.stderr


@pytest.mark.slow
def test_server_addresses_and_reachability_exit_codes(tmp_path: Path) -> None:
    """Not a URL is a usage error (2) with a hint; an unreachable server is 2 in play --server
    as in verify --trust; verify --trust host:port hints at http://."""
    record = str(VECTORS / "fair" / "record.json")
    port = free_port()
    local = str(tmp_path / "local.sqlite3")
    bare = run_cli("play", "--server", f"127.0.0.1:{port}", "--moves", "L", "--db", local)
    assert bare.returncode == 2, bare.stderr
    assert "http://" in bare.stderr
    assert len(bare.stderr.splitlines()) == 1
    unreachable = run_cli("play", "--server", f"http://127.0.0.1:{port}", "--moves", "L")
    assert unreachable.returncode == 2, unreachable.stderr
    assert f"cannot reach http://127.0.0.1:{port}" in unreachable.stderr
    fetch = run_cli("verify", "--trust", f"http://127.0.0.1:{port}", record)
    assert fetch.returncode == unreachable.returncode
    hint = run_cli("verify", "--trust", f"127.0.0.1:{port}", record)
    assert hint.returncode == 2
    assert f"a server URL starts with http:// or https://, e.g. http://127.0.0.1:{port}" in (
        hint.stderr
    )
