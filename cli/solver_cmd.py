"""The solver on the command line: ``hint``, ``autoplay`` and ``analyze``.

NumPy and the solver are imported inside the commands, so no other command
pays for them at start-up.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.errors import RecordError, Twenty48Error
from twenty48_replay.core.i18n import DANISH, N_, _, current_language, decimal, ngettext
from twenty48_replay.core.rng import seed_key
from twenty48_replay.core.text import printable

from .common import DbOption, JsonOption, checked_player, open_store
from .directions import arrow_and_name
from .evaluation_text import graph_for, move_sentence, points, sparkline
from .helptext import formatted
from .limits import (
    MAX_GAME_ID,
    MAX_GAMES,
    MAX_JOBS,
    MAX_STEP,
    MAX_TOP,
    MAX_UNTIL,
    MIN_STEP,
)
from .output import emit, emit_json, warn
from .play_cmd import default_player
from .render import board_text, summary_line
from .targets import load_checked, step_at

if TYPE_CHECKING:
    from twenty48_replay.solver.analysis import Analysis
    from twenty48_replay.solver.evaluation import EvaluationGraph

SOLVER_PLAYER = "solver"
#: The values of --strength (twenty48_replay.solver.strength.Strength), kept here so that
#: the help text does not import the solver.
STRENGTHS = ("default", "deep")


def _checked_strength(value: str) -> str:
    if value not in STRENGTHS:
        raise typer.BadParameter(
            _("must be one of {choices}, not {value}").format(
                choices=", ".join(STRENGTHS), value=printable(repr(value[:40]))
            )
        )
    return value


StrengthOption = Annotated[
    str,
    typer.Option(
        "--strength",
        callback=_checked_strength,
        metavar="default|deep",
        help=N_(
            "How hard the solver searches: default (fast), or deep (with the network: up to "
            "8 plies in twice the default's nodes; with the heuristic: nneonneo/2048-ai's "
            "full search, no node budget, a move can take seconds)."
        ),
    ),
]


#: The values of --evaluation (twenty48_replay.solver.settings.EVALUATIONS).
EVALUATIONS = ("heuristic", "network")


def _checked_evaluation(value: str | None) -> str | None:
    if value is not None and value not in EVALUATIONS:
        raise typer.BadParameter(
            _("must be one of {choices}, not {value}").format(
                choices=", ".join(EVALUATIONS), value=printable(repr(value[:40]))
            )
        )
    return value


EvaluationOption = Annotated[
    str | None,
    typer.Option(
        "--evaluation",
        callback=_checked_evaluation,
        metavar="heuristic|network",
        help=N_(
            "What scores positions: network (the n-tuple network: the shipped weights, or "
            "TWENTY48_WEIGHTS=FILE) or heuristic (the hand-tuned evaluation). Default: the "
            "network when its weights can be read, else the heuristic "
            "(TWENTY48_WEIGHTS=none: the heuristic)."
        ),
        show_default=False,
    ),
]


def _settings(strength: str, evaluation: str | None = None) -> Any:
    """The search settings of --strength and --evaluation, for the engine that runs.

    When the heuristic stands in for a network that was wanted, its note goes to
    stderr once (the settings then say heuristic, so worker processes never try the
    network again).
    """
    from twenty48_replay.solver import Strength
    from twenty48_replay.solver.dispatch import evaluation_choice
    from twenty48_replay.solver.native_search import available
    from twenty48_replay.solver.strength import settings_for

    choice = evaluation_choice(evaluation)
    if choice.note is not None:
        warn(choice.note)
    return settings_for(Strength(strength), native=available(), network=choice.network is not None)


def parse_board(text: str) -> Board:
    """``"2 2 0 0/0 4 0 0/..."``: rows separated by '/', cells by spaces or commas."""
    rows = [row.replace(",", " ").split() for row in text.strip().split("/")]
    try:
        return Board.from_rows([[int(cell) for cell in row] for row in rows])
    except ValueError as exc:
        raise typer.BadParameter(
            _(
                "--board: {reason} (expected 4 rows of 4 tiles, "
                "e.g. '2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2')"
            ).format(reason=exc)
        ) from None


def hint_command(
    game: Annotated[
        int | None,
        typer.Option("--game", "-g", min=1, max=MAX_GAME_ID, help=N_("A stored game id.")),
    ] = None,
    board: Annotated[
        str | None, typer.Option("--board", help=N_("A position: '2 2 0 0/0 4 0 0/...'."))
    ] = None,
    record: Annotated[
        str | None, typer.Option("--record", help=N_("A record file (with --at)."))
    ] = None,
    at: Annotated[
        int | None,
        typer.Option(
            "--at",
            min=MIN_STEP,
            max=MAX_STEP,
            help=N_("With --record: the step (default: the last; negative from the end)."),
        ),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            help=N_(
                "Without --game, --board or --record: this player's latest unfinished game "
                "(default: yours, the OS user name)."
            ),
            show_default=False,
        ),
    ] = None,
    strength: StrengthOption = "default",
    evaluation: EvaluationOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Recommend a move and show the expected value of each direction.

    Without --game, --board or --record: your latest unfinished stored
    game (the one 'twenty48 play' resumes), which is then marked as
    assisted (its record will say "assisted": true).
    """
    from twenty48_replay.core.timeline import Timeline
    from twenty48_replay.solver import best_move

    if sum(x is not None for x in (game, board, record)) > 1:
        raise typer.BadParameter(_("give at most one of --game, --board, --record"))
    if at is not None and record is None:
        raise typer.BadParameter(_("--at goes with --record"))
    if player is not None and (game, board, record) != (None, None, None):
        raise typer.BadParameter(
            _("--player picks a stored game: not with --game, --board, --record")
        )
    player = checked_player(player) or default_player()
    label = _("position")
    session = None
    loaded = None
    if board is not None:
        position = parse_board(board)
    elif record is not None:
        loaded = load_checked(record, db)
        label = loaded.label
        timeline = Timeline(loaded.record)
        position = step_at(timeline, at, label).board
    else:
        with open_store(db) as store:
            session = store.open_game(game) if game is not None else store.resume_latest(player)
            if session is None:
                raise Twenty48Error(_("no unfinished game to hint: start one with 'twenty48 play'"))
            position = session.state.board
            label = _("game {id}").format(id=session.id)
            session.mark_assisted()
    best, values = best_move(position, _settings(strength, evaluation))
    if as_json:
        emit_json(
            {
                "best": None if best is None else best.letter,
                "values": {d.letter: round(v, 3) for d, v in values.items()},
                "board": position.to_rows(),
            }
        )
    else:
        _hint_report(label, position, best, values)
    if session is not None:
        warn(_("game {id} is now marked as assisted").format(id=session.id))
    if loaded is not None:
        loaded.finish()


