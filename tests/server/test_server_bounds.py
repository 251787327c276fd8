"""Connection bounds of ``twenty48 serve`` (issue 18 section 1), attacked for real.

A real server on a free port; attackers and honest clients are real sockets,
each bound to its own loopback source address (Linux routes all of
127.0.0.0/8 to the loopback interface), so the per-address bounds see them as
different clients.  Every refusal is a clean HTTP answer with a JSON reason;
the honest client keeps being served throughout.  The timeouts asserted are
generous (a hang is what is tested, not speed: the benchmark measures that).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import resource
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.common import EXAMPLES
from support.server_harness import TWENTY48, ServerProcess

from twenty48_replay.core.board import Board, Direction

#: How long any single answer may take here before the test calls it a hang.
HANG = 15.0


def setup_module() -> None:
    """Room for the floods: this process holds over a thousand sockets at once."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def connect(server: ServerProcess, source: str = "127.0.0.1") -> socket.socket:
    """A TCP connection to the server from ``source`` (any 127.x.y.z)."""
    return socket.create_connection(
        ("127.0.0.1", server.port), timeout=HANG, source_address=(source, 0)
    )


def read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 answer from ``sock``: status, headers (lower-case names), body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before an answer: {data[:200]!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def get(sock: socket.socket, path: str = "/openapi.json", **headers: str) -> int:
    """A GET on an open (kept-alive) connection; its status."""
    extra = "".join(f"{name.replace('_', '-')}: {value}\r\n" for name, value in headers.items())
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
    return read_answer(sock)[0]


def closed_by_server(sock: socket.socket) -> bool:
    """True when the server closed ``sock`` (EOF or reset), False when it is still open."""
    sock.settimeout(0.2)
    try:
        return sock.recv(65536) == b""
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    finally:
        sock.settimeout(HANG)


def wait_closed(sock: socket.socket, within: float = HANG) -> float:
    """Seconds until the server closes ``sock`` (anything it sends first is discarded)."""
    start = time.monotonic()
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except ConnectionError:
        pass
    return time.monotonic() - start


def refusal(sock: socket.socket) -> tuple[int, dict[str, str], str]:
    status, headers, body = read_answer(sock)
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    return status, headers, json.loads(body)["error"]


def rss_kb(server: ServerProcess) -> int:
    assert server.process is not None
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


class Player:
    """An honest player on its own keep-alive connection, never retrying: counts every failure."""

    def __init__(self, server: ServerProcess, source: str) -> None:
        self.connection = http.client.HTTPConnection(
            "127.0.0.1", server.port, timeout=HANG, source_address=(source, 0)
        )
        self.statuses: list[int] = []

    def call(self, method: str, path: str, body: dict[str, Any], token: str = "") -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.connection.request(method, path, json.dumps(body).encode(), headers)
        answer = self.connection.getresponse()
        self.statuses.append(answer.status)
        return json.loads(answer.read())

    def play(self, moves: int) -> int:
        """Play ``moves`` moves, in new games as each one ends; how many were acknowledged.

        The moves are the first direction that changes the board, a policy
        that can lose a game in about 30 moves: a game that ends starts the
        next one, so the count is about the server, never the spawns.
        """
        played = 0
        while played < moves:
            game = self.call("POST", "/api/games", {"player": "honest"})
            state = self.call(
                "POST", f"/api/games/{game['id']}/start", {"client_seed": "s"}, game["token"]
            )
            n = 0
            while played < moves and not state.get("over"):
                board = Board.from_rows(state["board"])
                letter = next(d.letter for d in Direction if board.slide(d).changed)
                n += 1
                state = self.call(
                    "POST",
                    f"/api/games/{game['id']}/moves",
                    {"move": letter, "n": n},
                    game["token"],
                )
                if "board" not in state:  # a refusal: counted in statuses, and the end
                    return played
                played += 1
        return played

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Any]:
    """``start(*serve_options, open_files=None)``: a running server, stopped after the test."""
    running: list[ServerProcess] = []

    def make(*args: str, open_files: tuple[int, int] | None = None) -> ServerProcess:
        server = ServerProcess(
            str(tmp_path / f"bounds{len(running)}.sqlite3"),
            tmp_path,
            "--no-analysis",
            *args,
            open_files=open_files,
        )
        running.append(server)
        return server.start()

    yield make
    for server in running:
        server.stop()


