"""What following the logs' hash chains costs: serve's start, /readyz, check.

Run from the project root after installing:
    python tests/bench/bench_chain.py [--rows 1000 10000 100000] [--db URL]

For each size, a fresh database (an SQLite file in a temporary folder, or
the PostgreSQL URL given, which must be an empty database and is filled)
gets that many moderation actions (with ``--db`` the sizes add up: the log
keeps its rows), appended through the store as
``twenty48 admin`` appends them, in transactions of 1,000; then the
chains are followed (:func:`twenty48_replay.store.log_chain.verify`, what
serve's start-up, ``/readyz`` every 10 s and ``twenty48 check`` do) five
times.  It prints the time of one append and the median time to follow,
and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import text

from twenty48_replay.store import Store, log_chain

ACTIONS = ("ban", "unban")


def fill(store: Store, rows: int) -> float:
    """Append ``rows`` moderation actions; seconds per append."""
    started = time.perf_counter()
    done = 0
    while done < rows:
        with store.transaction() as connection:
            for n in range(done, min(rows, done + 1000)):
                log_chain.append(
                    connection,
                    log_chain.MODERATION_LOG,
                    {
                        "acted_ms": n,
                        "actor": "bench",
                        "action": ACTIONS[n % 2],
                        "player": f"player{n // 2}",
                        "name_key": f"player{n // 2}",
                        "reason": "a reason of a typical length for a moderation action",
                    },
                )
        done = min(rows, done + 1000)
    return (time.perf_counter() - started) / rows


def follow(store: Store, repeats: int = 5) -> float:
    """Median seconds to follow both chains."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        report = store.chains()
        times.append(time.perf_counter() - started)
        assert report.intact, report.problems
    return statistics.median(times)


def run(target: str, rows: int) -> None:
    with Store(target) as store:
        per_append = fill(store, rows)
        median = follow(store)
        with store.reading() as connection:
            counted = connection.execute(text("SELECT count(*) FROM moderation_log")).scalar_one()
    print(
        f"{rows:>8} rows ({counted} in the log): append {per_append * 1e3:.3f} ms each, "
        f"follow both chains {median * 1e3:.1f} ms (median of 5), "
        f"{rows / median:,.0f} rows/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--db", help="an empty PostgreSQL database (default: SQLite files)")
    args = parser.parse_args()
    for rows in args.rows:
        if args.db:
            run(args.db, rows)
            continue
        with tempfile.TemporaryDirectory() as folder:
            run(str(Path(folder) / "chain.sqlite3"), rows)


if __name__ == "__main__":
    main()
