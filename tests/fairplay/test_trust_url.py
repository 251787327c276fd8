"""``--trust URL`` over HTTP, exactly as SPEC 11.6 says: which answers are a key, which are not.

A real HTTP server on loopback (the ``key_server`` fixture) and a real HTTPS
server with a certificate made for the test serve the test key's
well-known document with each status, Content-Type, Content-Encoding and
redirect chain; the library and the real CLI take the key or refuse it with
one line (exit 2).  Accepted: status 200, one Content-Type of media type
``application/json`` (any parameters), no compression; at most 5 redirects
(301, 302, 303, 307, 308), to http(s) only, never from https to http.
"""

from __future__ import annotations

import gzip
import itertools
import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from support.common import VECTORS, load_json
from support.nginx_harness import make_certificate

from twenty48_replay.core.errors import KeyFileError
from twenty48_replay.fairplay.signing import MAX_REDIRECTS, WELL_KNOWN_PATH, load_trusted

FAIR = VECTORS / "fair"
DOCUMENT = (FAIR / "well-known.json").read_bytes()
KEY_ID: str = load_json(FAIR / "key.json")["key_id"]
JSON_TYPE = [("Content-Type", "application/json")]

Routes = dict[str, Any]


def refusal(trust: str) -> str:
    """The one line ``load_trusted`` refuses ``trust`` with."""
    with pytest.raises(KeyFileError) as info:
        load_trusted(trust)
    text = str(info.value)
    assert "\n" not in text
    return text


def serve_key(routes: Routes, path: str, status: int = 200, headers: Any = None) -> None:
    routes[path] = (status, DOCUMENT, JSON_TYPE if headers is None else headers)


def redirect(routes: Routes, path: str, location: str, status: int = 302) -> None:
    routes[path] = (status, b"", [("Location", location)])


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Routes, Path]]:
    """A real HTTPS server on 127.0.0.1 with a certificate of its own: (url, routes, cert)."""
    cert, key = make_certificate(tmp_path)
    routes: Routes = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body, headers = routes.get(self.path, (404, b"{}", JSON_TYPE))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", routes, cert
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- status codes


@pytest.mark.parametrize("status", [201, 203, 204, 206, 300, 304, 400, 404, 410, 500, 503])
def test_only_status_200_gives_a_key(status: int, key_server: tuple[str, Routes]) -> None:
    url, routes = key_server
    serve_key(routes, WELL_KNOWN_PATH, status)
    assert refusal(url).endswith(f"{WELL_KNOWN_PATH}: HTTP {status}")
    serve_key(routes, WELL_KNOWN_PATH, 200)
    assert load_trusted(url).key_id == KEY_ID


# ---------------------------------------------------------------- Content-Type


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "Application/JSON ;charset=UTF-8"],
)
def test_application_json_with_any_parameters_is_accepted(
    content_type: str, key_server: tuple[str, Routes]
) -> None:
    url, routes = key_server
    serve_key(routes, WELL_KNOWN_PATH, headers=[("Content-Type", content_type)])
    assert load_trusted(url).key_id == KEY_ID


@pytest.mark.parametrize(
    ("headers", "words"),
    [
        ([], "has 0 Content-Type headers"),
        ([("Content-Type", "text/html")], "the answer is 'text/html', not application/json"),
        ([("Content-Type", "text/plain; charset=utf-8")], "not application/json"),
        ([("Content-Type", "application/jwk+json")], "not application/json"),
        ([("Content-Type", "application/octet-stream")], "not application/json"),
        ([("Content-Type", "")], "not application/json"),
        (
            [("Content-Type", "application/json"), ("Content-Type", "application/json")],
            "has 2 Content-Type headers",
        ),
    ],
)
def test_any_other_content_type_is_refused(
    headers: list[tuple[str, str]], words: str, key_server: tuple[str, Routes]
) -> None:
    url, routes = key_server
    serve_key(routes, WELL_KNOWN_PATH, headers=headers)
    assert words in refusal(url)


