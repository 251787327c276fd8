"""Operations (issue 18, section 6): /healthz, /readyz, /metrics (also across ``--workers 2``
on PostgreSQL), the access log's client address, and no secret in any answer or log.

A real ``twenty48 serve`` on a free port, real HTTP from chosen loopback addresses
(Linux routes all of 127.0.0.0/8 to loopback), SQLite and PostgreSQL.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import sqlite3
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from support.leaks import assert_no_leak, private_key_forms
from support.pg import fresh_database, server_url
from support.server_client import play_some
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.fairplay.signing import ServerKey


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def pg_db() -> Iterator[str]:
    yield from fresh_database()


def get(
    url: str, path: str, *, source: str = "127.0.0.1", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """GET ``path`` on a fresh connection from the loopback address ``source``."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def scrape(url: str) -> dict[str, float]:
    """``/metrics`` as {sample name with labels: value}."""
    status, headers, body = get(url, "/metrics")
    assert status == 200, body
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def metrics_folder(server: ServerProcess) -> Path:
    """The server's private metrics folder (named after its process id)."""
    assert server.process is not None
    (folder,) = Path(tempfile.gettempdir()).glob(f"twenty48-metrics-{server.process.pid}-*")
    return folder


@pytest.mark.slow
def test_health_ready_and_metrics(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        assert get(server.url, "/healthz")[:1] == (200,)
        assert json.loads(get(server.url, "/healthz")[2]) == {"status": "ok"}
        status, _headers, body = get(server.url, "/readyz")
        ready = json.loads(body)
        assert (status, ready["status"]) == (200, "ready")
        assert sorted(ready["chains"]) == ["key_events", "moderation_log"]  # the logs' heads
        folder = metrics_folder(server)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700

        client = Client(server.url)
        game = RemoteGame(client, "ann")
        play_some(game, 12)
        client.move(game.id, game.token, 12, game.letters[11])  # a retry: answered, not counted
        idle = client.new_game("bob")  # created, never started
        finished = RemoteGame(client, "cy")
        play_some(finished, 4)
        finished.finish()
        get(server.url, "/api/games/999999")  # 404
        get(server.url, "/nowhere")  # 404
        samples = scrape(server.url)
        moves = game.state.moves + finished.state.moves
        assert moves == 16
        assert samples["twenty48_moves_acknowledged_total"] == moves
        null_moves = samples.get('twenty48_refusals_total{reason="unprocessable",status="422"}', 0)
        assert samples["twenty48_move_latency_seconds_count"] == moves + 1 + null_moves
        assert samples["twenty48_commit_batch_size_count"] >= 1
        assert samples["twenty48_commit_batch_size_sum"] >= moves + 1 + 3 + 2 + 1
        assert samples['twenty48_open_games{state="started"}'] == 1
        assert samples['twenty48_open_games{state="unstarted"}'] == 1
        assert samples["twenty48_analysis_queue_length"] == 1  # --no-analysis: it waits
        assert samples['twenty48_refusals_total{reason="not_found",status="404"}'] == 2
        assert idle["id"]
        # Refusals of the request guard carry their own reason.
        status, _headers, _body = get(
            server.url, "/healthz", headers={"Origin": "https://x.example"}
        )
        assert status == 403
        samples = scrape(server.url)
        assert samples['twenty48_refusals_total{reason="origin_not_allowed",status="403"}'] == 1
    assert not folder.exists()  # removed when serve stopped


@pytest.mark.slow
def test_metrics_only_for_allowed_addresses(tmp_path: Path) -> None:
    """/metrics does not exist for others (404 like any unknown path), by client address."""
    db = str(tmp_path / "allow.sqlite3")
    with ServerProcess(db, tmp_path, "--no-analysis", "--metrics-allow", "127.0.0.9") as server:
        status, _headers, body = get(server.url, "/metrics")
        assert status == 404
        assert json.loads(body) == {"error": "Not Found"}
        assert get(server.url, "/metrics", source="127.0.0.8")[0] == 404
        assert get(server.url, "/metrics", source="127.0.0.9")[0] == 200
        # A forged X-Forwarded-For from an address that is not a trusted proxy changes nothing.
        forged = get(
            server.url, "/metrics", source="127.0.0.8", headers={"X-Forwarded-For": "127.0.0.9"}
        )
        assert forged[0] == 404
    with ServerProcess(db, tmp_path, "--no-analysis") as server:  # default: loopback
        assert get(server.url, "/metrics", source="127.0.0.3")[0] == 200


@pytest.mark.slow
def test_readyz_says_when_the_database_does_not_answer(tmp_path: Path) -> None:
    """An SQLite file locked by another process past the busy timeout: not ready (503 and
    why) while /healthz still answers; ready again once the lock is gone."""
    db = tmp_path / "locked.sqlite3"
    with ServerProcess(str(db), tmp_path, "--no-analysis") as server:
        assert get(server.url, "/readyz")[0] == 200
        time.sleep(1.1)  # past the reuse of the last outcome
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            status, _headers, body = get(server.url, "/readyz")
            assert status == 503
            reason = json.loads(body)["error"]
            assert "database does not answer" in reason or "did not answer within" in reason
            assert get(server.url, "/healthz")[0] == 200
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        deadline = time.monotonic() + 30
        while get(server.url, "/readyz")[0] != 200:
            assert time.monotonic() < deadline
            time.sleep(0.3)


@pytest.mark.slow
def test_readyz_on_postgresql_when_the_database_is_gone(pg_db: str, tmp_path: Path) -> None:
    from sqlalchemy.engine import make_url

    with ServerProcess(pg_db, tmp_path, "--no-analysis") as server:
        assert get(server.url, "/readyz")[0] == 200
        time.sleep(1.1)
        url = make_url(pg_db)
        admin = create_engine(server_url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE "{url.database}" WITH (FORCE)'))
        admin.dispose()
        status, _headers, body = get(server.url, "/readyz")
        assert status == 503
        assert "database does not answer" in json.loads(body)["error"]
        assert get(server.url, "/healthz")[0] == 200
        log = server.log_text()
        assert "Traceback" not in log


@pytest.mark.slow
def test_metrics_across_two_workers_on_postgresql(pg_db: str, tmp_path: Path) -> None:
    """Every process counts its own requests; whichever answers /metrics reports the sum."""
    with ServerProcess(pg_db, tmp_path, "--no-analysis", "--workers", "2") as server:
        folder = metrics_folder(server)
        games = []
        for player in ("ann", "bob", "cy", "dee"):
            client = Client(server.url)
            game = RemoteGame(client, player)
            games.append(game)
        played = 0
        for round_ in range(6):
            for game in games:
                game.client.close()  # a new connection each time: either process may take it
                before = game.state.moves
                play_some(game, round_ + 1)
                played += game.state.moves - before
        totals = set()
        for _ in range(12):  # fresh connections land on both processes
            samples = scrape(server.url)
            totals.add(samples["twenty48_moves_acknowledged_total"])
            assert samples['twenty48_open_games{state="started"}'] == 4
        assert totals == {played}
        pids = {re.sub(r"\D", "", f.name) for f in folder.iterdir()}
        assert len(pids) >= 2, sorted(f.name for f in folder.iterdir())  # both processes counted
        assert get(server.url, "/readyz")[0] == 200
    assert not folder.exists()


def test_the_metrics_folder_goes_with_sigterm(tmp_path: Path) -> None:
    """uvicorn re-raises SIGTERM after its shutdown: the folder is removed first."""
    server = ServerProcess(str(tmp_path / "term.sqlite3"), tmp_path, "--no-analysis")
    with server:
        folder = metrics_folder(server)
        assert folder.exists()
        assert server.process is not None
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == -signal.SIGTERM
    assert not folder.exists()


@pytest.mark.slow
def test_access_log_carries_the_client_address(tmp_path: Path) -> None:
    with ServerProcess(str(tmp_path / "log.sqlite3"), tmp_path, "--no-analysis") as server:
        get(server.url, "/healthz", source="127.0.0.3")
        get(server.url, "/healthz", source="127.0.0.4", headers={"X-Forwarded-For": "203.0.113.9"})
        time.sleep(0.5)
        log = server.log_text()
    assert re.search(r'127\.0\.0\.3:\d+ - "GET /healthz HTTP/1\.1" 200', log), log
    assert re.search(r'127\.0\.0\.4:\d+ - "GET /healthz HTTP/1\.1" 200', log), log
    assert "203.0.113.9" not in log  # not a trusted proxy: its header is ignored


@pytest.mark.slow
def test_no_secret_in_any_answer_or_log(db: str, tmp_path: Path) -> None:
    """The unfinished game's server seed and the private key appear in no answer of the new
    endpoints (or the old ones around them) and in no log line, refusals included."""
    seen: list[bytes] = []
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        client = Client(server.url)
        open_game = RemoteGame(client, "eve")
        play_some(open_game, 5)
        done = RemoteGame(client, "fay")
        play_some(done, 5)
        done.finish()
        paths = [
            "/healthz",
            "/readyz",
            "/metrics",
            "/.well-known/twenty48-key",
            f"/api/games/{open_game.id}",
            f"/api/games/{open_game.id}/record",
            f"/games/{open_game.id}",
            "/api/leaderboard",
        ]
        for path in paths:
            for headers in ({}, {"Origin": "https://x.example"}, {"Host": "evil.example"}):
                seen.append(b"".join(_flatten(get(server.url, path, headers=headers))))
        threads = [
            threading.Thread(target=lambda: seen.append(get(server.url, "/readyz")[2]))
            for _ in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        log = server.log_text().encode()
        key_path = (
            Path(db + ".server-key.pem")
            if "://" not in db
            else (tmp_path / "xdg" / "twenty48-replay" / "twenty48-server.server-key.pem")
        )
        key = ServerKey.load(key_path)
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    with engine.connect() as connection:
        server_seed, game_seed = connection.execute(
            text(
                "SELECT f.server_seed, g.seed FROM fair_games f JOIN games g ON g.id = f.game_id "
                "WHERE f.id = :i"
            ),
            {"i": open_game.id},
        ).one()
    engine.dispose()
    secrets = [server_seed.encode(), game_seed.encode(), *private_key_forms(key)]
    assert_no_leak([*seen, log], secrets)


def _flatten(answer: tuple[int, dict[str, str], bytes]) -> list[bytes]:
    status, headers, body = answer
    return [str(status).encode(), json.dumps(headers).encode(), body]


@pytest.mark.slow
def test_metrics_folder_of_a_killed_server_is_removed_at_the_next_start(tmp_path: Path) -> None:
    db = str(tmp_path / "killed.sqlite3")
    first = ServerProcess(db, tmp_path, "--no-analysis")
    with first:
        left = metrics_folder(first)
        first.kill()
    assert left.exists()
    with ServerProcess(db, tmp_path, "--no-analysis"):
        assert not left.exists()


def test_the_latency_tally_adds_what_observing_each_move_would() -> None:
    """Bulk flushes give the histogram the same buckets and sum as one ``observe`` per move,
    bounds included (a bucket counts values up to and including its bound)."""
    from prometheus_client import CollectorRegistry, Histogram

    from twenty48_replay.server.http.metrics import MOVE_LATENCY, LatencyTally

    buckets = MOVE_LATENCY._upper_bounds[:-1]
    tallied = Histogram("tallied", "t", buckets=buckets, registry=CollectorRegistry())
    observed = Histogram("observed", "o", buckets=buckets, registry=CollectorRegistry())
    tally = LatencyTally(tallied)
    values = [0.0, 0.0005, 0.001, 0.0011, 0.05, 0.05, 0.07, 5.0, 9.0, 1e9]
    for round_ in range(3):
        for value in values[round_:]:
            tally.observe(value)
            observed.observe(value)
        tally.flush()
    tally.flush()  # nothing new: adds nothing

    def samples(histogram: Histogram) -> list[tuple[str, dict[str, str], float]]:
        return [
            (s.name.split("_", 1)[1], s.labels, s.value)
            for metric in histogram.collect()
            for s in metric.samples
            if not s.name.endswith("_created")
        ]

    tallied_samples, observed_samples = samples(tallied), samples(observed)
    assert [s for s in tallied_samples if s[0] != "sum"] == [
        s for s in observed_samples if s[0] != "sum"
    ]
    sums = [s[2] for s in (*tallied_samples, *observed_samples) if s[0] == "sum"]
    assert sums[0] == pytest.approx(sums[1], rel=1e-12)  # added in another order