# ------------------------------------------------------------------ the head


@pytest.mark.slow
def test_an_endless_header_is_cut_off_while_others_play(start: Any) -> None:
    server = start()
    rss_before = rss_kb(server)
    stop = threading.Event()
    refusals: list[int] = []
    sent: list[int] = []

    def attack() -> None:
        while not stop.is_set():
            sock = connect(server, "127.0.0.2")
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: ")
            total = 0
            try:
                while not stop.is_set():
                    sock.sendall(b"a" * 65536)
                    total += 65536
            except OSError:
                pass
            sent.append(total)
            try:
                sock.settimeout(5)
                refusals.append(read_answer(sock)[0])
            except OSError:
                pass
            sock.close()

    attacker = threading.Thread(target=attack, daemon=True)
    attacker.start()
    player = Player(server, "127.0.0.3")
    try:
        assert player.play(40) == 40
    finally:
        stop.set()
        attacker.join(HANG)
        player.close()
    assert set(player.statuses) <= {200, 201}
    assert refusals, "the endless header was never refused"
    assert set(refusals) == {431}
    # What one attempt got accepted (the socket buffers of both ends included)
    # is megabytes at most, never the 117 MB httptools took before.
    assert max(sent) < 16 * 1024 * 1024
    assert rss_kb(server) - rss_before < 64 * 1024
    sock = connect(server, "127.0.0.2")
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 20_000 + b"\r\n\r\n")
    status, _, reason = refusal(sock)
    assert (status, reason) == (431, "request line and headers larger than 16384 bytes")
    # Headers just within the bound are fine.
    sock = connect(server, "127.0.0.2")
    assert get(sock, X_Fill="c" * 15_000) == 200
    assert "Traceback" not in server.log_text()


@pytest.mark.slow
def test_a_slow_or_silent_head_is_closed(start: Any) -> None:
    server = start("--header-timeout", "2")
    silent = connect(server, "127.0.0.2")
    trickle = connect(server, "127.0.0.3")
    trickle.sendall(b"GET /openapi.json HTTP/1.1\r\n")
    began = time.monotonic()
    status = None
    for _ in range(40):  # a byte every 0.25 s: never a whole header
        try:
            trickle.sendall(b"X")
        except OSError:
            break
        time.sleep(0.25)
        if closed_by_server(silent):
            break
    trickle.settimeout(HANG)
    status, _, reason = refusal(trickle)
    assert status == 408
    assert reason == "request line and headers not received within 2 s"
    assert wait_closed(trickle) < HANG
    assert time.monotonic() - began >= 1.5  # not before its time
    # Connected and silent: closed too, with nothing to answer.
    silent.settimeout(HANG)
    assert silent.recv(100) == b""
    # A kept-alive connection's next request has its own deadline.
    kept = connect(server, "127.0.0.4")
    assert get(kept) == 200
    time.sleep(1.5)
    kept.sendall(b"GET /openapi.json HTTP/1.1\r\n")
    assert refusal(kept)[0] == 408


@pytest.mark.slow
def test_an_idle_kept_alive_connection_is_closed(start: Any) -> None:
    server = start("--idle-timeout", "1")
    sock = connect(server, "127.0.0.2")
    assert get(sock) == 200
    assert wait_closed(sock) < 10


