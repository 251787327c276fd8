"""Shared fixtures: each test's own data folder, hypothesis profiles, the CLI runner, a key server.

What tests import (paths, ``run_cli``, ``run_race``) is in :mod:`support.common`.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from support.common import run_cli
from support.pg import fresh_database

# Browser fixtures (chromium, browser_page, new_browser_page): tests/support/browser.py.
pytest_plugins = ["support.browser"]

# Messages and screens follow the locale (twenty48_replay.core.i18n); the tests
# expect English unless they choose a language themselves, whatever the
# machine's locale, in this process and in every CLI subprocess.
os.environ["TWENTY48_LANG"] = "en"

# The user data folder (the default database, server keys, player secrets) is
# a private folder for this test run: no test reads or changes the real one,
# and two branches' test runs on one machine never share a database.
_DATA_HOME = tempfile.mkdtemp(prefix="twenty48-test-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=300
)
settings.register_profile("ci", parent=settings.get_profile("default"), max_examples=1000)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default")
)


@pytest.fixture(autouse=True)
def own_data_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test, and every CLI or server subprocess it starts, has a user data folder of its
    own (``XDG_DATA_HOME``): no test reads or writes the real one (a default database, a
    key), and no test sees what another left there."""
    folder = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A server's database, once a fresh SQLite file and once a fresh PostgreSQL database
    (skipped without ``TWENTY48_TEST_POSTGRES_URL``); a module may define its own ``db``."""
    if request.param == "sqlite":
        yield str(tmp_path / "server.sqlite3")
    else:
        yield from fresh_database()


@pytest.fixture
def cli() -> Any:
    return run_cli


@pytest.fixture
def language(request: pytest.FixtureRequest) -> Any:
    """In-process text in the language given as the test's parameter; English afterwards.

    Use with ``@pytest.mark.parametrize("language", ["en", "da"], indirect=True)``.
    """
    from twenty48_replay.core import i18n

    chosen: str = request.param
    i18n.set_language(chosen)
    yield chosen
    i18n.set_language(i18n.ENGLISH)


@pytest.fixture
def key_server() -> Iterator[tuple[str, dict[str, Any]]]:
    """A real HTTP server on a free port; ``routes`` maps a path to (status, body bytes), or
    to (status, body bytes, [(header, value), ...]) to send those headers instead of
    ``Content-Type: application/json`` (Content-Length is always sent)."""
    routes: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body, *given = routes.get(self.path, (404, b"{}"))
            headers = given[0] if given else [("Content-Type", "application/json")]
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", routes
    finally:
        server.shutdown()
        server.server_close()
