"""Shared fixtures: paths, hypothesis profiles, and a runner for the real CLI."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Browser fixtures (chromium, browser_page, new_browser_page): tests/browser.py.
pytest_plugins = ["browser"]

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schema"
VECTORS = SCHEMA / "vectors"
EXAMPLES = ROOT / "examples"

# Messages and screens follow the locale (twenty48_replay.i18n); the tests
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


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run_cli(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``twenty48`` console script as a real subprocess."""
    exe = Path(sys.executable).with_name("twenty48")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "twenty48_cli"]
    return subprocess.run(
        [*command, *args],
        input=stdin.decode("utf-8", "surrogateescape") if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.fixture
def cli() -> Any:
    return run_cli


@pytest.fixture
def language(request: pytest.FixtureRequest) -> Any:
    """In-process text in the language given as the test's parameter; English afterwards.

    Use with ``@pytest.mark.parametrize("language", ["en", "da"], indirect=True)``.
    """
    from twenty48_replay import i18n

    chosen: str = request.param
    i18n.set_language(chosen)
    yield chosen
    i18n.set_language(i18n.ENGLISH)


def run_race(
    db: str, game_ids: list[int], moves: str, drivers: int, folder: Path, timeout: float = 300
) -> list[dict[str, Any]]:
    """Race ``drivers`` processes of ``tests/race_driver.py`` over the same games.

    Each driver loads the games, then creates ``ready-<pid>`` in ``folder``;
    once all are ready the ``go`` file releases them together, so every one
    of them starts from the same soon-stale states.  Waiting for the files,
    not for a fixed time, keeps the race real on a slow or loaded machine.
    Returns each driver's JSON report (appended, conflicts, message).
    """
    go = folder / "go"
    command = [
        sys.executable,
        str(ROOT / "tests" / "race_driver.py"),
        db,
        ",".join(map(str, game_ids)),
        moves,
        str(go),
    ]
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(drivers)
    ]
    deadline = time.monotonic() + timeout
    while (ready := len(list(folder.glob("ready-*")))) < drivers:
        for process in processes:
            if process.poll() is not None:
                raise AssertionError(f"a race driver stopped early: {process.communicate()[1]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"only {ready} of {drivers} race drivers loaded their games")
        time.sleep(0.01)
    go.touch()
    reports = []
    for process in processes:
        out, err = process.communicate(timeout=timeout)
        assert process.returncode == 0, err
        reports.append(json.loads(out))
    return reports


@pytest.fixture
def key_server() -> Iterator[tuple[str, dict[str, Any]]]:
    """A real HTTP server on a free port; ``routes`` maps a path to (status, body bytes)."""
    routes: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = routes.get(self.path, (404, b"{}"))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
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
