"""Benchmark of the built-in solver: strength and speed on fixed seeds.

Run from the project root after installing:

    python tests/bench/bench_solver.py                  # bench-1 .. bench-20 until 16384
    python tests/bench/bench_solver.py --games 4 --target 4096
    python tests/bench/bench_solver.py --seeds 6 7 13 16 20   # only these seeds
    python tests/bench/bench_solver.py --prefix tune --games 40  # tune-1 .. tune-40 (tuning)
    python tests/bench/bench_solver.py --crowded-nodes 5000000 --crowded-empty 1  # a rule
    python tests/bench/bench_solver.py --late-nodes 8000000 --late-distinct 12    # another
    python tests/bench/bench_solver.py --table-per-move   # each root move its own table
    python tests/bench/bench_solver.py --evaluation heuristic   # without the network
    python tests/bench/bench_solver.py --strength deep --no-table-per-move  # deep, one table
    nice -n 5 taskset -c 1 python tests/bench/bench_solver.py --workers 1   # one core
    python tests/bench/bench_solver.py --strength deep --games 8 --target 32768 --workers 1 \
        --journal runs/deep      # resumable: run the same command again to go on

The search is the one ``twenty48 autoplay`` uses: the C search when the
extension is built, else NumPy (``TWENTY48_ENGINE=python`` forces it), at
``--strength`` (default or deep) unless ``--max-nodes`` overrides the budget
(``--crowded-nodes``/``--crowded-empty``: the crowded-board rule's;
``--late-nodes``/``--late-distinct``: the late-game rule's; ``--table-per-move``:
a transposition table for each root move, as nneonneo's search has and
``deep`` does; ``--no-table-per-move``: one table for the four, as
``default`` does and ``deep`` did before issue 21's last games).
Games run in parallel (``--workers``, default 2: one per core of the CI
machine).  Every game is verified with :func:`twenty48_replay.verify`
after it is played.  It prints a row per game as it finishes (with the
search's nodes per move and the CPU time per node), then how often each
tile was reached, the median and overall speed, the wall time and the load
average before and after; it asserts nothing (the goals are read, not tested).

With ``--journal DIR`` each game's moves, times and nodes so far are written
to ``DIR/SEED.json`` every ``--save-every`` moves (atomically), and a game
found there is replayed to its last saved move and played on: the search is
deterministic and each move's search starts afresh, so a game played in
pieces is the game played at once.  Deep games take hours of a core; this
lets them run across sessions that may end at any time.  ``--report`` prints
the saved games (replayed and verified) without playing, the unfinished ones
marked and left out of the counts.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import attrs
from rates import rate_text

from twenty48_replay import Direction, GameState, Record, verify
from twenty48_replay.solver.settings import SearchSettings

TILES = (2048, 4096, 8192, 16384, 32768, 65536)


class GameResult(NamedTuple):
    seed: str
    score: int
    max_tile: int
    moves: int
    seconds: float
    valid: bool
    nodes: int
    cpu_seconds: float


class JournalError(Exception):
    """A saved game this script cannot go on with (one line, naming the file)."""


class Job(NamedTuple):
    seed: str
    target: int | None
    strength: str
    max_nodes: int | None
    every: int
    journal: str | None
    save_every: int
    crowded_nodes: int | None = None  # --crowded-nodes (0: the rule off), None: the strength's
    crowded_empty: int | None = None
    late_nodes: int | None = None  # --late-nodes (0: the rule off), None: the strength's
    late_distinct: int | None = None
    table_per_move: bool | None = None  # --table-per-move: True, None: the strength's
    evaluation: str | None = None  # --evaluation: heuristic or network, None: the default's
    max_plies: int | None = None
    min_plies: int | None = None
    cutoff: float | None = None


def job_overrides(job: Job) -> dict[str, int | float | bool | None]:
    """The settings a job changes from its strength's (what a journal must match).

    The evaluation is not among them: the settings a journal records carry it, so a game
    saved before ``--evaluation`` existed goes on under ``--evaluation heuristic``."""
    return {
        "max_plies": job.max_plies,
        "min_plies": job.min_plies,
        "cutoff": job.cutoff,
        "max_nodes": job.max_nodes,
        "crowded_nodes": job.crowded_nodes,
        "crowded_empty": job.crowded_empty,
        "late_nodes": job.late_nodes,
        "late_distinct": job.late_distinct,
        "table_per_move": job.table_per_move,
    }


def journal_keys(job: Job) -> dict[str, Any]:
    """What a journal records of its settings, and must match to be played on.

    The strength's name and the overrides, and the settings themselves: a
    strength whose settings changed since the save (``deep`` lost its cap of 8
    plies) is another player, so its games are not continued under it.
    """
    return {
        "seed": job.seed,
        "strength": job.strength,
        **job_overrides(job),
        "settings": attrs.asdict(job_settings(job)),
    }


def job_settings(job: Job) -> SearchSettings:
    """The strength's settings with the job's overrides."""
    from twenty48_replay.solver import Strength, default_settings

    settings = default_settings(Strength(job.strength), job.evaluation)
    if job.max_plies is not None:
        settings = attrs.evolve(settings, max_plies=job.max_plies)
    if job.min_plies is not None:
        settings = attrs.evolve(settings, min_plies=job.min_plies)
    if job.cutoff is not None:
        settings = attrs.evolve(settings, cutoff=job.cutoff)
    if job.max_nodes is not None:
        settings = attrs.evolve(settings, max_nodes=job.max_nodes)
    if job.crowded_nodes is not None:
        settings = attrs.evolve(settings, crowded_max_nodes=job.crowded_nodes or None)
    if job.crowded_empty is not None:
        settings = attrs.evolve(settings, crowded_empty=job.crowded_empty)
    if job.late_nodes is not None:
        settings = attrs.evolve(settings, late_max_nodes=job.late_nodes or None)
    if job.late_distinct is not None:
        settings = attrs.evolve(settings, late_distinct=job.late_distinct)
    if job.table_per_move is not None:
        settings = attrs.evolve(settings, table_per_move=job.table_per_move)
    return settings


def read_journal(path: Path, job: Job) -> dict[str, Any] | None:
    """A game saved by an earlier run with the same settings, or None to start afresh.

    The file is this script's own output, but it is read as untrusted: a file
    whose settings differ, or whose fields do not have their types, is refused
    in one line rather than played on from a wrong position.
    """
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise JournalError(f"{path}: not a journal this script wrote ({exc})") from None
    expected = journal_keys(job)
    if isinstance(saved, dict) and isinstance(saved.get("settings"), dict):
        # A field added to SearchSettings since the save was not there to change:
        # it had its default (every rule added so far is off by default).
        saved["settings"] = attrs.asdict(SearchSettings()) | saved["settings"]
    if not isinstance(saved, dict) or any(saved.get(k) != v for k, v in expected.items()):
        raise JournalError(
            f"{path}: saved with other settings than {expected}"
            " (or by a version that did not record them); move it away"
        )
    moves = saved.get("moves")
    numbers = [saved.get(k) for k in ("seconds", "cpu_seconds", "nodes")]
    if (
        not isinstance(moves, str)
        or set(moves) - set("UDLR")
        or not all(isinstance(x, int | float) and x >= 0 for x in numbers)
    ):
        raise JournalError(f"{path}: its moves or counts are not what this script writes")
    return saved


def write_journal(path: Path, fields: dict[str, Any]) -> None:
    """Replace ``path`` atomically: a run killed mid-write leaves the previous save."""
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(fields), encoding="utf-8")
    partial.replace(path)


def saved_result(job: Job) -> tuple[GameResult, bool] | None:
    """A journal's game as a result (replayed and verified), and whether it is finished."""
    assert job.journal is not None
    saved = read_journal(Path(job.journal) / f"{job.seed}.json", job)
    if saved is None:
        return None
    state = GameState.new(job.seed)
    for letter in saved["moves"]:
        state, _gained, _spawn = state.play(Direction.from_letter(letter))
    result = verify(Record(job.seed, saved["moves"], state.score))
    played = GameResult(
        job.seed,
        state.score,
        state.max_tile,
        len(saved["moves"]),
        float(saved["seconds"]),
        result.valid and result.max_tile == state.max_tile,
        int(saved["nodes"]),
        float(saved["cpu_seconds"]),
    )
    return played, saved.get("finished") is True