def test_a_compressed_answer_is_refused_and_identity_is_not_compression(
    key_server: tuple[str, Routes],
) -> None:
    url, routes = key_server
    gzipped = [*JSON_TYPE, ("Content-Encoding", "gzip")]
    routes[WELL_KNOWN_PATH] = (200, gzip.compress(DOCUMENT), gzipped)
    assert "the answer is compressed (gzip)" in refusal(url)
    serve_key(routes, WELL_KNOWN_PATH, headers=[*JSON_TYPE, ("Content-Encoding", "identity")])
    assert load_trusted(url).key_id == KEY_ID


# ---------------------------------------------------------------- redirects


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_each_redirect_status_is_followed(status: int, key_server: tuple[str, Routes]) -> None:
    url, routes = key_server
    redirect(routes, WELL_KNOWN_PATH, "/moved/key.json", status)
    serve_key(routes, "/moved/key.json")
    assert load_trusted(url).key_id == KEY_ID


def test_at_most_five_redirects_are_followed(key_server: tuple[str, Routes]) -> None:
    url, routes = key_server
    assert MAX_REDIRECTS == 5
    chain = [WELL_KNOWN_PATH] + [f"/hop/{n}" for n in range(1, 7)]
    for here, there in itertools.pairwise(chain):
        redirect(routes, here, f"{url}{there}" if here.endswith("2") else there)
    serve_key(routes, "/hop/5")  # five redirects lead here
    assert load_trusted(url).key_id == KEY_ID
    redirect(routes, "/hop/5", "/hop/6")  # now a sixth
    serve_key(routes, "/hop/6")
    assert refusal(url).endswith(f"{WELL_KNOWN_PATH}: more than 5 redirects")


def test_a_redirect_loop_ends_after_five(key_server: tuple[str, Routes]) -> None:
    url, routes = key_server
    redirect(routes, WELL_KNOWN_PATH, WELL_KNOWN_PATH)
    assert refusal(url).endswith("more than 5 redirects")


