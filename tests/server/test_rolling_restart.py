"""Restarts with nothing lost (issue 33 item 12): two serve processes behind the shipped nginx.

Two real ``twenty48 serve`` processes on one PostgreSQL database, in one
upstream of ``deploy/nginx/twenty48.conf`` (its second server line made
active, as docs/operating.md, "Rolling restarts", has the operator do), and
200 players, each on its own loopback address over TLS with the project's
client and witness (:class:`~twenty48_replay.fairplay.client.RemoteGame`),
playing continuously.  While they play, one process gets SIGTERM and is
started again, then the other gets SIGKILL and is started again, as a
rolling upgrade would do (the kill: a crash, or a stop that ran out of time).

What must hold: every move a player saw acknowledged is in the database at
its number, and nothing else is; every game goes on to its end and its
signed record matches everything its player was shown; no player meets an
error (the client's retries are counted, and allowed).  The restarts are
triggered by the number of moves acknowledged, never by a clock, and no
assertion is about time: the stall figures (latency of the moves sent while
a process was down or starting, the retries) are printed, for
docs/performance/server.md.
"""

from __future__ import annotations

import http.client
import random
import re
import ssl
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.common import run_cli
from support.nginx_harness import NginxProcess, nginx_path
from support.pg import fresh_database
from support.server_client import server_log_letters
from support.server_harness import ServerProcess, free_port

from twenty48_replay.core.board import Direction
from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.fairplay.signing import TrustedKey

PLAYERS = 200
#: Moves each player plays (fewer if the game is over first), then ends the game.
MOVES = 40
#: Seconds between one player's moves (a quick person): 200 moves/s offered in all, below
#: what the 2 cores sustain, so that the latencies show the restarts, not a saturated machine.
PACE = 1.0
#: nginx's fail_timeout (its default, 10 s) and a margin: how long a process that failed
#: stays out of the upstream.  The guide's procedure waits this long after a restarted
#: process is ready before stopping the other; sooner, nginx has no process for a while.
FAIL_TIMEOUT = 11.0


def internal_errors(*servers: ServerProcess) -> list[str]:
    """The servers' logged internal errors (the exception's name and frames), to show a 500."""
    said = "".join(server.log_text() for server in servers)
    return [said[m.start() : m.start() + 3000] for m in re.finditer("internal error", said)]


class SourceClient(Client):
    """The project's client, connecting from one loopback address of its own.

    nginx bounds the connections of one address (``limit_conn``); 200 players
    on one address would meet that bound, not the restart.
    """

    def __init__(self, url: str, source: str, context: ssl.SSLContext) -> None:
        super().__init__(url)
        self.source = source
        self.context = context

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            self._connection = http.client.HTTPSConnection(
                self.host,
                self.port,
                timeout=timeout,
                source_address=(self.source, 0),
                context=self.context,
            )
        return self._connection


class Tally:
    """Moves acknowledged so far, and players done, for the driver to wait on.

    ``allowed``: the moves each player may have played so far; a player that
    reaches it waits (untimed) until the driver allows more.  It keeps the
    players mid-game through the driver's wait for nginx's fail_timeout, on a
    fast machine as on a slow one.
    """

    def __init__(self, allowed: int) -> None:
        self.condition = threading.Condition()
        self.acked = 0
        self.done = 0
        self.allowed = allowed

    def allow(self, moves: int) -> None:
        with self.condition:
            self.allowed = moves
            self.condition.notify_all()

    def wait_to_play(self, played: int) -> bool:
        """Block until the player may play its next move; whether it had to wait."""
        with self.condition:
            if played < self.allowed:
                return False
            self.condition.wait_for(lambda: played < self.allowed)
            return True

    def add(self, moves: int = 0, done: int = 0) -> None:
        with self.condition:
            self.acked += moves
            self.done += done
            self.condition.notify_all()

    def wait_for(self, acked: int) -> int:
        """Block until ``acked`` moves are acknowledged (or every player is done); players
        still playing then."""
        with self.condition:
            self.condition.wait_for(lambda: self.acked >= acked or self.done == PLAYERS)
            return PLAYERS - self.done


class Player:
    """One player on one thread: a fair game through nginx, every move timed."""

    def __init__(self, index: int, url: str, context: ssl.SSLContext) -> None:
        self.index = index
        self.client = SourceClient(url, f"127.0.{1 + index // 250}.{1 + index % 250}", context)
        self.rng = random.Random(index)
        self.game: RemoteGame | None = None
        self.record: dict[str, object] | None = None
        #: (time sent, seconds until its answer, retries it took) of every move.
        self.timings: list[tuple[float, float, int]] = []
        self.error: BaseException | None = None

    def open(self) -> None:
        try:
            self.game = RemoteGame(self.client, f"rolling-{self.index}", f"restart {self.index}")
        except BaseException as exc:
            self.error = exc

    def play(self, tally: Tally) -> None:
        try:
            game = self.game
            assert game is not None
            due = time.perf_counter() + self.rng.uniform(0, PACE)
            while game.state.moves < MOVES and not game.finished:
                if tally.wait_to_play(game.state.moves):
                    # Spread again: 200 players let go at once are a burst no person makes.
                    due = time.perf_counter() + self.rng.uniform(0, PACE)
                time.sleep(max(0.0, due - time.perf_counter()))
                due = max(due + PACE, time.perf_counter())
                board = game.state.board
                choices = [d.letter for d in Direction if board.slide(d).changed]
                letter = self.rng.choice(choices)
                retried = self.client.retried
                sent = time.perf_counter()
                game.play(letter)
                self.timings.append(
                    (sent, time.perf_counter() - sent, self.client.retried - retried)
                )
                tally.add(moves=1)
            self.record = game.finish()
        except BaseException as exc:
            self.error = exc
        finally:
            self.client.close()
            tally.add(done=1)