def _grouped(value: float) -> str:
    """``value`` with one decimal and thousands grouped, in the language's marks."""
    text = f"{value:,.1f}"
    if current_language() == DANISH:
        text = text.replace(",", "_").replace(".", ",").replace("_", ".")
    return text


def _hint_report(
    label: str, position: Board, best: Direction | None, values: dict[Direction, float]
) -> None:
    emit(f"{printable(label)}:")
    emit(board_text(position))
    if best is None:
        if not position.packed:
            emit(_("no move is possible: the board is empty"))
        else:
            emit(_("no move is possible: the game is over"))
        return
    emit(_("best move: {move}").format(move=arrow_and_name(best.letter)))
    top = values[best]
    for direction, value in sorted(values.items(), key=lambda kv: -kv[1]):
        change = 100 * (value - top) / abs(top or 1)
        gap = (
            ""
            if direction is best
            else f"  ({'+' if change >= 0 else '-'}{decimal(abs(change), 2)}%)"
        )
        emit(f"  {arrow_and_name(direction.letter):10} {_grouped(value):>14}{gap}")


def _play_one(job: tuple[str, int | None, Any]) -> tuple[str, str, float]:
    from twenty48_replay.solver import play_game

    seed, until, settings = job
    played = play_game(seed, until, settings=settings)
    return seed, played.moves, played.seconds