def test_a_redirect_to_another_origin_is_followed(key_server: tuple[str, Routes]) -> None:
    url, routes = key_server
    other = ThreadingHTTPServer(("127.0.0.1", 0), _KeyHandler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        redirect(routes, WELL_KNOWN_PATH, f"http://127.0.0.1:{other.server_address[1]}/key")
        assert load_trusted(url).key_id == KEY_ID
    finally:
        other.shutdown()
        other.server_close()


class _KeyHandler(BaseHTTPRequestHandler):
    """Serves the test key at every path."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(DOCUMENT)))
        self.end_headers()
        self.wfile.write(DOCUMENT)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize(
    ("location", "words"),
    [
        ("ftp://127.0.0.1/key", "redirected to a URL that is not http(s): ftp://127.0.0.1/key"),
        ("file:///etc/passwd", "redirected to a URL that is not http(s): file:///etc/passwd"),
        ("javascript:alert(1)", "redirected to a URL that is not http(s)"),
    ],
)
def test_a_redirect_elsewhere_than_http_is_refused(
    location: str, words: str, key_server: tuple[str, Routes]
) -> None:
    url, routes = key_server
    redirect(routes, WELL_KNOWN_PATH, location)
    assert words in refusal(url)


def test_a_redirect_without_a_location_is_refused(key_server: tuple[str, Routes]) -> None:
    url, routes = key_server
    routes[WELL_KNOWN_PATH] = (302, b"", [])
    assert refusal(url).endswith("HTTP 302 redirects without a Location")


def test_https_never_goes_down_to_http(
    key_server: tuple[str, Routes],
    tls_server: tuple[str, Routes, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain, plain_routes = key_server
    secure, secure_routes, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    serve_key(plain_routes, "/key")
    serve_key(secure_routes, "/key")
    serve_key(secure_routes, WELL_KNOWN_PATH)
    assert load_trusted(secure).key_id == KEY_ID
    # https -> https, and http -> https (an upgrade), are followed.
    redirect(secure_routes, WELL_KNOWN_PATH, "/key")
    assert load_trusted(secure).key_id == KEY_ID
    redirect(plain_routes, WELL_KNOWN_PATH, f"{secure}/key")
    assert load_trusted(plain).key_id == KEY_ID
    # https -> http is not, even to a server that serves the right key ...
    redirect(secure_routes, WELL_KNOWN_PATH, f"{plain}/key")
    assert f"redirected from https to plain http: {plain}/key" in refusal(secure)
    # ... nor later in the chain: http -> https -> http.
    redirect(plain_routes, f"/up{WELL_KNOWN_PATH}", f"{secure}{WELL_KNOWN_PATH}")
    assert "redirected from https to plain http" in refusal(f"{plain}/up{WELL_KNOWN_PATH}")


# ---------------------------------------------------------------- the command line


@pytest.mark.slow
def test_cli_refuses_with_one_line_and_exit_2(
    cli: Any, key_server: tuple[str, Routes], tls_server: tuple[str, Routes, Path]
) -> None:
    url, routes = key_server
    secure, secure_routes, cert = tls_server
    record = str(FAIR / "record.json")
    cases = {
        "/status/.well-known/twenty48-key": (203, DOCUMENT, JSON_TYPE),
        "/type/.well-known/twenty48-key": (200, DOCUMENT, [("Content-Type", "text/html\x1b[2J")]),
        "/loop/.well-known/twenty48-key": (
            302,
            b"",
            [("Location", "/loop/.well-known/twenty48-key")],
        ),
    }
    routes.update(cases)
    redirect(secure_routes, WELL_KNOWN_PATH, f"{url}/key")
    serve_key(routes, "/key")
    env = {"SSL_CERT_FILE": str(cert)}
    for trust in [*(url + path.removesuffix(WELL_KNOWN_PATH) for path in cases), secure]:
        result = cli("verify", "--json", "--trust", trust, record, env=env)
        assert result.returncode == 2, (trust, result.stdout, result.stderr)
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("twenty48: error: cannot fetch the key from "), lines
        assert "\x1b" not in result.stderr
    serve_key(routes, WELL_KNOWN_PATH)
    good = cli("verify", "--json", "--trust", url, record)
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["fair"] == "fair"


@pytest.mark.parametrize(
    ("route", "english", "danish"),
    [
        (
            (200, DOCUMENT, [("Content-Type", "text/html")]),
            "the answer is 'text/html', not application/json",
            "svaret er 'text/html', ikke application/json",
        ),
        (
            (302, b"", [("Location", WELL_KNOWN_PATH)]),
            "more than 5 redirects",
            "mere end 5 omdirigeringer",
        ),
        ((302, b"", []), "HTTP 302 redirects without a Location", "omdirigerer uden en Location"),
        (
            (200, gzip.compress(DOCUMENT), [*JSON_TYPE, ("Content-Encoding", "gzip")]),
            "the answer is compressed (gzip)",
            "svaret er komprimeret (gzip)",
        ),
        (
            (200, DOCUMENT, []),
            "the answer has 0 Content-Type headers",
            "svaret har 0 Content-Type-felter",
        ),
    ],
)
def test_a_refused_answer_is_said_in_the_readers_language(
    cli: Any, key_server: tuple[str, Routes], route: Any, english: str, danish: str
) -> None:
    url, routes = key_server
    routes[WELL_KNOWN_PATH] = route
    record = str(FAIR / "record.json")
    said = cli("verify", "--trust", url, record)
    assert said.returncode == 2
    assert english in said.stderr
    sagt = cli("--lang", "da", "verify", "--trust", url, record)
    assert sagt.returncode == 2
    assert sagt.stderr.startswith(f"twenty48: fejl: kan ikke hente nøglen fra {url}"), sagt.stderr
    assert danish in sagt.stderr
