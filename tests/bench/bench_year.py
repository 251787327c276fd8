"""Benchmark of a year of games: the score server's reads at 10,000 to 1,000,000 finished games.

Builds a database of ``--games`` finished games (default 1,000,000, about 95
moves each) on SQLite (a file under ``--tmp``) or PostgreSQL (``--backend
postgresql --pg URL``: a fresh database is created there and dropped after),
then measures, with a real ``twenty48 serve`` on a free port, over HTTP:

* ``GET /leaderboard`` (the page) and ``GET /api/leaderboard`` (first page,
  and ranks 101-110: the cursor of ``?limit=100``),
* ``GET /api/records`` (submitted self-seeded records, first page),
* ``GET /api/games/{id}/record`` (one signed record, random games),

and in this process, through the store: one player's games
(``Store.list_games(player=...)``, what ``twenty48 list --player`` reads;
the server has no route for it) and the expiry sweep's two queries
(``expire_unstarted`` and ``idle_games``, in a transaction rolled back),
and the wall time of ``twenty48 check`` and ``twenty48 backup`` (SQLite only:
backup refuses PostgreSQL, whose backup is ``pg_dump``).

It prints a table (p50 / p99 / count, in ms) and asserts nothing.

How the database is built: the store creates the schema, then rows go in
by the driver's bulk path: SQLite ``executemany`` in transactions of 5,000
games with ``synchronous=OFF``, the store's triggers in place; PostgreSQL
``COPY`` with triggers off for the load session
(``session_replication_role = replica``), as the per-row PL/pgSQL
next-sequence trigger alone holds a load to about 40,000 moves/s.
``Store.import_record`` verifies and deduplicates every record, which an
import must do but is not what is measured here; and a year of fair games
comes from play, not from import.  The games are real: ``--bases`` distinct
games, each a random valid-move player's game cut at 50-180 moves, replayed
by the engine for their projection, then reused for many rows (different
players, times and ids); ``check`` replays every row, so it pays for each.  The players' bests
(``player_bests``, which the leaderboard reads) are then built from the
rows by ``store.bests.rebuild``, as the upgrade to schema 6 builds them.
90% are fair games (``fair_games`` and ``game_players`` rows, finished,
with a stored record of a signed fair record's size), 10% submitted
self-seeded records.  Players: one per 50 games, so a player has about 50
games, as a regular of a year would (``game_players`` holds the name as
given, not its skeleton: nobody is banned here).

    python tests/bench/bench_year.py --games 10000
    python tests/bench/bench_year.py --games 100000 --backend postgresql --pg URL
    python tests/bench/bench_year.py --build-only            # keep it, print its path
    python tests/bench/bench_year.py --db PATH [--answers-only]  # measure a kept one
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from support.server_harness import ServerProcess  # noqa: E402

from twenty48_replay.core.board import Direction  # noqa: E402
from twenty48_replay.core.game import GameState  # noqa: E402
from twenty48_replay.core.record import VERSION  # noqa: E402
from twenty48_replay.store import Store, bests  # noqa: E402
from twenty48_replay.store import fair_games as fair_store  # noqa: E402
from twenty48_replay.store.tables import board_text  # noqa: E402

TWENTY48 = Path(sys.executable).with_name("twenty48")
YEAR_MS = 365 * 24 * 3600 * 1000
START_MS = 1_767_225_600_000  # 2026-01-01 UTC
CHUNK = 5_000  # games per transaction
LETTERS = "LDRU"


@attrs.frozen
class Base:
    """One real game: its seed, moves and the projection the engine computed."""

    seed: str
    moves: str
    score: int
    max_tile: int
    board: str
    won: bool
    over: bool
    digest: str
    record: str  # a record of a signed fair record's shape and size


def base_games(count: int, seed: int) -> list[Base]:
    chooser = random.Random(seed)
    out = []
    for i in range(count):
        game_seed = f"year-{seed}-{i}"
        state = GameState.new(game_seed)
        letters: list[str] = []
        length = chooser.randint(50, 180)
        while len(letters) < length and not state.over:
            options = [d for d in LETTERS if state.board.slide(Direction(d)).changed]
            if not options:
                break
            letter = chooser.choice(options)
            state, _, _ = state.play(Direction(letter))
            letters.append(letter)
        moves = "".join(letters)
        record = json.dumps(
            {
                "version": VERSION,
                "seed": game_seed,
                "moves": moves,
                "score": state.score,
                "player": "p",
                "fair": {
                    "server_seed": "0" * 64,
                    "client_seed": "bench",
                    "commitment": "1" * 64,
                    "key_id": "k" * 16,
                    "move_times_ms": list(range(0, 300 * len(moves), 300)),
                    "signature": "s" * 88,
                },
            }
        )
        out.append(
            Base(
                game_seed,
                moves,
                state.score,
                state.max_tile,
                board_text(state.board),
                state.won,
                state.over,
                hashlib.sha256(moves.encode()).hexdigest(),
                record,
            )
        )
    return out


@attrs.frozen
class Plan:
    """What row ``i`` of a database of ``games`` games holds."""

    games: int
    bases: list[Base]

    @property
    def players(self) -> int:
        return max(10, self.games // 50)

    def base(self, i: int) -> Base:
        return self.bases[(i * 7919) % len(self.bases)]

    def player(self, i: int) -> str:
        # Independent of the base game (i % bases): each base's copies spread over all players.
        return f"player-{((i // 500) * 7 + i * 104729) % self.players}"

    def created(self, i: int) -> int:
        return START_MS + YEAR_MS * i // self.games

    def fair(self, i: int) -> bool:
        return i % 10 != 9


def chunk_rows(plan: Plan, lo: int, hi: int) -> dict[str, list[tuple[Any, ...]]]:
    rows: dict[str, list[tuple[Any, ...]]] = {
        "games": [],
        "moves": [],
        "log_digests": [],
        "fair_games": [],
        "game_players": [],
        "submitted_records": [],
    }
    for i in range(lo, hi):
        gid = i + 1
        b = plan.base(i)
        player = plan.player(i)
        created = plan.created(i)
        n = len(b.moves)
        finished = created + 300 * n + 1000
        fair = plan.fair(i)
        rows["games"].append(
            (
                gid,
                b.seed,
                VERSION,
                player,
                created,
                finished,
                n,
                b.score,
                b.max_tile,
                b.board,
                b.won,
                b.over,
                False,
                None,
            )
        )
        played = created + 1000
        if fair:
            rows["moves"].extend(
                (gid, s + 1, letter, played + 300 * s) for s, letter in enumerate(b.moves)
            )
        else:
            rows["moves"].extend((gid, s + 1, letter, None) for s, letter in enumerate(b.moves))
        rows["log_digests"].append((gid, b.digest))
        if fair:
            token = hashlib.sha256(f"t{gid}".encode()).hexdigest()
            rows["fair_games"].append(
                (
                    gid,
                    player,
                    token,
                    "0" * 64,
                    "1" * 64,
                    "k" * 16,
                    "bench",
                    gid,
                    created,
                    created,
                    finished,
                    b.record,
                    "done",
                    finished,
                    None,
                    None,
                    None,
                )
            )
            rows["game_players"].append((gid, player, False))
        else:
            rows["submitted_records"].append((gid, finished))
    return rows


COLUMNS = {
    "games": "id, seed, rules_version, player, created_ms, updated_ms, move_count, score, "
    "max_tile, board, won, over, assisted, extra",
    "moves": "game_id, seq, direction, played_ms",
    "log_digests": "game_id, digest",
    "fair_games": "id, player, token_hash, server_seed, commitment, key_id, client_seed, "
    "game_id, created_ms, started_ms, finished_ms, record, analysis, analysis_ms, "
    "engine_matches, engine_checked, median_interval_ms",
    "game_players": "fair_id, name_key, registered",
    "submitted_records": "game_id, submitted_ms",
}


def chunks(plan: Plan) -> Iterator[tuple[int, dict[str, list[tuple[Any, ...]]]]]:
    for lo in range(0, plan.games, CHUNK):
        hi = min(plan.games, lo + CHUNK)
        yield hi, chunk_rows(plan, lo, hi)


def progress(done: int, plan: Plan, start: float, moves: int) -> None:
    if done % (CHUNK * 20) == 0 or done == plan.games:
        seconds = time.perf_counter() - start
        print(
            f"  built {done:,} games, {moves:,} moves, {seconds:.0f} s "
            f"({moves / max(seconds, 1e-9):,.0f} moves/s)",
            flush=True,
        )


def build_sqlite(path: Path, plan: Plan) -> int:
    Store(str(path)).close()  # the schema, triggers and markers, as the store makes them
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -400000")
    start = time.perf_counter()
    moves = 0
    for done, rows in chunks(plan):
        db.execute("BEGIN")
        for table, values in rows.items():
            if values:
                marks = ", ".join("?" * len(values[0]))
                db.executemany(f"INSERT INTO {table} ({COLUMNS[table]}) VALUES ({marks})", values)
        db.execute("COMMIT")
        moves += len(rows["moves"])
        progress(done, plan, start, moves)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("ANALYZE")
    db.close()
    return moves


def copy_text(values: list[tuple[Any, ...]]) -> bytes:
    out = io.StringIO()
    for row in values:
        out.write(
            "\t".join(
                "\\N" if v is None else ("t" if v is True else "f" if v is False else str(v))
                for v in row
            )
        )
        out.write("\n")
    return out.getvalue().encode()


def build_postgresql(url: str, plan: Plan) -> int:
    Store(url).close()
    import psycopg

    conninfo = make_url(url).set(drivername="postgresql")
    moves = 0
    start = time.perf_counter()
    with psycopg.connect(conninfo.render_as_string(hide_password=False)) as db:
        # The moves' next-sequence trigger is a PL/pgSQL call per row (about 40,000 rows/s
        # here): off for this bulk load of logs known to be whole; `check` reads them after.
        db.execute("SET session_replication_role = replica")
        for done, rows in chunks(plan):
            with db.transaction(), db.cursor() as cursor:
                for table, values in rows.items():
                    if values:
                        with cursor.copy(f"COPY {table} ({COLUMNS[table]}) FROM STDIN") as copy:
                            copy.write(copy_text(values))
            moves += len(rows["moves"])
            progress(done, plan, start, moves)
        for table in ("games", "fair_games"):
            db.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT MAX(id) FROM {table}))"
            )
        db.commit()
        db.autocommit = True
        db.execute("VACUUM ANALYZE")
    return moves


# ------------------------------------------------------------------ measuring


def timed(fn: Callable[[], object], count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as answer:
        body: bytes = answer.read()
        assert answer.status == 200, (url, answer.status)
        return body


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def row(name: str, times: list[float]) -> None:
    print(
        f"| {name} | {statistics.median(times):,.1f} | {p99(times):,.1f} | {len(times)} |",
        flush=True,
    )


def measure(
    target: str,
    plan: Plan,
    folder: Path,
    count: int,
    sqlite_file: Path | None,
    *,
    answers_only: bool = False,
) -> None:
    chooser = random.Random(5)
    # The records are signed with a made-up key: a new key from now on, unless a server of
    # an earlier run (--db) has made its key file already.
    rotate = () if Path(f"{target}.server-key.pem").exists() else ("--rotate-key",)
    flags = ("--no-access-log", "--no-analysis", "--rate-limits", "off", *rotate)
    server = ServerProcess(target, folder, *flags).start(timeout=600)
    try:
        base = server.url
        get(base + "/api/leaderboard")  # warm
        print("\n| answer | p50 ms | p99 ms | count |\n| --- | --- | --- | --- |")
        row("GET /leaderboard (page)", timed(lambda: get(base + "/leaderboard"), count))
        row("GET /api/leaderboard", timed(lambda: get(base + "/api/leaderboard"), count))
        first = json.loads(get(base + "/api/leaderboard?limit=100"))
        cursor = first["next_cursor"]
        if cursor:
            row(
                "GET /api/leaderboard, page 2 (cursor)",
                timed(lambda: get(f"{base}/api/leaderboard?cursor={cursor}"), count),
            )
        row("GET /api/records", timed(lambda: get(base + "/api/records"), count))
        fair_ids = [i + 1 for i in range(plan.games) if plan.fair(i)]
        row(
            "GET /api/games/{id}/record",
            timed(lambda: get(f"{base}/api/games/{chooser.choice(fair_ids)}/record"), count),
        )
    finally:
        server.stop()
        if server.process is not None:
            server.process.wait(timeout=60)

    with Store(target) as store:
        players = [plan.player(i) for i in range(plan.players)]
        row(
            "one player's games (Store.list_games, 20 newest)",
            timed(lambda: store.list_games(player=chooser.choice(players)), count),
        )

        def sweep() -> None:
            with store.engine.connect() as connection, connection.begin() as transaction:
                fair_store.expire_unstarted(connection, START_MS + YEAR_MS, 100)
                fair_store.idle_games(connection, START_MS + YEAR_MS, 100)
                transaction.rollback()

        row("expiry sweep (expire_unstarted + idle_games)", timed(sweep, count))

    print()
    if answers_only:
        return
    start = time.perf_counter()
    done = subprocess.run([str(TWENTY48), "check", "--db", target], capture_output=True, text=True)
    print(
        f"twenty48 check: {time.perf_counter() - start:.1f} s (exit {done.returncode}; "
        f"{done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else done.stderr[-300:]})",
        flush=True,
    )
    if sqlite_file is not None:
        copy = folder / "backup.sqlite3"
        start = time.perf_counter()
        done = subprocess.run(
            [str(TWENTY48), "backup", "--db", target, "-o", str(copy)],
            capture_output=True,
            text=True,
        )
        print(
            f"twenty48 backup: {time.perf_counter() - start:.1f} s (exit {done.returncode}), "
            f"{copy.stat().st_size / 1e9 if copy.exists() else 0:.2f} GB",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--pg", help="PostgreSQL server URL (a database is created and dropped)")
    parser.add_argument("--bases", type=int, default=5000, help="distinct real games")
    parser.add_argument("--count", type=int, default=200, help="requests per answer")
    parser.add_argument("--tmp", type=Path, default=Path("/tmp"))
    parser.add_argument("--keep", action="store_true", help="keep the database (path printed)")
    parser.add_argument("--build-only", action="store_true", help="build, keep, measure nothing")
    parser.add_argument("--db", help="measure this database (built earlier with --keep)")
    parser.add_argument("--answers-only", action="store_true", help="no check, no backup")
    args = parser.parse_args()
    if args.build_only:
        args.keep = True
    print(f"uptime: {os.popen('uptime').read().strip()}", flush=True)
    plan = Plan(args.games, base_games(args.bases, 1))
    folder = Path(tempfile.mkdtemp(prefix="bench-year-", dir=args.tmp))
    if args.db:
        sqlite_path = None if "://" in args.db else Path(args.db)
        measure(args.db, plan, folder, args.count, sqlite_path, answers_only=args.answers_only)
        shutil.rmtree(folder, ignore_errors=True)
        print(f"uptime: {os.popen('uptime').read().strip()}", flush=True)
        return
    admin = None
    name = ""
    try:
        start = time.perf_counter()
        if args.backend == "sqlite":
            path = folder / "year.sqlite3"
            target, sqlite_file = str(path), path
            moves = build_sqlite(path, plan)
        else:
            if not args.pg:
                parser.error("--backend postgresql needs --pg URL")
            base_url = make_url(args.pg)
            name = f"year_{uuid.uuid4().hex[:8]}"
            admin = create_engine(base_url, isolation_level="AUTOCOMMIT")
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
            target = base_url.set(database=name).render_as_string(hide_password=False)
            sqlite_file = None
            moves = build_postgresql(target, plan)
        seconds = time.perf_counter() - start
        rebuilt = time.perf_counter()
        with Store(target) as store, store.transaction() as connection:
            # Derived from the rows just loaded, as the upgrade to schema 6 builds it.
            bests.rebuild(connection)
        print(f"players' bests built in {time.perf_counter() - rebuilt:.1f} s", flush=True)
        with Store(target) as store, store.reading() as connection:
            from twenty48_replay.store import dialects

            size = dialects.file_size_bytes(connection) or 0
        print(
            f"{args.backend}: {args.games:,} games ({plan.players:,} players), {moves:,} moves, "
            f"built in {seconds:.0f} s ({moves / seconds:,.0f} moves/s), "
            f"database {size / 1e9:.2f} GB",
            flush=True,
        )
        if args.build_only:
            print(f"database: {target}")
        else:
            measure(target, plan, folder, args.count, sqlite_file, answers_only=args.answers_only)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
            if admin is not None:
                with admin.connect() as connection:
                    connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        else:
            print(f"kept: {folder} {name}", flush=True)
        if admin is not None:
            admin.dispose()
    print(f"uptime: {os.popen('uptime').read().strip()}", flush=True)


if __name__ == "__main__":
    main()
