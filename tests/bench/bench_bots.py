"""Benchmark of the bot signal: is the project's own solver flagged, and is other play not?

Starts a real ``twenty48 serve`` (SQLite in a temporary folder, or ``--pg
URL``) with its analysis on and default thresholds, then plays fair games
through the real HTTP API (tests/support/bot_players.py):

* **the solver as a bot**, at every strength it offers (``default``, the
  strength of ``hint``/``autoplay`` and of ``best_move`` without settings)
  and at the fixed depths of 1, 2 and 3 plies a library user can ask for
  (``SearchSettings(min_plies=k, max_plies=k)``); each once sending every
  move as soon as it is chosen, and once waiting a human-like time before
  each move (log-normal, median 0.45 s, and a pause of 1.5-5 s one move in
  twenty), the time spent choosing included;
* **stand-ins for people**, with the same human-like delays: a random
  player, a greedy player (the move that scores most now) and the corner
  strategy.  They are not people: they show that play unlike the solver's
  is not flagged, nothing about a strong human (see README "Bot signals").

``--extra-depths 4`` adds solver settings outside the analysis ladder (a
fixed 4-ply search) to show what the signal does *not* see.

Each game stops after ``--moves`` moves (default 500: about the length of a
game that reaches 1024; the analysis searches at most 150 positions of a
game whatever its length, so longer games only cost time) or at game over,
and is finished (signed, ranked).  Every game has its own player name, so
each is its own leaderboard line.  When every game is analysed, the flag
rate of each setting is read from ``GET /api/leaderboard`` and printed,
with the engine-match rates and the rhythm the server measured.

    python tests/bench/bench_bots.py                    # 20 games per setting
    python tests/bench/bench_bots.py --games 5 --moves 200 --only default
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import json  # noqa: E402

from support.bot_players import HONEST, play_remote, solver_strategy  # noqa: E402
from support.server_harness import ServerProcess  # noqa: E402


def solver_settings(name: str) -> Any:
    """The ``SearchSettings`` of a bench setting name: a strength, or ``pN`` for N plies."""
    from twenty48_replay.solver.agreement import fixed_depth, offered_strengths

    if name.startswith("p") and name[1:].isdigit():
        return fixed_depth(int(name[1:]))
    return dict(offered_strengths())[name]


def play_one(job: tuple[str, str, str, bool, int, str]) -> dict[str, Any]:
    """One game in a worker process (the strategy is built there: it may import NumPy)."""
    url, kind, name, delays, moves, seed = job
    strategy = solver_strategy(solver_settings(name)) if kind == "solver" else HONEST[name]
    player = seed
    started = time.perf_counter()
    result = play_remote(url, player, strategy, moves=moves, delays=delays, seed=seed)
    result["seconds"] = time.perf_counter() - started
    return result


def play_settings(
    url: str, settings: list[tuple[str, str, bool]], parallel: int, args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Every game of these settings (kind, name, delays), ``parallel`` games at once."""
    jobs = []
    for kind, name, delays in settings:
        label = f"{kind}-{name}-{'delayed' if delays else 'instant'}"
        jobs += [
            (url, kind, name, delays, args.moves, f"{label}-{i:02d}") for i in range(args.games)
        ]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=max(1, parallel)) as pool:
        for job, result in zip(jobs, pool.map(play_one, jobs), strict=True):
            result["label"] = job[5][:-3]
            results.append(result)
            done = [r for r in results if r["label"] == result["label"]]
            if len(done) == args.games:
                print(
                    f"  played {result['label']}: {len(done)} games, "
                    f"{sum(r['moves'] for r in done)} moves, {time.perf_counter() - started:.0f} s "
                    f"since the phase began (load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    return results


def leaderboard(url: str) -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(url + "/api/leaderboard?limit=1000", timeout=60) as answer:
        document = json.loads(answer.read())
    return {game["player"]: game for game in document["games"]}


def wait_for_analysis(url: str, players: list[str], timeout: float) -> dict[str, dict[str, Any]]:
    started = time.monotonic()
    while True:
        board = leaderboard(url)
        waiting = [p for p in players if board.get(p, {}).get("suspected_bot") is None]
        if not waiting or time.monotonic() - started > timeout:
            if waiting:
                print(f"  {len(waiting)} games still not analysed after {timeout:.0f} s")
            return board
        time.sleep(5)


def report(results: list[dict[str, Any]], board: dict[str, dict[str, Any]]) -> None:
    by_label: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        by_label.setdefault(result["label"], []).append(board.get(result["player"], {}))
    print()
    header = (
        f"{'setting':<28} {'flagged':>8} {'match (min-median)':>19} {'best rung':>12} "
        f"{'interval ms':>11} {'dispersion':>10} {'autocorr':>8}  reasons"
    )
    print(header)
    print("-" * len(header))
    for label, games in by_label.items():
        analysed = [g for g in games if g.get("suspected_bot") is not None]
        flagged = sum(bool(g.get("suspected_bot")) for g in analysed)
        rates = [g["engine_match_rate"] for g in analysed if g.get("engine_match_rate") is not None]
        rungs = Counter(g.get("engine_match_rung") for g in analysed)
        intervals = [
            g["median_move_interval_ms"]
            for g in analysed
            if g.get("median_move_interval_ms") is not None
        ]
        spreads = [
            g["move_interval_dispersion"]
            for g in analysed
            if g.get("move_interval_dispersion") is not None
        ]
        autocorr = [
            g["move_interval_autocorrelation"]
            for g in analysed
            if g.get("move_interval_autocorrelation") is not None
        ]
        reasons = Counter(r for g in analysed for r in g.get("bot_reasons", []))
        print(
            f"{label:<28} {flagged:>3} / {len(analysed):<3}"
            f" {_span(rates):>19} {str(rungs.most_common(1)[0][0]) if rungs else '-':>12}"
            f" {_med(intervals):>11} {_med(spreads):>10} {_med(autocorr):>8}"
            f"  {dict(reasons)}"
        )


def _span(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.2f}-{statistics.median(values):.2f}"


def _med(values: list[float]) -> str:
    if not values:
        return "-"
    median = statistics.median(values)
    return f"{median:.0f}" if median >= 10 else f"{median:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per setting")
    parser.add_argument("--moves", type=int, default=500, help="moves per game at most")
    parser.add_argument("--parallel", type=int, default=2, help="games at once without delays")
    parser.add_argument(
        "--delayed-parallel", type=int, default=40, help="games at once with delays"
    )
    parser.add_argument("--only", help="comma-separated settings (default: all)")
    parser.add_argument("--extra-depths", default="", help="fixed depths outside the ladder")
    parser.add_argument("--no-instant", action="store_true", help="skip the runs without delays")
    parser.add_argument("--no-delayed", action="store_true", help="skip the runs with delays")
    parser.add_argument("--pg", help="a PostgreSQL database URL instead of SQLite")
    parser.add_argument("--timeout", type=float, default=7200, help="seconds to wait for analysis")
    args = parser.parse_args()

    from twenty48_replay.solver.agreement import offered_strengths

    settings = [("solver", name) for name, _ in offered_strengths()]
    settings += [("solver", f"p{plies}") for plies in (1, 2, 3)]
    settings += [("solver", f"p{d}") for d in args.extra_depths.split(",") if d]
    settings += [("honest", name) for name in HONEST]
    if args.only:
        wanted = set(args.only.split(","))
        settings = [s for s in settings if s[1] in wanted]
    print(
        f"bench_bots: {args.games} games per setting, at most {args.moves} moves each, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as folder:
        db = args.pg or str(Path(folder) / "bench.sqlite3")
        with ServerProcess(db, Path(folder), "--no-access-log") as server:
            started = time.perf_counter()
            instant = [(k, n, False) for k, n in settings if k == "solver" and not args.no_instant]
            delayed = [(k, n, True) for k, n in settings if k == "honest" or not args.no_delayed]
            results = play_settings(server.url, instant, args.parallel, args)
            results += play_settings(server.url, delayed, args.delayed_parallel, args)
            played = time.perf_counter() - started
            board = wait_for_analysis(server.url, [r["player"] for r in results], args.timeout)
            waited = time.perf_counter() - started - played
            thresholds = leaderboard_thresholds(server.url)
    print(f"\nplayed in {played:.0f} s; analysis done {waited:.0f} s after the last game")
    print(f"thresholds: {thresholds}")
    report(results, board)
    print(f"\nload average at the end: {os.getloadavg()}")


def leaderboard_thresholds(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "/api/leaderboard?limit=1", timeout=60) as answer:
        thresholds: dict[str, Any] = json.loads(answer.read())["bot_thresholds"]
        return thresholds


if __name__ == "__main__":
    main()