def autoplay_command(
    seed: Annotated[
        str | None,
        typer.Option("--seed", help=N_("Seed of the first game (then SEED-2, SEED-3...).")),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, max=MAX_GAMES, help=N_("How many games."))
    ] = 1,
    until: Annotated[
        int | None,
        typer.Option(
            "--until",
            min=4,
            max=MAX_UNTIL,
            help=N_("Stop a game when it makes this tile (default: play to the end)."),
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            max=MAX_JOBS,
            help=formatted(
                N_("Games in parallel (default: cores; at most 4 per core: {jobs} here)."),
                jobs=MAX_JOBS,
            ),
        ),
    ] = None,
    strength: StrengthOption = "default",
    evaluation: EvaluationOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Let the solver play new games; they are stored like any other (player "solver")."""
    from twenty48_replay.core.rng import new_seed
    from twenty48_replay.core.workers import default_jobs

    if until is not None and (until < 4 or until & (until - 1)):
        raise typer.BadParameter(_("--until must be a tile: a power of two from 4"))
    if seed is not None:
        try:
            seed_key(seed)
            seed_key(f"{seed}-{games}")
        except RecordError as exc:
            raise typer.BadParameter(
                _("--seed: {reason}").format(reason=exc.code.translated())
            ) from None
    base = seed or new_seed()
    seeds = [base] + [f"{base}-{i}" for i in range(2, games + 1)]
    jobs = min(jobs or default_jobs(), games)
    settings = _settings(strength, evaluation)
    rows: list[dict[str, Any]] = []
    with open_store(db) as store:
        if jobs == 1 and sys.stdout.isatty() and not as_json:
            for s in seeds:
                rows.append(_autoplay_live(store, s, until, settings))
        else:
            rows = _autoplay_pool(store, seeds, until, jobs, settings, quiet=as_json)
    if as_json:
        for row in rows:
            emit_json(row)
        return
    _summary(rows, until)


def _autoplay_live(store: Any, seed: str, until: int | None, settings: Any) -> dict[str, Any]:
    """One game in this process, stored move by move, with a live board."""
    from rich.live import Live
    from rich.text import Text

    from twenty48_replay.solver import best_move

    session = store.new_game(seed, player=SOLVER_PLAYER)
    start = time.perf_counter()
    with Live(Text(""), refresh_per_second=12, transient=False) as live:
        while True:
            state = session.state
            if until is not None and state.max_tile >= until:
                break
            best, _values = best_move(state.board, settings)
            if best is None:
                break
            session.play(best)
            elapsed = time.perf_counter() - start
            live.update(
                Text(
                    _("game {id}  seed {seed}").format(id=session.id, seed=printable(seed))
                    + "\n"
                    + summary_line(session.state.score, session.state.moves, session.state.max_tile)
                    + " · "
                    + _("{rate} moves/s").format(
                        rate=decimal(session.state.moves / max(elapsed, 1e-9))
                    )
                    + "\n"
                    + board_text(session.state.board)
                )
            )
    return _row(session.id, seed, session.state, time.perf_counter() - start)


def _autoplay_pool(
    store: Any, seeds: list[str], until: int | None, jobs: int, settings: Any, quiet: bool
) -> list[dict[str, Any]]:
    """Games in worker processes; each is verified and stored when it ends."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from twenty48_replay.core.record import Record
    from twenty48_replay.core.replay import final_state
    from twenty48_replay.core.timestamps import iso_ms, now_ms
    from twenty48_replay.core.workers import worker_pool

    rows = []
    console = Console(stderr=True)
    with Progress(
        TextColumn("autoplay"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        disable=quiet or not console.is_terminal,
        transient=True,
    ) as progress:
        task = progress.add_task("games", total=len(seeds))
        with worker_pool(jobs) as pool:
            for seed, moves, seconds in pool.imap(_play_one, [(s, until, settings) for s in seeds]):
                state, _ = final_state(Record(seed, moves, 0))
                ended = now_ms()
                extra = {"player": SOLVER_PLAYER, "client": "twenty48 autoplay"}
                # The game's own times, kept by the import (list and show give them).
                for key, ms in (("started", ended - round(seconds * 1000)), ("finished", ended)):
                    stamp = iso_ms(ms)
                    if stamp is not None:
                        extra[key] = stamp
                record = Record(seed, moves, state.score, extra=extra)
                outcome = store.import_record(record)
                rows.append(_row(outcome.game_id, seed, state, seconds))
                progress.advance(task)
    return rows


def _row(game_id: int, seed: str, state: Any, seconds: float) -> dict[str, Any]:
    return {
        "game": game_id,
        "seed": seed,
        "score": state.score,
        "max_tile": state.max_tile,
        "moves": state.moves,
        "seconds": round(seconds, 2),
        "moves_per_second": round(state.moves / max(seconds, 1e-9), 1),
    }


def _summary(rows: list[dict[str, Any]], until: int | None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=ngettext("autoplay: {count} game", "autoplay: {count} games", len(rows)).format(
            count=len(rows)
        )
    )
    columns = (N_("game"), N_("seed"), N_("score"), N_("max tile"), N_("moves"), N_("seconds"))
    for column in (*columns, N_("moves/s")):
        table.add_column(_(column), justify="left" if column == "seed" else "right")
    for r in rows:
        table.add_row(
            str(r["game"]),
            Text(printable(r["seed"])),
            str(r["score"]),
            str(r["max_tile"]),
            str(r["moves"]),
            decimal(r["seconds"]),
            decimal(r["moves_per_second"]),
        )
    console = Console()
    console.print(table)
    # The tile asked for with --until (games stop there), else 2048 and every larger one reached.
    tiles = [until] if until is not None else [2048 * 2**i for i in range(7)]
    reached = [
        f"{t}: {sum(r['max_tile'] >= t for r in rows)}/{len(rows)}"
        for t in tiles
        if any(r["max_tile"] >= t for r in rows) or t == tiles[0]
    ]
    console.print(_("reached {tiles}").format(tiles=", ".join(reached)))


def analyze_command(
    target: Annotated[
        str, typer.Argument(metavar="ID|FILE", help=N_("A game id, or a record file."))
    ],
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            max=MAX_JOBS,
            help=formatted(
                N_("Worker processes (default: cores; at most 4 per core: {jobs} here)."),
                jobs=MAX_JOBS,
            ),
        ),
    ] = None,
    top: Annotated[
        int, typer.Option("--top", min=1, max=MAX_TOP, help=N_("How many mistakes to list."))
    ] = 5,
    strength: StrengthOption = "default",
    evaluation: EvaluationOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Annotate a game move by move: accuracy, largest mistakes, the classic mistakes.

    With the solver's n-tuple network, also the evaluation graph: the network's
    expected final score after each move, and the moves that cost the most of it.
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from twenty48_replay.core.workers import default_jobs
    from twenty48_replay.solver.analysis import analyze

    loaded = load_checked(target, db)
    record, label = loaded.record, loaded.label
    settings = _settings(strength, evaluation)
    console = Console(stderr=True)
    with Progress(
        TextColumn("analysing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
        transient=True,
    ) as progress:
        task = progress.add_task("moves", total=len(record.moves))
        analysis = analyze(
            record,
            settings=settings,
            jobs=jobs or default_jobs(),
            progress=lambda done, total: progress.update(task, completed=done, total=total),
        )
    # The graph needs the network: with --evaluation heuristic the search does without
    # it, the graph still uses it when it can.
    graph, note = graph_for(record, None if evaluation == "heuristic" else evaluation)
    if as_json:
        # A stored game by its number; a record file by its name (and line).
        where = {"game": loaded.game} if loaded.game is not None else {"file": label}
        emit_json(
            {
                **where,
                **analysis.to_json(),
                "evaluation": settings.evaluation,
                "graph": None if graph is None else graph.to_json(),
                **({"graph_note": note} if graph is None else {}),
            }
        )
    else:
        _report(analysis, label, top, graph, note)
    loaded.finish()


#: Columns of the text sparkline of the expected score.
SPARK_WIDTH = 60


def _graph_report(graph: EvaluationGraph | None, note: str, top: int) -> None:
    """The evaluation graph in text: a sparkline, then the moves that cost the most."""
    if graph is None:
        emit(note)
        emit("")
        return
    if not graph.moves:
        return
    expected = [m.expected for m in graph.moves]
    emit(
        _("Expected final score after each move (the network, {source}):").format(
            source=printable(graph.source)
        )
    )
    emit(
        "  "
        + sparkline(expected, SPARK_WIDTH)
        + "  "
        + _("from {low} to {high}").format(low=points(min(expected)), high=points(max(expected)))
    )
    costly = graph.costliest(top)
    if costly:
        emit(_("Where the game was lost (expected score given up, by the network):"))
        for move in costly:
            emit("  " + move_sentence(move))
    emit("")


def _report(
    analysis: Analysis, label: str, top: int, graph: EvaluationGraph | None = None, note: str = ""
) -> None:
    moves = len(analysis.annotations)
    emit(
        _("Analysis of {label}: {moves} moves, score {score}, largest tile {tile}").format(
            label=printable(label),
            moves=moves,
            score=analysis.final_score,
            tile=analysis.final_board.max_tile,
        )
    )
    emit(
        _("Accuracy: {percent} of moves matched the solver's choice").format(
            percent=f"{decimal(analysis.accuracy)}%"
        )
    )
    emit("")
    _graph_report(graph, note, top)
    mistakes = analysis.largest_mistakes(top)
    if mistakes:
        emit(_("Largest mistakes (expected value given up):"))
        for a in mistakes:
            cells = ngettext("{count} empty cell", "{count} empty cells", a.empty).format(
                count=a.empty
            )
            emit(
                "  "
                + _("move {number}: played {played}, best was {best} (-{loss}%), {cells}").format(
                    number=a.number,
                    played=arrow_and_name(a.played.letter),
                    best=arrow_and_name(a.best.letter),
                    loss=decimal(100 * a.relative_loss, 2),
                    cells=cells,
                )
            )
            for line in board_text(a.board).splitlines():
                emit("      " + line)
        emit("")
    classic = analysis.classic_mistakes()
    four = classic["four_directions"]
    emit(_("The four classic mistakes:"))
    emit(
        "  "
        + _(
            "1. all four directions: {direction} was played {count} times "
            "({percent} of moves); by direction {each}"
        ).format(
            direction=four["least_used"],
            count=four["least_used_moves"],
            percent=f"{four['share_percent']}%",
            each=", ".join(f"{k} {v}" for k, v in four["by_direction"].items()),
        )
    )
    emit(
        "  "
        + _("2. largest tile pulled out of its corner: {count} times").format(
            count=classic["largest_tile_left_corner"]
        )
    )
    emit(
        "  "
        + _("3. small tiles walled in by large ones: {count} cases over all positions").format(
            count=classic["walled_in_positions"]
        )
    )
    emit(
        "  "
        + _(
            "4. crowded board (2-3 empty cells): {moves} moves, "
            "{mistakes} of them not the solver's choice"
        ).format(moves=classic["crowded_moves"], mistakes=classic["crowded_mistakes"])
    )