@pytest.mark.slow
def test_a_slow_body_is_refused_without_an_error_logged(start: Any) -> None:
    server = start("--body-timeout", "2")
    for path in ("/api/games", "/api/games/1/moves", "/api/records"):
        sock = connect(server, "127.0.0.2")
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Authorization: Bearer t\r\nContent-Length: 100\r\n\r\n{".encode()
        )
        for _ in range(12):
            time.sleep(0.25)
            try:
                sock.sendall(b" ")
            except OSError:
                break
        sock.settimeout(HANG)
        status, _, reason = refusal(sock)
        assert (status, reason) == (408, "request body not received within 2 s"), path
    player = Player(server, "127.0.0.3")
    assert player.play(5) == 5
    player.close()
    log = server.log_text()
    assert "internal error" not in log
    assert "Traceback" not in log


@pytest.mark.slow
def test_a_long_answer_is_never_cut_off_by_the_timeouts(start: Any) -> None:
    """Deadlines cover the client's sending only: the server's own work may take longer."""
    # The record bounds (1 MiB by default, issue 18 s.1) are raised so that a slow record
    # is still taken: the point here is the server's own work outlasting the deadlines.
    big = str(16 * 1024 * 1024)
    server = start(
        "--header-timeout",
        "1",
        "--body-timeout",
        "1",
        "--idle-timeout",
        "1",
        "--max-record-bytes",
        big,
        "--max-record-extra-bytes",
        big,
    )
    record = json.loads((EXAMPLES / "valid.json").read_text())
    record["padding"] = ["x" * 14] * 600_000  # about 10 MB: seconds to read and verify
    body = json.dumps(record).encode()
    sock = connect(server, "127.0.0.2")
    sock.sendall(
        b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    began = time.monotonic()
    status, _, answer = read_answer(sock)
    assert status == 201, answer
    assert get(sock) == 200  # and the connection lives on
    print(f"the record took {time.monotonic() - began:.1f} s to be answered")


@pytest.mark.slow
def test_a_client_that_stops_reading_is_dropped(start: Any) -> None:
    server = start("--body-timeout", "2")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind(("127.0.0.2", 0))
    sock.connect(("127.0.0.1", server.port))
    requests = 2000
    sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * requests)
    time.sleep(6)  # the answers pile up unread past the body timeout
    received = b""
    sock.settimeout(HANG)
    try:
        while chunk := sock.recv(1 << 20):
            received += chunk
    except ConnectionError:
        pass
    assert received.count(b"HTTP/1.1 200 OK") < requests
    other = connect(server, "127.0.0.3")
    assert get(other) == 200


# ------------------------------------------------------------------ connection counts


@pytest.mark.slow
def test_connections_per_address_are_bounded(start: Any) -> None:
    server = start("--max-connections-per-client", "4", "--header-timeout", "60")
    held = [connect(server, "127.0.0.2") for _ in range(4)]
    assert get(held[0]) == 200  # the held ones work
    extra = connect(server, "127.0.0.2")
    status, headers, reason = refusal(extra)
    assert status == 429
    assert headers["retry-after"] == "1"
    assert reason == "too many connections from your address (at most 4); close one and try again"
    assert wait_closed(extra) < HANG
    # Another address is not affected.
    assert get(connect(server, "127.0.0.3")) == 200
    # A closed connection frees its place.
    held.pop().close()
    deadline = time.monotonic() + HANG
    while True:
        again = connect(server, "127.0.0.2")
        try:
            assert get(again) == 200
            break
        except (AssertionError, ConnectionError):
            assert time.monotonic() < deadline
            time.sleep(0.1)


@pytest.mark.slow
def test_connections_in_total_are_bounded(start: Any) -> None:
    server = start("--max-connections", "6", "--header-timeout", "60")
    honest = connect(server, "127.0.0.2")
    assert get(honest) == 200
    held = [connect(server, f"127.0.1.{i}") for i in range(1, 6)]
    late = connect(server, "127.0.0.3")
    status, headers, reason = refusal(late)
    assert (status, headers["retry-after"]) == (503, "1")
    assert reason == "the server has 6 connections open; try again"
    assert get(honest) == 200  # an open connection keeps being served
    for sock in held:
        sock.close()
    deadline = time.monotonic() + HANG
    while True:
        try:
            assert get(connect(server, "127.0.0.3")) == 200
            break
        except (AssertionError, ConnectionError):
            assert time.monotonic() < deadline
            time.sleep(0.1)