def play_one(job: Job) -> GameResult:
    """Play (or go on with) and verify one seed (runs in a worker process)."""
    from twenty48_replay.solver import play_game

    settings = job_settings(job)
    path = Path(job.journal) / f"{job.seed}.json" if job.journal else None
    saved = read_journal(path, job) if path else None
    moves = saved["moves"] if saved else ""
    seconds = float(saved["seconds"]) if saved else 0.0
    cpu = float(saved["cpu_seconds"]) if saved else 0.0
    nodes = int(saved["nodes"]) if saved else 0
    state = GameState.new(job.seed)
    for letter in moves:
        state, _gained, _spawn = state.play(Direction.from_letter(letter))
    started = time.perf_counter() - seconds

    def progress(state: GameState, _direction: Direction) -> None:
        if job.every and state.moves % job.every == 0:
            elapsed = time.perf_counter() - started
            print(
                f"  {job.seed}: move {state.moves}, max tile {state.max_tile},"
                f" {elapsed:.0f} s, {state.moves / elapsed:.1f} moves/s, load {load()}",
                file=sys.stderr,
                flush=True,
            )

    chunk = job.save_every if path else None
    while True:
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        played = play_game(
            job.seed, job.target, settings=settings, progress=progress, state=state, max_moves=chunk
        )
        cpu += time.process_time() - cpu_start
        seconds += time.perf_counter() - wall_start
        moves += played.moves
        nodes += played.nodes
        state = played.state
        finished = (
            chunk is None
            or len(played.moves) < chunk
            or (job.target is not None and state.max_tile >= job.target)
        )
        if path is not None:
            fields = {
                **journal_keys(job),
                "target": job.target,
                "moves": moves,
                "seconds": seconds,
                "cpu_seconds": cpu,
                "nodes": nodes,
                "finished": finished,
                "max_tile": state.max_tile,
                "saved_at": time.strftime("%Y-%m-%d %H:%M:%S"),
                "load": load(),
            }
            write_journal(path, fields)
        if finished:
            break
    result = verify(Record(job.seed, moves, state.score))
    return GameResult(
        job.seed,
        state.score,
        state.max_tile,
        len(moves),
        seconds,
        result.valid and result.max_tile == state.max_tile,
        nodes,
        cpu,
    )


