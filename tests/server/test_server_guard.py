"""Requests refused before any handler (issue 18, section 6): Host, Origin, Content-Type,
duplicate keys.  A real ``twenty48 serve``, real HTTP, SQLite and PostgreSQL.

Each refusal is a clean 4xx with a JSON reason and changes nothing: the game
played alongside keeps exactly its acknowledged moves.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest
from support.server_client import play_some, server_log_letters
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.server.guard.request_guard import host_name, normalise_origin


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def request(
    url: str,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    host: str | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One request with exactly these headers (``host``: the Host header to send)."""
    address, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(address, int(port), timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host if host is not None else f"{address}:{port}")
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


JSON = {"Content-Type": "application/json"}


def refused(answer: tuple[int, dict[str, str], bytes], status: int, words: str) -> None:
    code, headers, body = answer
    assert code == status, (code, body[:200])
    assert headers["content-type"].startswith("application/json")
    assert words in json.loads(body)["error"]


def test_host_origin_content_type_and_duplicate_keys(db: str, tmp_path: Path) -> None:
    server = ServerProcess(
        db,
        tmp_path,
        "--no-analysis",
        "--allowed-host",
        "127.0.0.1",
        "--allowed-host",
        "game.example.org",
        "--allowed-origin",
        "https://friend.example.org",
    )
    with server:
        url = server.url
        port = server.port
        client = Client(url)
        game = RemoteGame(client, "ann")
        play_some(game, 3)
        moves_path = f"/api/games/{game.id}/moves"
        auth = {"Authorization": f"Bearer {game.token}"}
        next_move = json.dumps({"move": "L", "n": game.state.moves + 1}).encode()

        # Host: the allowed names with any port, case and a final dot; nothing else.
        for host in ("127.0.0.1", f"127.0.0.1:{port}", "GAME.example.org.", "game.example.org:443"):
            assert request(url, "GET", "/healthz", host=host)[0] == 200, host
        for host in ("localhost", "evil.example", "127.0.0.1.evil.example", "", "x:y:z"):
            refused(request(url, "GET", "/healthz", host=host), 400, "Host")
        refused(
            request(url, "POST", moves_path, next_move, {**JSON, **auth}, host="evil"), 400, "Host"
        )
        two = request(url, "GET", "/healthz", headers={"Host": "127.0.0.1"})
        refused(two, 400, "exactly one Host")

        # Origin: our own (scheme, host and port as the request came), or an allowed one.
        own = f"http://127.0.0.1:{port}"
        for origin in (own, "https://friend.example.org", "https://FRIEND.example.org:443"):
            status, headers, _ = request(url, "GET", "/api/leaderboard", headers={"Origin": origin})
            assert status == 200, origin
        status, headers, _ = request(
            url, "GET", "/api/leaderboard", headers={"Origin": "https://friend.example.org"}
        )
        assert headers["access-control-allow-origin"] == "https://friend.example.org"
        preflight = request(
            url,
            "OPTIONS",
            moves_path,
            headers={
                "Origin": "https://friend.example.org",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
            },
        )
        assert preflight[0] == 200
        assert "POST" in preflight[1]["access-control-allow-methods"]
        for origin in (
            "https://evil.example",
            "null",
            f"https://127.0.0.1:{port}",  # another scheme is another origin
            "http://127.0.0.1",  # another port
            "http://friend.example.org",
            "https://friend.example.org:8443",
            "not an origin",
        ):
            answer = request(url, "POST", moves_path, next_move, {**JSON, **auth, "Origin": origin})
            refused(answer, 403, "other web sites")
            refused(request(url, "GET", "/api/leaderboard", headers={"Origin": origin}), 403, "")
        preflight = request(
            url,
            "OPTIONS",
            moves_path,
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        )
        refused(preflight, 403, "other web sites")

        # Content-Type: every POST under /api/ says JSON (a form cannot), a body or not.
        for content_type in (
            None,
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
        ):
            headers = dict(auth)
            if content_type is not None:
                headers["Content-Type"] = content_type
            refused(request(url, "POST", moves_path, next_move, headers), 415, "application/json")
            refused(
                request(url, "POST", "/api/games", b'{"player": "x"}', headers),
                415,
                "application/json",
            )
            refused(
                request(url, "POST", f"/api/games/{game.id}/finish", None, headers),
                415,
                "application/json",
            )
        ok = request(
            url,
            "POST",
            "/api/games",
            b'{"player": "x"}',
            {"Content-Type": "Application/JSON; charset=utf-8"},
        )
        assert ok[0] == 201

        # Duplicate keys: refused, not "the last one wins" (it played R before).
        twice = b'{"move": "L", "move": "R", "n": %d}' % (game.state.moves + 1)
        refused(request(url, "POST", moves_path, twice, {**JSON, **auth}), 400, "twice")
        nested = b'{"player": {"a": 1, "a": 2}}'
        refused(request(url, "POST", "/api/games", nested, JSON), 400, "twice")
        refused(
            request(url, "POST", "/api/games", b'{"player": "a", "player": "b"}', JSON),
            400,
            "twice",
        )

        # Nothing refused was stored: the game has its acknowledged moves only.
        assert server_log_letters(db, game.id) == game.letters
        assert client.game(game.id)["moves"] == len(game.letters)
        play_some(game, len(game.letters) + 2)  # and it plays on
        record = game.finish()
        assert record["moves"] == game.letters
        log = server.log_text()
        assert '" 500' not in log
        assert "internal error" not in log
        assert "Traceback" not in log