@pytest.fixture
def postgres() -> Iterator[str]:
    yield from fresh_database()


def quantile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=1000, method="inclusive")[round(q * 1000) - 1]


def describe(name: str, timings: list[tuple[float, float, int]]) -> str:
    seconds = [t for _, t, _ in timings]
    if not seconds:
        return f"{name}: no moves"
    return (
        f"{name}: {len(seconds)} moves, p50 {quantile(seconds, 0.5) * 1000:.1f} ms, "
        f"p99 {quantile(seconds, 0.99) * 1000:.1f} ms, max {max(seconds) * 1000:.1f} ms, "
        f"{sum(r for _, _, r in timings)} sent again by the client"
    )


@pytest.mark.slow
def test_rolling_restart_loses_no_acknowledged_move(postgres: str, tmp_path: Path) -> None:
    nginx_path()
    key = str(tmp_path / "server-key.pem")
    # As the systemd unit starts serve (its default rate limits: the players keep a person's
    # pace), with the key file both processes share.
    args = ("--no-analysis", "--no-access-log", "--key", key, "--forwarded-allow-ips", "127.0.0.1")
    first = ServerProcess(postgres, tmp_path, *args, port=free_port()).start()
    second = ServerProcess(postgres, tmp_path, *args, port=free_port()).start()
    nginx = NginxProcess(first.port, second_port=second.port).start()
    tally = Tally(MOVES // 2)
    try:
        context = nginx.client_context()
        players = [Player(i, nginx.url, context) for i in range(PLAYERS)]
        openers = [threading.Thread(target=p.open, daemon=True) for p in players]
        for thread in openers:
            thread.start()
        for thread in openers:
            thread.join()
        assert [p.error for p in players if p.error] == []

        began = time.perf_counter()
        threads = [threading.Thread(target=p.play, args=(tally,), daemon=True) for p in players]
        for thread in threads:
            thread.start()
        total = PLAYERS * MOVES
        marks: dict[str, float] = {}
        playing: list[int] = []

        # At most half of every game before the first process is back in nginx's upstream.
        playing.append(tally.wait_for(total // 10))
        marks["term"] = time.perf_counter()
        assert first.process is not None
        first.process.terminate()  # SIGTERM: requests in flight finish, then it exits
        first.process.wait(timeout=60)
        marks["term down"] = time.perf_counter()
        playing.append(tally.wait_for(total * 2 // 10))
        first.start()
        marks["term up"] = time.perf_counter()
        time.sleep(FAIL_TIMEOUT)  # the guide's procedure: nginx takes the first back
        tally.allow(MOVES)

        playing.append(tally.wait_for(total * 6 // 10))
        marks["kill"] = time.perf_counter()
        second.kill()  # SIGKILL: a crash; whatever was in flight is cut off
        playing.append(tally.wait_for(total * 7 // 10))
        marks["kill start"] = time.perf_counter()
        second.start()
        marks["kill up"] = time.perf_counter()

        for thread in threads:
            thread.join(timeout=600)
        ended = time.perf_counter()

        # Every restart happened while players were playing.
        assert min(playing) > 0, playing
        # No error reached a player; every game went on to its end.
        errors = [(p.index, repr(p.error)) for p in players if p.error]
        assert errors == [], errors + internal_errors(first, second)
        fetcher = SourceClient(nginx.url, "127.0.0.1", context)
        trusted = TrustedKey.from_well_known(fetcher.key())
        fetcher.close()
        for p in players:
            game = p.game
            assert game is not None
            assert game.finished, p.index
            assert p.record is not None, p.index
            assert len(game.letters) == MOVES or game.state.board.is_over(), p.index
            # Every acknowledged move is in the database at its number, and nothing else.
            assert server_log_letters(postgres, game.id) == game.letters, p.index
            assert game.check_record(p.record, trusted) == [], p.index
    finally:
        tally.allow(MOVES)  # a failed step leaves no player waiting at the gate
        nginx_log = nginx.log_text()
        nginx.stop()
        second.stop()
        first.stop()
    checked = run_cli("check", "--db", postgres)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # ---- the figures (printed, never asserted): how long players' moves stalled
    timings = [t for p in players for t in p.timings]

    def between(start: float, end: float) -> list[tuple[float, float, int]]:
        return [t for t in timings if start <= t[0] < end]

    before = between(0.0, marks["term"])
    term = between(marks["term"], marks["term up"])
    calm = between(marks["term up"], marks["kill"])
    kill = between(marks["kill"], marks["kill up"])
    after = between(marks["kill up"], ended)
    passed = len(re.findall(r"while (connecting|reading|sending)", nginx_log))
    print()
    print(
        f"{PLAYERS} players, {len(timings)} moves acknowledged in {ended - began:.1f} s "
        f"({len(timings) / (ended - began):.0f}/s), every one in the database"
    )
    print(
        f"SIGTERM: stopped in {marks['term down'] - marks['term']:.2f} s, "
        f"started again in {marks['term up'] - marks['term down']:.2f} s"
    )
    print(f"SIGKILL: started again in {marks['kill up'] - marks['kill start']:.2f} s")
    print(describe("  moves sent while one process stopped or started after SIGTERM", term))
    print(describe("  moves sent while one process was down or starting after SIGKILL", kill))
    print(describe("  moves sent before the first restart, both processes up", before))
    print(describe("  moves sent between the restarts, both processes up", calm))
    print(describe("  moves sent after the second restart, both processes up", after))
    print(f"  nginx: {passed} failed upstream exchanges logged (requests passed to the other)")
