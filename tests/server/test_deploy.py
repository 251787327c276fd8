"""The shipped deployment (issue 18 section 7): real nginx with TLS in front of a real serve.

nginx runs ``deploy/nginx/twenty48.conf`` as shipped (tests/support/nginx_harness.py
makes only its ports, certificate and log paths local) with a self-signed
certificate made for the test; serve runs with ``--forwarded-allow-ips
127.0.0.1``, as the systemd unit starts it.  Games are played through the
proxy by the command line, the Python client and the browser's play page.
"""

from __future__ import annotations

import contextlib
import json
import select
import shlex
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.browser import BrowserPage
from support.common import run_cli
from support.nginx_harness import ROOT, NginxProcess, nginx_path
from support.pages import page_state, start_game, wait_settled
from support.server_harness import TWENTY48, ServerProcess, free_port

from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.fairplay.signing import TrustedKey

UNIT = ROOT / "deploy" / "systemd" / "twenty48.service"


@pytest.fixture(scope="module")
def deployed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ServerProcess, NginxProcess]]:
    nginx_path()
    folder = tmp_path_factory.mktemp("deploy")
    serve = ServerProcess(
        str(folder / "games.sqlite3"), folder, "--no-analysis", "--forwarded-allow-ips", "127.0.0.1"
    )
    with serve, NginxProcess(serve.port) as nginx:
        yield serve, nginx


@pytest.fixture
def trust_proxy(
    deployed: tuple[ServerProcess, NginxProcess], monkeypatch: pytest.MonkeyPatch
) -> NginxProcess:
    """This process (and its children) trust the proxy's test certificate, as a CA bundle."""
    nginx = deployed[1]
    monkeypatch.setenv("SSL_CERT_FILE", str(nginx.cert))
    return nginx


