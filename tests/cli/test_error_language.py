"""Errors from the network, the listener, the cluster and kept secrets speak the reader's
language (issue 20 s.3: no English inside Danish text that a person reads).

``twenty48 --lang da play --server URL`` printed ``fejl: server answered 403: ...``,
``... is unusable: ...`` and ``cannot reach ...: [Errno 111] Connection refused``;
``serve`` on a port in use, ``verify --scheduler`` on a dead scheduler and a kept
player secret open to others did the same.  Each is now a marked template with
parameters (:class:`~twenty48_replay.core.errors.MessageError`): ``str()`` keeps the
English for machines, the CLI shows the catalog's Danish.  The server's own
``error`` words are quoted as it sent them (README "Languages and terminals").
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from support.common import EXAMPLES, run_cli

#: path -> (status, body): what the stand-in server answers a POST to the path.
Answers = dict[str, tuple[int, bytes]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def stand_in() -> Iterator[tuple[str, Answers]]:
    """A real HTTP server on a free port that answers what the test puts in ``answers``."""
    answers: Answers = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(min(length, 10_000))
            status, body = answers.get(self.path, (404, b'{"error": "not here"}'))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", answers
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _play(url: str, tmp_path: Path, *lang: str) -> tuple[int, str]:
    done = run_cli(
        *lang,
        "play",
        "--server",
        url,
        "--moves",
        "L",
        "--player",
        "zoe",
        "--db",
        str(tmp_path / "local.sqlite3"),
        env={"XDG_DATA_HOME": str(tmp_path / "data")},
        timeout=60,
    )
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    return done.returncode, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("status", "body", "english", "danish"),
    [
        (
            403,
            b'{"error": "players must register"}',
            "server answered 403: players must register",
            "serveren svarede 403: players must register",
        ),
        (500, b"", "server answered 500: refused", "serveren svarede 500: afvist"),
        (
            201,
            b"{not json",
            "the server's answer to POST /api/games is unusable: not JSON: ",
            "serverens svar på POST /api/games er ubrugeligt: ikke JSON: ",
        ),
        (
            201,
            b'{"a": 1, "a": 2}',
            "the server's answer to POST /api/games is unusable: duplicate key 'a'",
            "serverens svar på POST /api/games er ubrugeligt: dobbelt nøgle 'a'",
        ),
    ],
)
def test_a_refusing_or_garbled_server_is_said_in_danish(
    stand_in: tuple[str, Answers],
    tmp_path: Path,
    status: int,
    body: bytes,
    english: str,
    danish: str,
) -> None:
    url, answers = stand_in
    answers["/api/games"] = (status, body)
    code, said = _play(url, tmp_path)
    assert said.startswith(f"twenty48: error: {english}"), said
    kode, sagt = _play(url, tmp_path, "--lang", "da")
    assert kode == code
    assert sagt.startswith(f"twenty48: fejl: {danish}"), sagt
    assert english not in sagt


@pytest.mark.slow
def test_an_unreachable_server_is_said_in_danish(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    code, said = _play(url, tmp_path)
    assert code == 2
    assert said == f"twenty48: error: cannot reach {url}: connection refused\n"
    kode, sagt = _play(url, tmp_path, "--lang", "da")
    assert kode == 2
    assert sagt == f"twenty48: fejl: kan ikke nå {url}: forbindelsen blev afvist\n"


@pytest.mark.parametrize(
    ("url", "danish"),
    [
        ("ftp://example.org", "'ftp://example.org' er ikke en server-URL: en server-URL begynder"),
        ("http://127.0.0.1:0", "'http://127.0.0.1:0' er ikke en server-URL: port 0"),
        (
            "http://127.0.0.1:99999",
            "'http://127.0.0.1:99999' er ikke en server-URL (porten ligger uden for 0-65535)",
        ),
    ],
)
def test_a_bad_server_url_is_said_in_danish(tmp_path: Path, url: str, danish: str) -> None:
    code, sagt = _play(url, tmp_path, "--lang", "da")
    assert code == 2
    assert danish in sagt, sagt
    assert "is not a server URL" not in sagt


@pytest.mark.slow
def test_a_kept_secret_open_to_others_is_said_in_danish(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    digest = hashlib.sha256(f"{url}\nzoe".encode()).hexdigest()
    folder = tmp_path / "data" / "twenty48-replay" / "player-secrets"
    folder.mkdir(parents=True)
    secret = folder / f"{digest}.secret"
    secret.write_text("A" * 32, encoding="ascii")
    secret.chmod(0o644)
    code, said = _play(url, tmp_path)
    assert said == f"twenty48: error: {secret}: readable by others (mode 644)\n"
    kode, sagt = _play(url, tmp_path, "--lang", "da")
    assert kode == code
    assert sagt == f"twenty48: fejl: {secret}: kan læses af andre (tilstand 644)\n"


@pytest.mark.slow
def test_a_port_in_use_is_said_in_danish(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["serve", "--host", "127.0.0.1", "--port", str(port)]
        args += ["--db", str(tmp_path / "server.sqlite3")]
        said = run_cli(*args, timeout=60)
        sagt = run_cli("--lang", "da", *args, timeout=60)
    assert said.returncode == sagt.returncode == 2
    assert said.stderr == (
        f"twenty48: error: cannot listen on 127.0.0.1:{port}: address already in use\n"
    )
    assert sagt.stderr == (
        f"twenty48: fejl: kan ikke lytte på 127.0.0.1:{port}: adressen er allerede i brug\n"
    )


@pytest.mark.slow
def test_an_unreachable_scheduler_is_said_in_danish() -> None:
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_free_port()}"
    record = str(EXAMPLES / "valid.json")
    said = run_cli("verify", "--scheduler", address, record, timeout=60)
    assert said.stderr == (
        f"twenty48: error: cannot reach the scheduler at {address}: connection refused\n"
    )
    sagt = run_cli("--lang", "da", "verify", "--scheduler", address, record, timeout=60)
    assert sagt.returncode == said.returncode == 2
    assert sagt.stderr == (
        f"twenty48: fejl: kan ikke nå scheduleren på {address}: forbindelsen blev afvist\n"
    )


def test_message_error_keeps_english_and_numbers_follow_the_language() -> None:
    from twenty48_replay.core import i18n
    from twenty48_replay.core.errors import MessageError
    from twenty48_replay.core.i18n import N_
    from twenty48_replay.fairplay.client import AnswerError

    error = AnswerError("GET /x", MessageError(N_("it is over {limit:,} bytes"), limit=1_048_576))
    english = "the server's answer to GET /x is unusable: it is over 1,048,576 bytes"
    assert str(error) == english
    assert json.loads(json.dumps({"error": str(error)}))["error"] == english
    i18n.set_language("da")
    try:
        assert (
            error.translated()
            == "serverens svar på GET /x er ubrugeligt: det er over 1.048.576 byte"
        )
        assert str(error) == english
    finally:
        i18n.set_language(i18n.ENGLISH)


def test_a_tls_failure_is_said_in_the_tls_library_s_words() -> None:
    """An SSLError's errno is the TLS library's code: errno 1 is not "operation not permitted".

    Found by CI: ``play --server`` against an untrusted certificate said "operation not
    permitted" and no longer named the certificate (tests/server/test_deploy.py).
    """
    import ssl

    from twenty48_replay.core.errors import os_problem

    problem = ssl.SSLCertVerificationError(
        1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"
    )
    assert "certificate" in str(os_problem(problem))