@pytest.mark.slow
def test_a_thousand_slow_connections_at_a_low_open_files_limit(start: Any) -> None:
    """The measured attack: 1,100 slow connections at 1,024 open files made every request fail."""
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 1400:
        pytest.skip("this test process may not open 1,400 files")
    server = start(
        "--max-connections-per-client", "200", "--header-timeout", "8", open_files=(1024, 1024)
    )
    assert "at most 512 connections per process" in server.log_text()
    honest = connect(server, "127.0.0.2")
    assert get(honest) == 200
    slow: list[socket.socket] = []
    answers: list[int] = []
    for i in range(1100):
        sock = connect(server, f"127.0.2.{1 + i % 11}")
        with contextlib.suppress(OSError):
            sock.sendall(b"GET / HTTP/1.1\r\n")
        slow.append(sock)
    time.sleep(1)
    for sock in slow:  # the refused ones have their answer already; the others nothing
        sock.setblocking(False)
        try:
            data = sock.recv(200)
        except (BlockingIOError, ConnectionError):
            continue
        finally:
            sock.settimeout(HANG)
        if data:
            answers.append(int(data.split()[1]))
    assert set(answers) == {503}
    assert len(answers) == 1100 - 511  # the honest connection holds one place
    assert get(honest) == 200  # kept alive through the flood
    late = connect(server, "127.0.0.3")
    assert refusal(late)[0] == 503  # a clear answer, not a hang or a reset
    # The head timeout frees the places; then new clients are served again.
    deadline = time.monotonic() + HANG
    while True:
        try:
            assert get(connect(server, "127.0.0.3")) == 200
            break
        except (AssertionError, ConnectionError):
            assert time.monotonic() < deadline
            time.sleep(0.2)
    for sock in slow:
        sock.close()
    assert "Too many open files" not in server.log_text()


@pytest.mark.slow
def test_the_open_files_limit_is_raised_to_the_hard_limit(start: Any) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard < 2048:
        pytest.skip(f"hard limit {hard}")
    server = start(open_files=(256, 2048))
    assert server.process is not None
    limits = Path(f"/proc/{server.process.pid}/limits").read_text()
    line = next(row for row in limits.splitlines() if row.startswith("Max open files"))
    assert line.split()[3:5] == ["2048", "2048"]
    assert "at most 1536 connections per process" in server.log_text()


# ------------------------------------------------------------------ forwarded addresses


def access_line(server: ServerProcess, marker: str) -> str:
    deadline = time.monotonic() + HANG
    while True:
        for line in server.log_text().splitlines():
            if marker in line:
                return line
        assert time.monotonic() < deadline, f"no access line with {marker}"
        time.sleep(0.05)


@pytest.mark.slow
def test_forwarded_headers_are_ignored_by_default(start: Any) -> None:
    server = start()
    sock = connect(server, "127.0.0.1")
    forwarded = {"X_Forwarded_For": "203.0.113.9", "X_Forwarded_Proto": "https"}
    assert get(sock, "/openapi.json?default", **forwarded) == 200
    line = access_line(server, "?default")
    assert "127.0.0.1:" in line
    assert "203.0.113.9" not in line