def tls_request(
    nginx: NginxProcess, raw: bytes, source: str = "127.0.0.1"
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 request over TLS from ``source``; status, headers, body."""
    plain = socket.create_connection(
        ("127.0.0.1", nginx.https_port), timeout=30, source_address=(source, 0)
    )
    with nginx.client_context().wrap_socket(plain, server_hostname="127.0.0.1") as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def post_refused(nginx: NginxProcess, path: str, size: int) -> tuple[int, bytes, int]:
    """POSTs ``size`` bytes, reading while sending as RFC 9112 asks: (status, body, bytes sent).

    nginx answers a body over its limit with 413 and closes the connection at the
    client's next bytes without reading them: a client that sends the whole body
    before it reads may see the connection closed instead of the answer.
    """
    plain = socket.create_connection(("127.0.0.1", nginx.https_port), timeout=30)
    answer, sent = b"", 0
    with nginx.client_context().wrap_socket(plain, server_hostname="127.0.0.1") as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode()
        )
        chunk = b" " * 16384
        try:
            while sent < size:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable and (data := sock.recv(65536)):
                    answer += data
                sock.sendall(chunk[: size - sent])
                sent += min(len(chunk), size - sent)
        except OSError:
            pass  # nginx closed the connection after its answer
        with contextlib.suppress(OSError):
            while data := sock.recv(65536):
                answer += data
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 "), answer[:200]
    assert b"content-type: application/json" in head.lower(), head
    return int(head.split()[1]), body, sent


def get_request(path: str, *extra: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def wait_for_line(read: Callable[[], str], marker: str) -> str:
    deadline = time.monotonic() + 15
    while True:
        for line in read().splitlines():
            if marker in line:
                return line
        assert time.monotonic() < deadline, f"no log line with {marker}"
        time.sleep(0.05)


# ------------------------------------------------------------------ playing through the proxy


@pytest.mark.slow
def test_a_scripted_game_and_its_verification_through_tls(
    trust_proxy: NginxProcess, tmp_path: Path
) -> None:
    nginx = trust_proxy
    local = str(tmp_path / "local.sqlite3")
    played = run_cli("play", "--server", nginx.url, "--moves", "LDRU" * 15, "--db", local)
    assert played.returncode in (0, 1), played.stderr  # 1: a letter the board refused
    assert played.stdout.startswith("game ")
    assert "Traceback" not in played.stderr
    exported = run_cli("export", "1", "--db", local, "-o", str(tmp_path / "game.json"))
    assert exported.returncode == 0, exported.stderr
    checked = run_cli("verify", "--json", "--trust", nginx.url, str(tmp_path / "game.json"))
    assert checked.returncode == 0, checked.stderr
    result = json.loads(checked.stdout)
    assert (result["valid"], result["fair"], result["signature"]) == (True, "fair", "checked")


@pytest.mark.slow
def test_an_untrusted_certificate_is_refused_cleanly(
    deployed: tuple[ServerProcess, NginxProcess], tmp_path: Path
) -> None:
    nginx = deployed[1]
    played = run_cli(
        "play", "--server", nginx.url, "--moves", "L", "--db", str(tmp_path / "x.sqlite3")
    )
    assert played.returncode == 2
    assert "certificate" in played.stderr.lower()
    assert "Traceback" not in played.stderr


def test_the_python_client_plays_a_fair_game_through_the_proxy(trust_proxy: NginxProcess) -> None:
    client = Client(trust_proxy.url)
    game = RemoteGame(client, "through-nginx")
    order = "LDRU"
    i = 0
    while game.state.moves < 30 and not game.finished:
        for letter in order[i % 4] + order:
            before = game.state.moves
            try:
                game.play(letter)
            except Exception:
                continue
            if game.state.moves > before:
                break
        i += 1
    record = game.finish()
    assert game.check_record(record, TrustedKey.from_well_known(client.key())) == []
    client.close()


@pytest.mark.slow
def test_the_play_page_works_through_the_proxy(
    deployed: tuple[ServerProcess, NginxProcess],
    new_browser_page: Callable[..., BrowserPage],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nginx = deployed[1]
    monkeypatch.setenv("SSL_CERT_FILE", str(nginx.cert))
    # Chromium does not know the test's certificate authority; the page is https all the same.
    watched = new_browser_page(ignore_https_errors=True)
    page = watched.page
    watched.open(nginx.url + "/")
    start = start_game(page, "browser-through-nginx")
    client = Client(nginx.url)
    assert page.text_content("#commitment") == client.game(start["id"])["commitment"]
    for key in ["ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp"] * 4:
        page.keyboard.press(key)
    wait_settled(page)
    shown = page_state(page)
    server = client.game(start["id"])
    assert shown["moves"] > 0
    assert (shown["board"], shown["score"], shown["moves"]) == (
        server["board"],
        server["score"],
        server["moves"],
    )
    page.click("#finish")
    page.click("#confirm-end-yes")  # "End game" asks first (issue 20 section 2)
    page.wait_for_selector("#game[data-state=over]")
    assert page.get_attribute("#game", "data-commitment-checked") == "true"
    record = client.record(start["id"])
    assert TrustedKey.from_well_known(client.key()).verify(record) == ()
    assert watched.errors == []
    assert all(url.startswith(nginx.url) for url in watched.requests)
    client.close()


# ------------------------------------------------------------------ what the proxy adds


def test_serve_sees_the_real_client_address_and_never_a_spoofed_one(
    deployed: tuple[ServerProcess, NginxProcess],
) -> None:
    serve, nginx = deployed
    status, _, _ = tls_request(
        nginx,
        get_request("/openapi.json?from-nine", "X-Forwarded-For: 203.0.113.7"),
        source="127.0.0.9",
    )
    assert status == 200
    line = wait_for_line(serve.log_text, "?from-nine")
    assert "127.0.0.9:" in line
    assert "203.0.113.7" not in line
    assert wait_for_line(nginx.access_log, "?from-nine").startswith("127.0.0.9 ")


def test_plain_http_is_redirected_to_https(deployed: tuple[ServerProcess, NginxProcess]) -> None:
    nginx = deployed[1]
    with socket.create_connection(("127.0.0.1", nginx.http_port), timeout=30) as sock:
        sock.sendall(get_request("/leaderboard?x=1"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n")[0].decode()
    assert head.startswith("HTTP/1.1 301")
    assert "Location: https://127.0.0.1/leaderboard?x=1" in head


def test_lets_encrypts_challenge_is_answered_over_plain_http(
    deployed: tuple[ServerProcess, NginxProcess],
) -> None:
    # certbot --webroot (docs/operating.md, "TLS") puts a token in the web root and Let's
    # Encrypt fetches it over plain HTTP, for the first certificate and every renewal;
    # redirected to HTTPS it would reach serve and the renewal would fail.
    nginx = deployed[1]
    challenge = nginx.folder / "webroot" / ".well-known" / "acme-challenge"
    challenge.mkdir(parents=True, exist_ok=True)
    (challenge / "token-42").write_text("token-42.thumbprint")
    with socket.create_connection(("127.0.0.1", nginx.http_port), timeout=30) as sock:
        sock.sendall(get_request("/.well-known/acme-challenge/token-42"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert body == b"token-42.thumbprint"


def test_the_proxy_refuses_in_the_api_form(deployed: tuple[ServerProcess, NginxProcess]) -> None:
    nginx = deployed[1]
    status, body, _sent = post_refused(nginx, "/api/games", 70_000)
    assert (status, json.loads(body)) == (413, {"error": "request body too large"})
    # /api/records takes up to 1 MiB at the proxy: this one reaches serve, which judges it.
    record_body = b"[" + b"0," * 100_000 + b"0]"
    status, headers, body = tls_request(
        nginx,
        b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(record_body)).encode()
        + b"\r\n\r\n"
        + record_body,
    )
    assert status == 400
    assert "unreadable record" in json.loads(body)["error"]
    many = [f"X-Fill-{i}: {'h' * 7000}" for i in range(6)]
    status, headers, body = tls_request(nginx, get_request("/", *many))
    assert (status, headers["content-type"]) == (431, "application/json")
    assert json.loads(body) == {"error": "request line and headers too large"}


def test_a_refused_body_is_answered_and_not_read_to_its_end(
    deployed: tuple[ServerProcess, NginxProcess],
) -> None:
    # A 16 MiB record, 16 times the limit: the client gets the 413 in the API's form, and
    # then nginx stops reading.  Read to its end, such a body costs nginx 13.5 ms of TLS
    # (nginx's default lingers up to 30 s), and an attacker can post them back to back.
    size = 16 * 1024 * 1024
    status, body, sent = post_refused(deployed[1], "/api/records", size)
    assert (status, json.loads(body)) == (413, {"error": "request body too large"})
    assert sent < size // 2, f"nginx read {sent:,} bytes of a body it had refused"


def test_requests_in_flight_per_client_are_bounded(
    deployed: tuple[ServerProcess, NginxProcess],
) -> None:
    nginx = deployed[1]
    context = nginx.client_context()
    held = []
    # Each sends a head and then waits with its body: a request in flight at the proxy.
    head = (
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 20\r\n\r\n"
    )
    for _ in range(32):
        plain = socket.create_connection(
            ("127.0.0.1", nginx.https_port), timeout=30, source_address=("127.0.0.11", 0)
        )
        sock = context.wrap_socket(plain, server_hostname="127.0.0.1")
        sock.sendall(head)
        held.append(sock)
    time.sleep(0.5)
    status, headers, body = tls_request(nginx, get_request("/openapi.json"), source="127.0.0.11")
    assert (status, headers["retry-after"]) == (429, "1")
    assert "too many connections" in json.loads(body)["error"]
    status, _, _ = tls_request(nginx, get_request("/openapi.json"), source="127.0.0.12")
    assert status == 200
    for sock in held:
        sock.close()


def test_serve_down_is_a_json_503() -> None:
    with NginxProcess(free_port()) as nginx:  # nothing listens upstream
        status, headers, body = tls_request(nginx, get_request("/api/leaderboard"))
    assert (status, headers["content-type"], headers["retry-after"]) == (
        503,
        "application/json",
        "5",
    )
    assert "not answering" in json.loads(body)["error"]


# ------------------------------------------------------------------ the systemd unit


def unit_exec_start() -> list[str]:
    for line in UNIT.read_text().splitlines():
        if line.startswith("ExecStart="):
            return shlex.split(line.removeprefix("ExecStart="))
    raise AssertionError("no ExecStart in the unit")


def test_the_systemd_unit_verifies(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    command = unit_exec_start()
    assert command[0] == "/opt/twenty48/bin/twenty48"
    # The same unit with the program where this test installed it (verify checks it exists).
    local = tmp_path / "twenty48.service"
    local.write_text(UNIT.read_text().replace(command[0], str(TWENTY48)))
    done = subprocess.run(
        [analyze, "verify", str(local)], capture_output=True, text=True, timeout=60
    )
    problems = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip() and "twenty48.service" in line
    ]
    assert done.returncode == 0, done.stderr
    assert problems == []


@pytest.mark.slow
def test_the_systemd_units_command_starts_serve(tmp_path: Path) -> None:
    command = unit_exec_start()
    args = command[2:]
    assert command[1] == "serve"
    options = dict(zip(args[::2], args[1::2], strict=True))
    assert options["--host"] == "127.0.0.1"
    assert options["--forwarded-allow-ips"] == "127.0.0.1"
    assert options["--port"] == "8048"  # the upstream in deploy/nginx/twenty48.conf
    assert "server 127.0.0.1:8048;" in (ROOT / "deploy" / "nginx" / "twenty48.conf").read_text()
    # Run it with this machine's folder and a free port.
    options["--db"] = str(tmp_path / "games.sqlite3")
    options["--key"] = str(tmp_path / "server-key.pem")
    port = free_port()
    options["--port"] = str(port)
    argv = [str(TWENTY48), "serve", *(item for pair in options.items() for item in pair)]
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(get_request("/.well-known/twenty48-key"))
                    answer = sock.recv(65536)
                    break
            except OSError:
                assert process.poll() is None, (tmp_path / "serve.log").read_text()
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert answer.startswith(b"HTTP/1.1 200")
        assert (tmp_path / "server-key.pem").stat().st_mode & 0o777 == 0o600
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 0
        log.close()