def load() -> str:
    """The 1, 5 and 15 minute load averages, as uptime prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def print_row(r: GameResult, note: str = "") -> None:
    """One game's row: seed, score, max tile, moves, speeds, nodes a move, CPU time a node."""
    flag = "" if r.valid else "  INVALID"
    per_node = 1e9 * r.cpu_seconds / max(1, r.nodes)
    print(
        f"{r.seed:<10} {r.score:>8} {r.max_tile:>8} {r.moves:>6} "
        f"{r.seconds:>8.1f} {r.moves / max(r.seconds, 1e-9):>8.1f}"
        f" {r.moves / max(r.cpu_seconds, 1e-9):>11.1f}"
        f" {r.nodes / max(1, r.moves):>10.0f} {per_node:>7.1f}{flag}{note}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    from twenty48_replay.solver import Strength, default_settings, engine_name
    from twenty48_replay.solver.dispatch import current_network

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=20, help="play PREFIX-1 .. PREFIX-N")
    parser.add_argument("--first", type=int, default=1, help="start at PREFIX-FIRST (resume a run)")
    parser.add_argument(
        "--prefix",
        default="bench",
        help="seed names PREFIX-N (default bench: the benchmark's own seeds; tune settings on"
        " another prefix, so that the bench seeds stay unseen)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="play only PREFIX-N for these N (instead of --first .. --games)",
    )
    parser.add_argument("--target", type=int, default=16384, help="stop a game at this tile")
    parser.add_argument("--workers", type=int, default=2, help="parallel games")
    parser.add_argument(
        "--strength", choices=[s.value for s in Strength], default=Strength.DEFAULT.value
    )
    parser.add_argument("--max-nodes", type=int, default=None, help="override the node budget")
    parser.add_argument("--max-plies", type=int, default=None, help="override the depth cap")
    parser.add_argument(
        "--min-plies", type=int, default=None, help="override the depth deepening starts at"
    )
    parser.add_argument("--cutoff", type=float, default=None, help="override the cut-off")
    parser.add_argument(
        "--evaluation",
        choices=("heuristic", "network"),
        help="what scores the leaves (default: the solver's: the shipped network when the C"
        " search can use it, else the heuristic; TWENTY48_WEIGHTS names another file)",
    )
    parser.add_argument(
        "--crowded-nodes",
        type=int,
        default=None,
        metavar="N",
        help="the crowded-board rule: budget N where the board has at most --crowded-empty"
        " empty cells (0 turns the rule off; default: the strength's)",
    )
    parser.add_argument(
        "--crowded-empty",
        type=int,
        default=None,
        metavar="K",
        help="a board with at most K empty cells is crowded (default: the strength's)",
    )
    parser.add_argument(
        "--late-nodes",
        type=int,
        default=None,
        metavar="N",
        help="the late-game rule: budget N where the board has at least --late-distinct"
        " distinct tiles (0 turns the rule off; default: the strength's)",
    )
    parser.add_argument(
        "--late-distinct",
        type=int,
        default=None,
        metavar="K",
        help="a board with at least K distinct tiles is late (default: the strength's)",
    )
    parser.add_argument(
        "--table-per-move",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="search each root move with a transposition table of its own, as nneonneo's"
        " search does, or (--no-table-per-move) one table for the four (default: the"
        " strength's: a table per move at deep, one table at default)",
    )
    parser.add_argument(
        "--progress", type=int, default=0, help="a line on stderr every N moves of a game"
    )
    parser.add_argument(
        "--journal",
        default=None,
        metavar="DIR",
        help="save each game's moves to DIR/SEED.json and go on from there when run again",
    )
    parser.add_argument(
        "--save-every", type=int, default=100, help="moves between saves with --journal"
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="with --journal: print the saved games (unfinished ones marked), play nothing",
    )
    args = parser.parse_args(argv)
    if args.save_every < 1:
        parser.error("--save-every must be at least 1")
    if args.report and not args.journal:
        parser.error("--report reads the games of --journal DIR")
    if args.journal:
        Path(args.journal).mkdir(parents=True, exist_ok=True)

    jobs = [
        Job(
            f"{args.prefix}-{i}",
            args.target,
            args.strength,
            args.max_nodes,
            args.progress,
            args.journal,
            args.save_every,
            args.crowded_nodes,
            args.crowded_empty,
            args.late_nodes,
            args.late_distinct,
            args.table_per_move,
            args.evaluation,
            args.max_plies,
            args.min_plies,
            args.cutoff,
        )
        for i in (args.seeds or range(args.first, args.games + 1))
    ]
    try:
        settings = job_settings(jobs[0]) if jobs else default_settings(Strength(args.strength))
    except ValueError as exc:  # an override the settings refuse (a negative budget, ...)
        parser.error(str(exc))
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load()}")
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores, {args.workers} workers")
    print(f"engine {engine_name()}, strength {args.strength}: {settings}")
    network = current_network() if settings.evaluation == "network" else None
    print(f"evaluation: {network.describe() if network else 'the hand-tuned heuristic'}")
    for job in jobs if args.journal else []:  # a bad journal is refused here, not in a worker
        try:
            read_journal(Path(args.journal) / f"{job.seed}.json", job)
        except JournalError as exc:
            print(exc, file=sys.stderr)
            return 2
    header = (
        f"{'seed':<10} {'score':>8} {'max tile':>8} {'moves':>6} {'seconds':>8} {'moves/s':>8}"
        f" {'CPU moves/s':>11} {'nodes/move':>10} {'ns/node':>7}"
    )
    print(header)
    print("-" * len(header), flush=True)
    start = time.perf_counter()
    results: list[GameResult] = []
    if args.report:
        for job in jobs:
            found = saved_result(job)
            if found is None:
                print(f"{job.seed:<10} not played yet")
            elif not found[1]:
                print_row(found[0], "  (unfinished: not counted below)")
            else:
                results.append(found[0])
                print_row(found[0])
        if not results:
            return 0
    else:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            for r in pool.imap_unordered(play_one, jobs):
                results.append(r)
                print_row(r)
    wall = time.perf_counter() - start
    print()
    n = len(results)
    for tile in TILES:
        if tile > args.target:
            break
        reached = sum(r.max_tile >= tile for r in results)
        print(f"reached {tile:>6}: {rate_text(reached, n)}")
    speeds = [r.moves / r.seconds for r in results]
    moves = sum(r.moves for r in results)
    seconds = sum(r.seconds for r in results)
    cpu = sum(r.cpu_seconds for r in results)
    print(
        f"median speed: {statistics.median(speeds):.1f} moves/s; overall {moves / seconds:.1f}"
        f" (per CPU second: {moves / cpu:.1f}; wall time counts the machine's other load)"
    )
    print(f"total moves: {moves}" + ("" if args.report else f", wall time: {wall:.0f} s"))
    nodes = sum(r.nodes for r in results)
    print(f"CPU time per node (search and play): {1e9 * cpu / max(1, nodes):.1f} ns")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load()}")
    if not all(r.valid for r in results):
        print("some games did not verify")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
