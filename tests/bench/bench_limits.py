"""Benchmark of the server's bounds (issue 18, sections 1 and 2): figures for the README.

Usage::

    python tests/bench/bench_limits.py [--twenty48 PATH] [--before] [--only NAME ...]

Each part starts its own ``twenty48 serve`` on a free port over a fresh
SQLite file in a temporary folder (its own ``XDG_DATA_HOME``), and prints
one line of figures:

- ``list-memory``: 10 self-seeded records with 999,900-value metadata are
  stored (this branch: with ``--max-record-bytes``/``--max-record-extra-bytes``
  raised so that they are), then ``GET /api/records?limit=...`` once; the
  server's resident memory (process and children, from /proc) before and at
  its peak during the request, and the request's time.
- ``record-stall``: one player's move latency (sequential moves on one
  connection) alone, then while 3 clients post 1 MiB records back to back.
- ``retry-flood``: a game played by the solver to (at most) 1,403 moves, then
  8 clients retrying its last move and reading it (``GET /api/games/{id}``)
  back to back, while another player's move latency is measured.
- ``disk``: the SQLite file's growth over 200 fair games (created, started,
  finished) and over 100 moves in each of them (checkpointed, on disk).

``--twenty48 PATH`` runs another checkout's command (``--before``: one
without this branch's options, such as main before issue 18).  Rate limits
are turned off where the branch has them: the scripted clients come from one
address.  Nothing here asserts a time; it prints figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.game import GameState
from twenty48_replay.core.record import Record
from twenty48_replay.solver import best_move

ROOT = Path(__file__).resolve().parents[2]
BRANCH_OPTIONS = ("--rate-limits", "off")
#: Values in a heavy record's metadata: as many as a record may hold (1,000,000 values
#: in all, its other fields included).
HEAVY_VALUES = 999_900


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_tree(pid: int) -> int:
    """Resident bytes of ``pid`` and its children (the record checker's pool, the analysis)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rpartition(")")[2].split()
            if int(entry.name) != pid and int(stat[1]) != pid:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return total


@contextmanager
def serve(args: argparse.Namespace, folder: Path, *options: str) -> Iterator[tuple[int, str, Path]]:
    """A server on a fresh SQLite file: (pid, url, database path)."""
    port = free_port()
    db = folder / f"bench-{port}.sqlite3"
    extra = () if args.before else BRANCH_OPTIONS
    command = [args.twenty48, "serve", "--db", str(db), "--port", str(port), "--no-analysis"]
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data")}
    log = (folder / f"server-{port}.log").open("wb")
    process = subprocess.Popen(
        [*command, "--no-access-log", *extra, *options], stdout=log, stderr=log, env=env
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/openapi.json", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit((folder / f"server-{port}.log").read_text()) from None
                time.sleep(0.1)
        yield process.pid, url, db
    finally:
        process.terminate()
        process.wait(30)
        log.close()


class Api:
    """One keep-alive connection to the server."""

    def __init__(self, url: str, timeout: float = 120) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.address = (host, int(port), timeout)
        self.connection = http.client.HTTPConnection(host, int(port), timeout=timeout)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, raw: bytes = b""
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = raw or (None if body is None else json.dumps(body).encode())
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
        except (ConnectionError, http.client.RemoteDisconnected):
            # An idle keep-alive connection the server closed: once more on a new one (a
            # move sent again with the same n is never applied twice).
            self.connection.close()
            host, port, timeout = self.address
            self.connection = http.client.HTTPConnection(host, port, timeout=timeout)
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
        payload = response.read()
        try:
            return response.status, json.loads(payload)
        except ValueError:
            return response.status, None

    def close(self) -> None:
        self.connection.close()


def first_valid(rows: list[list[int]]) -> str:
    board = Board.from_rows(rows)
    for direction in (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP):
        if board.slide(direction).changed:
            return direction.letter
    return ""


class Player:
    """A fair game played over one connection; ``move`` answers the latency in ms."""

    def __init__(self, url: str, name: str = "bench", *, solver: bool = False) -> None:
        self.api = Api(url)
        self.solver = solver
        status, body = self.api.call("POST", "/api/games", {"player": name})
        assert status == 201, body
        self.id, self.token = body["id"], body["token"]
        status, body = self.api.call(
            "POST", f"/api/games/{self.id}/start", {"client_seed": "c"}, self.token
        )
        assert status == 200, body
        self.rows, self.n, self.over, self.last = body["board"], 0, False, body

    def letter(self) -> str:
        if not self.solver:
            return first_valid(self.rows)
        direction, _values = best_move(Board.from_rows(self.rows))
        return "" if direction is None else direction.letter

    def move(self) -> float:
        letter = self.letter()
        if not letter:
            self.over = True
            return 0.0
        started = time.perf_counter()
        status, body = self.api.call(
            "POST", f"/api/games/{self.id}/moves", {"move": letter, "n": self.n + 1}, self.token
        )
        took = (time.perf_counter() - started) * 1000
        assert status == 200, (status, body)
        self.n += 1
        self.rows, self.over, self.last = body["board"], body["over"], body
        return took

    def fresh_if_over(self, url: str) -> Player:
        return Player(url, "bench") if self.over else self


def latencies(url: str, seconds: float) -> list[float]:
    """Sequential moves for ``seconds`` (new games as they end): each move's latency."""
    player = Player(url, "honest")
    found: list[float] = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        player = player.fresh_if_over(url)
        found.append(player.move())
        time.sleep(0.01)
    player.api.close()
    return found


def figures(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"n={len(values)} p50={statistics.median(ordered):.1f} ms "
        f"p99={p99:.1f} ms max={ordered[-1]:.1f} ms"
    )


def in_background(count: int, work: Callable[[threading.Event], None]) -> Callable[[], int]:
    """``count`` threads running ``work`` until stopped; the stopper answers how many ran."""
    stop = threading.Event()
    threads = [threading.Thread(target=work, args=(stop,), daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()

    def stopper() -> int:
        stop.set()
        for thread in threads:
            thread.join(180)
        return count

    return stopper


def heavy_record(seed: str, values: int) -> bytes:
    state = GameState.new(seed)
    letters = ""
    for _ in range(20):
        letter = first_valid(state.board.to_rows())
        state = state.play(Direction(letter))[0]
        letters += letter
    record = Record(seed, letters, score=state.score, extra={"values": [0] * values})
    return record.to_json().encode()


# ------------------------------------------------------------------ parts


def list_memory(args: argparse.Namespace, folder: Path) -> None:
    big = ("--max-record-bytes", "16777216", "--max-record-extra-bytes", "16777216")
    with serve(args, folder, *(() if args.before else big)) as (pid, url, _db):
        api = Api(url)
        for i in range(10):
            status, body = api.call(
                "POST", "/api/records", raw=heavy_record(f"heavy-{i}", HEAVY_VALUES)
            )
            assert status == 201, (status, body)
        time.sleep(1)
        before = rss_tree(pid)
        peak = [before]
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], rss_tree(pid))
                time.sleep(0.02)

        watcher = threading.Thread(target=watch)
        watcher.start()
        started = time.perf_counter()
        limit = 1000 if args.before else 100
        status, body = api.call("GET", f"/api/records?limit={limit}")
        took = time.perf_counter() - started
        done.set()
        watcher.join()
        assert status == 200, (status, body)
        listed = len(body["records"])
        print(
            f"list-memory: GET /api/records?limit={limit} over 10 records of "
            f"{HEAVY_VALUES:,}-value metadata: {listed} listed in {took:.2f} s; "
            f"server RSS {before / 2**20:.0f} MB before, peak {peak[0] / 2**20:.0f} MB",
            flush=True,
        )


def record_stall(args: argparse.Namespace, folder: Path) -> None:
    base = len(heavy_record("stall", 1))  # each further value is "0," (2 bytes)
    body = heavy_record("stall", 1 + (1024 * 1024 - base) // 2)  # the largest body taken
    with serve(args, folder) as (_pid, url, _db):
        alone = latencies(url, args.seconds)
        posted = [0]
        statuses: dict[int, int] = {}

        def post(stop: threading.Event) -> None:
            api = Api(url)
            while not stop.is_set():
                try:
                    status, _answer = api.call("POST", "/api/records", raw=body)
                except (OSError, http.client.HTTPException):
                    api.close()
                    api = Api(url)
                    continue
                statuses[status] = statuses.get(status, 0) + 1
                posted[0] += 1
            api.close()

        stopper = in_background(3, post)
        time.sleep(1)
        attacked = latencies(url, args.seconds)
        stopper()
        print(f"record-stall: body {len(body):,} bytes; moves alone: {figures(alone)}", flush=True)
        print(
            f"record-stall: while 3 clients posted it back to back ({posted[0]} posts, "
            f"statuses {dict(sorted(statuses.items()))}): {figures(attacked)}",
            flush=True,
        )


def retry_flood(args: argparse.Namespace, folder: Path) -> None:
    with serve(args, folder) as (_pid, url, _db):
        long = Player(url, "long", solver=True)
        while not long.over and long.n < args.long_moves:
            long.move()
        last = long.last
        alone = latencies(url, args.seconds)
        flooded = [0]

        def flood(stop: threading.Event) -> None:
            api = Api(url)
            while not stop.is_set():
                api.call(
                    "POST",
                    f"/api/games/{long.id}/moves",
                    {"move": last["move"], "n": last["n"]},
                    long.token,
                )
                api.call("GET", f"/api/games/{long.id}")
                flooded[0] += 2
            api.close()

        stopper = in_background(8, flood)
        time.sleep(1)
        attacked = latencies(url, args.seconds)
        stopper()
        print(f"retry-flood: a {long.n}-move game; moves alone: {figures(alone)}", flush=True)
        print(
            f"retry-flood: while 8 clients retried its last move and read it "
            f"({flooded[0]} requests): {figures(attacked)}",
            flush=True,
        )


def checkpointed_size(db: Path) -> int:
    connection = sqlite3.connect(db)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    return db.stat().st_size


def disk(args: argparse.Namespace, folder: Path) -> None:
    games, moves = 200, 100
    with serve(args, folder) as (_pid, url, db):
        time.sleep(1)
        empty = checkpointed_size(db)
        players = [Player(url, f"p{i % 20}") for i in range(games)]
        started = checkpointed_size(db)
        played = 0
        for player in players:
            for _ in range(moves):
                if player.over:
                    break
                player.move()
                played += 1
        after_moves = checkpointed_size(db)
        for player in players:
            if not player.over:
                status, body = player.api.call(
                    "POST", f"/api/games/{player.id}/finish", None, player.token
                )
                assert status == 200, (status, body)
        finished = checkpointed_size(db)
        per_game = (started - empty + finished - after_moves) / games
        per_move = (after_moves - started) / played
        print(
            f"disk: SQLite file {empty:,} bytes empty; {games} games created and started "
            f"+{started - empty:,}; {played:,} moves +{after_moves - started:,}; finished "
            f"+{finished - after_moves:,}: {per_game:,.0f} bytes per game, "
            f"{per_move:,.1f} bytes per move",
            flush=True,
        )


PARTS = {
    "list-memory": list_memory,
    "record-stall": record_stall,
    "retry-flood": retry_flood,
    "disk": disk,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--twenty48", default=shutil.which("twenty48") or "twenty48")
    parser.add_argument("--before", action="store_true", help="the command lacks --rate-limits")
    parser.add_argument("--only", nargs="*", choices=sorted(PARTS), default=list(PARTS))
    parser.add_argument("--seconds", type=float, default=8.0, help="each latency sample")
    parser.add_argument("--long-moves", type=int, default=1403)
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {args.twenty48}", flush=True)
    with tempfile.TemporaryDirectory() as name:
        for part in args.only:
            PARTS[part](args, Path(name))
    print(f"load average at the end: {os.getloadavg()}", file=sys.stderr)


if __name__ == "__main__":
    main()
