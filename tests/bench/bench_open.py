"""What checking every read costs (issue 9): opening the 20,000-move game.

Run from the project root after installing:
    python tests/bench/bench_open.py [--record tests/data/long-20000.json] [--runs 15]

Imports the record into a fresh SQLite file in a temporary folder, then
times (median of ``--runs``, milliseconds), each in a fresh process state
as far as the library allows:

* opening the store (marker check, whole-schema comparison, engine);
* ``open_game`` / ``game_as_record``: the checked read (row fields, log rows,
  SHA-256 digest, move count, replay and projection comparison);
* the parts of that read alone: fetching the log, hashing it, replaying it.

It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twenty48_replay import Record
from twenty48_replay.core.replay import final_state
from twenty48_replay.store import Store, reads

DATA = Path(__file__).resolve().parents[1] / "data"


def median_ms(action: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


COLD = """
import sys, time
started = time.perf_counter()
from twenty48_replay.store import Store
imported = time.perf_counter()
store = Store(sys.argv[1])
opened = time.perf_counter()
store.open_game(int(sys.argv[2]))
loaded = time.perf_counter()
print((opened - imported) * 1000, (loaded - opened) * 1000)
"""


def cold_ms(path: Path, game_id: int, runs: int) -> tuple[float, float]:
    """Median (open the store, open_game) in fresh processes (nothing cached)."""
    opens, loads = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", COLD, str(path), str(game_id)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        opens.append(float(out[0]))
        loads.append(float(out[1]))
    return statistics.median(opens), statistics.median(loads)


def show(label: str, ms: float) -> None:
    print(f"{label:48} {ms:8.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, default=DATA / "long-20000.json")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    record = Record.from_json(args.record.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.sqlite3"
        with Store(str(path)) as store:
            game_id = store.import_record(record).game_id
        size = path.stat().st_size
        print(f"record {args.record.name}: {len(record.moves):,} moves; file {size:,} bytes")
        cold_open, cold_load = cold_ms(path, game_id, args.runs)
        show("fresh process: open the store (schema check)", cold_open)
        show("fresh process: open_game (checked read)", cold_load)
        show("fresh process: both", cold_open + cold_load)
        show("warm: open the store", median_ms(lambda: Store(str(path)).close(), args.runs))
        with Store(str(path)) as store:
            rows: dict[str, Any] = {}

            def fetch() -> None:
                with store.reading() as connection:
                    rows["info"] = reads.get_game(connection, game_id)
                    rows["log"] = reads.move_log(connection, game_id)
                    rows["digest"] = reads.stored_digest(connection, game_id)

            show("warm: fetch row + log + digest", median_ms(fetch, args.runs))
            letters = rows["log"][0]
            show(
                "warm: SHA-256 of the move string",
                median_ms(lambda: reads.log_digest(letters), args.runs),
            )
            show(
                "warm: replay of the log",
                median_ms(lambda: final_state(Record(record.seed, letters, 0)), args.runs),
            )
            show(
                "warm: every check (digest, count, replay, compare)",
                median_ms(
                    lambda: reads.game_problems(
                        rows["info"], letters, rows["log"][1], rows["digest"]
                    ),
                    args.runs,
                ),
            )
            show(
                "warm: open_game (checked read)",
                median_ms(lambda: store.open_game(game_id), args.runs),
            )
            show(
                "warm: game_as_record (checked read)",
                median_ms(lambda: store.game_as_record(game_id), args.runs),
            )


if __name__ == "__main__":
    main()