def test_default_hosts_follow_the_listening_address(tmp_path: Path) -> None:
    """Without --allowed-host: loopback names on 127.0.0.1 (a rebound DNS name is refused);
    on every address, any host (with a warning at start)."""
    db = str(tmp_path / "hosts.sqlite3")
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        for host in ("localhost", "127.0.0.1", "[::1]:8048", f"localhost:{server.port}"):
            assert request(server.url, "GET", "/healthz", host=host)[0] == 200, host
        refused(request(server.url, "GET", "/healthz", host="rebound.example"), 400, "Host")
    with ServerProcess(db, tmp_path, "--no-analysis", "--host", "0.0.0.0") as server:
        assert request(server.url, "GET", "/healthz", host="anything.example")[0] == 200
        assert "any Host header is accepted" in server.log_text()


def test_unusable_guard_options_are_usage_errors(tmp_path: Path) -> None:
    from support.common import run_cli

    db = str(tmp_path / "options.sqlite3")
    for option, value in (
        ("--allowed-host", "a/b"),
        ("--allowed-host", "x:y:z"),
        ("--allowed-origin", "https://example.org/path"),
        ("--allowed-origin", "ftp://example.org"),
        ("--allowed-origin", "example.org"),
        ("--metrics-allow", "10.0.0.0/99"),
        ("--metrics-allow", "nowhere"),
    ):
        result = run_cli("serve", "--db", db, option, value, timeout=60)
        assert result.returncode == 2, (option, value, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert option in result.stderr
    assert not Path(db).exists()


def test_host_and_origin_parsing() -> None:
    assert host_name("Example.ORG.") == "example.org"
    assert host_name("[::1]:8048") == "::1"
    assert host_name("example.org:80") == "example.org"
    for bad in ("", ":80", "a:b", "[::1", "[::1]x", "a b", "a/b", "user@host", "a:1:2"):
        assert host_name(bad) is None, bad
    assert normalise_origin("HTTPS://Example.org:443") == "https://example.org"
    assert normalise_origin("http://[::1]:8048") == "http://[::1]:8048"
    assert normalise_origin("http://example.org:8080") == "http://example.org:8080"
    for bad in ("null", "example.org", "ftp://x", "https://", "https://a/b", "https://a:b"):
        assert normalise_origin(bad) is None, bad