@pytest.mark.slow
def test_forwarded_headers_only_from_trusted_proxies(start: Any) -> None:
    server = start(
        "--forwarded-allow-ips", "127.0.0.1, 10.0.0.0/8", "--max-connections-per-client", "2"
    )
    proxy = connect(server, "127.0.0.1")
    assert get(proxy, "/openapi.json?viaproxy", X_Forwarded_For="203.0.113.9") == 200
    assert "203.0.113.9:" in access_line(server, "?viaproxy")
    stranger = connect(server, "127.0.0.5")
    assert get(stranger, "/openapi.json?spoofed", X_Forwarded_For="203.0.113.10") == 200
    line = access_line(server, "?spoofed")
    assert "127.0.0.5:" in line
    assert "203.0.113.10" not in line
    # The trusted proxy carries many clients: the per-address bound does not apply to it.
    through = [connect(server, "127.0.0.1") for _ in range(4)]
    assert all(get(sock) == 200 for sock in through)
    strangers = [connect(server, "127.0.0.6") for _ in range(2)]
    assert get(strangers[0]) == 200
    assert refusal(connect(server, "127.0.0.6"))[0] == 429


@pytest.mark.parametrize("value", ["127.0.0.1,proxy.example", "*,127.0.0.1", "300.1.1.1"])
def test_a_bad_forwarded_allow_ips_is_a_usage_error(tmp_path: Path, value: str) -> None:
    done = subprocess.run(
        [
            str(TWENTY48),
            "serve",
            "--db",
            str(tmp_path / "x.sqlite3"),
            "--forwarded-allow-ips",
            value,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--forwarded-allow-ips" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "x.sqlite3").exists()


@pytest.mark.slow
def test_the_bounds_hold_in_every_worker_process(start: Any) -> None:
    server = start("--workers", "2", "--max-header-bytes", "2048")
    deadline = time.monotonic() + 60
    while server.log_text().count("Application startup complete") < 2:  # both workers up
        assert time.monotonic() < deadline, server.log_text()
        time.sleep(0.1)
    for _ in range(12):  # the kernel hands the connections to either process
        sock = connect(server, "127.0.0.2")
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Fill: " + b"f" * 4000 + b"\r\n\r\n")
        assert refusal(sock)[0] == 431
        sock.close()


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize(
    ("host", "reach"),
    [
        ("0.0.0.0", ("127.0.0.1", "127.0.0.4")),
        pytest.param(
            "::",
            ("::1", ""),
            marks=pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback"),
        ),
    ],
)
def test_the_bounds_hold_on_any_host(tmp_path: Path, host: str, reach: tuple[str, str]) -> None:
    """Listening on every address, as when ``serve`` faces the internet with no proxy."""
    address, source = reach
    server = ServerProcess(
        str(tmp_path / "any-host.sqlite3"),
        tmp_path,
        "--no-analysis",
        "--host",
        host,
        "--max-connections-per-client",
        "2",
        "--max-header-bytes",
        "2048",
    )
    server.url = f"http://[{address}]:{server.port}" if ":" in address else server.url
    server.start()
    try:
        shown = f"[{host}]" if ":" in host else host
        assert f"http://{shown}:{server.port}/" in server.log_text()
        _attack_on(server, address, source)
    finally:
        server.stop()


def _attack_on(server: ServerProcess, address: str, source: str) -> None:
    """Per-client bound (429) and head bound (431) on ``address``; the held connection served."""

    def connect_to() -> socket.socket:
        return socket.create_connection(
            (address, server.port), timeout=HANG, source_address=(source, 0) if source else None
        )

    held = [connect_to() for _ in range(2)]
    assert get(held[0]) == 200
    status, _, reason = refusal(connect_to())
    assert status == 429, reason
    filler = held[1]
    filler.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Fill: " + b"f" * 4000 + b"\r\n\r\n")
    assert refusal(filler)[0] == 431
    assert get(held[0]) == 200  # the other connection is still served


def test_clients_are_counted_by_address_and_ipv6_by_their_64() -> None:
    from twenty48_replay.server.guard.transport import client_key

    assert client_key("203.0.113.7") == "203.0.113.7"
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:ffff::9")
    assert client_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert client_key("fe80::1%eth0") == "fe80::/64"
    assert client_key("not an address") == "not an address"
