"""Benchmark of the store (issue 3): import, export, open/resume, bytes per move.

Run from the project root after installing:
    python tests/bench/bench_store.py [--long RECORD.json] [--games 300]

It prints figures and asserts nothing.  Import and export go through the
library and the real CLI on a fresh SQLite file in a temporary folder.
Games for the import are real games (a simple first-valid-of-LDRU player
over distinct seeds, plus the long record if given), each verified on the
way in, one transaction per record.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from twenty48_replay import Direction, GameState, Record, verify
from twenty48_replay.store import Store

DATA = Path(__file__).resolve().parents[1] / "data"


def simple_game(seed: str) -> Record:
    state = GameState.new(seed)
    letters = []
    while True:
        for letter in "LDRU":
            if state.board.slide(Direction(letter)).changed:
                state, _, _ = state.play(Direction(letter))
                letters.append(letter)
                break
        else:
            break
    return Record(seed, "".join(letters), state.score)


def moves_table_bytes(path: Path) -> int | None:
    connection = sqlite3.connect(path)
    try:
        row = connection.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = 'moves'").fetchone()
        return int(row[0]) if row and row[0] is not None else None
    except sqlite3.OperationalError:
        return None
    finally:
        connection.close()


def prefixes(count: int) -> list[Record]:
    """Distinct real records of mixed length: random prefixes of the long games in tests/data."""
    bases = [Record.from_json(p.read_text()) for p in sorted(DATA.glob("*.json"))]
    chooser = random.Random(3)
    out = []
    for _ in range(count):
        base = chooser.choice(bases)
        moves = base.moves[: chooser.randint(len(base.moves) // 4, len(base.moves))]
        out.append(Record(base.seed, moves, verify(Record(base.seed, moves, 0)).score))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--long", type=Path, help="a long record for open/resume timing")
    parser.add_argument("--games", type=int, default=300, help="short games (a simple player)")
    parser.add_argument("--prefixes", type=int, default=300, help="prefixes of long games")
    args = parser.parse_args()
    records = [simple_game(f"store-bench-{i}") for i in range(args.games)] + prefixes(args.prefixes)
    long_record = None
    if args.long:
        long_record = Record.from_json(args.long.read_text(encoding="utf-8"))
        assert verify(long_record).valid
        records.append(long_record)
    total = sum(len(r.moves) for r in records)
    print(f"{len(records)} records, {total} moves (mean {total // len(records)})")
    exe = Path(sys.executable).with_name("twenty48")
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "records.jsonl"
        jsonl.write_text("".join(r.to_json() + "\n" for r in records), encoding="utf-8")

        db = Path(tmp) / "lib.sqlite3"
        with Store(str(db)) as store:
            start = time.perf_counter()
            for record in records:
                store.import_record(record)
            lib_seconds = time.perf_counter() - start
        print(
            f"import, library, one transaction per record: {lib_seconds:.2f} s, "
            f"{total / lib_seconds:,.0f} moves/s"
        )

        cli_db = Path(tmp) / "cli.sqlite3"
        start = time.perf_counter()
        subprocess.run(
            [str(exe), "import", "--db", str(cli_db), str(jsonl)], check=True, capture_output=True
        )
        cli_seconds = time.perf_counter() - start
        print(
            f"import, `twenty48 import` wall time: {cli_seconds:.2f} s, "
            f"{total / cli_seconds:,.0f} moves/s"
        )

        start = time.perf_counter()
        out = subprocess.run(
            [str(exe), "export", "--all", "--db", str(cli_db)], check=True, capture_output=True
        ).stdout
        export_seconds = time.perf_counter() - start
        assert out.count(b"\n") == len({(r.seed, r.moves) for r in records})
        print(
            f"export, `twenty48 export --all` wall time: {export_seconds:.2f} s, "
            f"{total / export_seconds:,.0f} moves/s"
        )

        size = cli_db.stat().st_size
        wal = Path(str(cli_db) + "-wal")
        table = moves_table_bytes(cli_db)
        print(
            f"database file {size:,} bytes (+ WAL {wal.stat().st_size if wal.exists() else 0:,})"
            f" = {size / total:.1f} bytes per move overall"
        )
        if table is not None:
            print(f"moves table {table:,} bytes = {table / total:.1f} bytes per stored move")

        if long_record is not None:
            with Store(str(cli_db)) as store:
                game_id = store.list_games(seed=long_record.seed, limit=1)[0].id
                times = []
                for _ in range(10):
                    start = time.perf_counter()
                    session = store.open_game(game_id)
                    times.append(time.perf_counter() - start)
                assert session.state.moves == len(long_record.moves)
            print(
                f"open and resume a {len(long_record.moves):,}-move game (Store.open_game): "
                f"median {statistics.median(times) * 1000:.1f} ms, "
                f"best {min(times) * 1000:.1f} ms"
            )
            start = time.perf_counter()
            subprocess.run(
                [str(exe), "show", "--db", str(cli_db), str(game_id)],
                check=True,
                capture_output=True,
            )
            print(
                f"`twenty48 show` of that game, wall time incl. start-up: "
                f"{time.perf_counter() - start:.2f} s"
            )


if __name__ == "__main__":
    main()
