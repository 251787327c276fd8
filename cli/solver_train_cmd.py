"""``twenty48 solver``: train the solver's n-tuple network, export and inspect weights.

* ``solver train FILE``: train a new network into the checkpoint FILE, or go
  on with it (``--resume``); Ctrl-C keeps the last checkpoint.
* ``solver export CHECKPOINT OUTPUT``: the weights to ship: int16, sparse,
  pruned to fit ``--max-mb``.
* ``solver weights [FILE]``: check a weights file (the one the solver uses by
  default) and describe it; a broken file is one line and exit 2.

NumPy and the trainer are imported inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from twenty48_replay.core.i18n import N_, _, decimal, number
from twenty48_replay.core.text import printable

from .helptext import EXAMPLES, HELP, examples
from .output import emit, emit_json, warn
from .typer_help import Group

RULES = ("tc", "td")

solver_app = typer.Typer(
    cls=Group,
    help=HELP["solver"],
    epilog=examples(EXAMPLES["solver"]),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _rule(value: str) -> str:
    if value not in RULES:
        raise typer.BadParameter(
            _("must be one of {choices}, not {value}").format(
                choices=", ".join(RULES), value=printable(repr(value[:40]))
            )
        )
    return value


def train_command(
    checkpoint: Annotated[
        Path,
        typer.Argument(help=N_("The checkpoint file: written every --checkpoint-every games.")),
    ],
    games: Annotated[
        int,
        typer.Option("--games", "-n", min=1, max=10**10, help=N_("Train until this many games.")),
    ] = 1_000_000,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help=N_(
                "Go on with the training in the checkpoint file (its settings; the network "
                "is then the one an uninterrupted run would have made)."
            ),
        ),
    ] = False,
    checkpoint_every: Annotated[
        int,
        typer.Option(
            "--checkpoint-every",
            min=1,
            max=10**9,
            help=N_("Games between checkpoints (rounded up to whole progress windows)."),
        ),
    ] = 50_000,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", min=0, max=2**64 - 1, help=N_("The seed of the games' spawns (default 1).")
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            "-j",
            min=1,
            max=64,
            help=N_(
                "Threads (default 1).  The network depends on the seed and the number of "
                "threads: the same both give the same network."
            ),
        ),
    ] = None,
    rule: Annotated[
        str | None,
        typer.Option(
            "--rule",
            callback=lambda v: None if v is None else _rule(v),
            metavar="tc|td",
            help=N_(
                "The learning rule: tc (temporal coherence: a rate per weight; default) or "
                "td (one fixed rate)."
            ),
        ),
    ] = None,
    rate: Annotated[
        float | None,
        typer.Option(
            "--rate",
            min=1e-6,
            max=16.0,
            help=N_("The learning rate: how far a board's value moves toward its target (1.0)."),
        ),
    ] = None,
    round_games: Annotated[
        int | None,
        typer.Option(
            "--round",
            min=1,
            max=10**7,
            help=N_("Games between merges of the threads' copies (1000; part of the result)."),
        ),
    ] = None,
    window: Annotated[
        int,
        typer.Option("--window", min=1, max=10**9, help=N_("Games per progress line (10,000).")),
    ] = 10_000,
    tuples: Annotated[
        str | None,
        typer.Option(
            "--tuples",
            metavar="CELLS ...",
            help=N_(
                "The network's tuples, cells 0-15 row by row joined by '-', tuples by spaces "
                "(default: '0-1-2-3-4-5 4-5-6-7-8-9 0-1-2-4-5-6 4-5-6-8-9-10')."
            ),
        ),
    ] = None,
    stages: Annotated[
        str | None,
        typer.Option(
            "--stages",
            metavar="0,E,...",
            help=N_(
                "Stage thresholds: the exponent of the largest tile from which each stage's "
                "tables are used (default '0': one stage; '0,14': another from 16384 on)."
            ),
        ),
    ] = None,
) -> None:
    """Train the solver's n-tuple network by TD learning (in C, on all the threads you give).

    Prints a line every --window games: the games so far, their average
    score, how often they reached 2048, 8192, 16384 and 32768, and the speed.
    Ctrl-C stops it; the last checkpoint stays, and --resume goes on from it.
    """
    from twenty48_replay.solver import training
    from twenty48_replay.solver.weights import DEFAULT_SHAPE, WeightsError

    training.training_module()  # one line and exit 2 when the C trainer is not built
    shown = printable(str(checkpoint))
    shape = _shape(tuples, stages)
    asked: dict[str, Any] = {
        "seed": seed,
        "threads": threads,
        "rule": rule,
        "rate": rate,
        "round_games": round_games,
        "tuples": None if shape is None else [list(t) for t in shape.tuples],
        "stages": None if shape is None else list(shape.stages),
    }
    if resume:
        if not checkpoint.exists():
            raise typer.BadParameter(
                _("{file} does not exist: nothing to resume").format(file=shown)
            )
        state = training.load_checkpoint(str(checkpoint))
        current = state.config.to_json()
        for name, value in asked.items():
            if value is not None and value != current[name]:
                raise typer.BadParameter(
                    _(
                        "{file} was trained with {name} {was}, not {value}: a resumed "
                        "training keeps its settings"
                    ).format(file=shown, name=name, was=current[name], value=value)
                )
        warn(_("resuming {file} at {games} games").format(file=shown, games=number(state.games)))
    else:
        if checkpoint.exists():
            raise typer.BadParameter(
                _("{file} exists: --resume goes on with it, or give a new name").format(file=shown)
            )
        config = training.TrainConfig(
            shape=shape or DEFAULT_SHAPE,
            rule=rule or "tc",
            rate=1.0 if rate is None else rate,
            seed=1 if seed is None else seed,
            threads=threads or 1,
            round_games=round_games or 1000,
        )
        state = training.TrainState.new(config)
    try:
        training.train(
            state,
            games,
            checkpoint=str(checkpoint),
            checkpoint_every=checkpoint_every,
            window=window,
            progress=lambda stats: emit(progress_text(stats)),
        )
    except training.TrainingInterruptedError:
        warn(_("stopped: {file} keeps the last checkpoint").format(file=shown))
        raise typer.Exit(130) from None
    except WeightsError:
        raise
    emit(_("{games} games: {file}").format(games=number(state.games), file=shown))


def _shape(tuples: str | None, stages: str | None) -> Any:
    """The network shape of --tuples and --stages (None when neither is given)."""
    from twenty48_replay.solver.weights import DEFAULT_SHAPE, NetworkShape, shape_problem

    if tuples is None and stages is None:
        return None
    try:
        cells = (
            [[int(c) for c in t.split("-")] for t in tuples.split()]
            if tuples is not None
            else [list(t) for t in DEFAULT_SHAPE.tuples]
        )
        thresholds = [int(s) for s in stages.split(",")] if stages is not None else [0]
    except ValueError:
        raise typer.BadParameter(_("--tuples and --stages are numbers: see --help")) from None
    problem = shape_problem(cells, thresholds)
    if problem:
        raise typer.BadParameter(printable(problem))
    return NetworkShape(tuple(tuple(t) for t in cells), tuple(thresholds))


def progress_text(stats: Any) -> str:
    """One progress line, in the current language."""
    rates = "  ".join(f"{2**e} {decimal(100 * r)}%" for e, r in sorted(stats.rates.items()))
    return _(
        "games {games}  score {score}  moves {moves}  {rates}  (last {window})  "
        "{speed} moves/CPU s  CPU {cpu} h"
    ).format(
        games=number(stats.games),
        score=number(round(stats.mean_score)),
        moves=number(round(stats.mean_moves)),
        rates=rates,
        window=number(stats.window),
        speed=number(round(stats.moves_per_cpu_second)),
        cpu=decimal(stats.cpu_seconds / 3600, 2),
    )


def export_command(
    checkpoint: Annotated[Path, typer.Argument(help=N_("A checkpoint of solver train."))],
    output: Annotated[Path, typer.Argument(help=N_("The weights file to write."))],
    max_mb: Annotated[
        float,
        typer.Option(
            "--max-mb",
            min=1.0,
            max=100_000.0,
            help=N_(
                "The largest file, in MB (10^6 bytes); the smallest weights are dropped to fit."
            ),
        ),
    ] = 50.0,
    dense: Annotated[
        bool,
        typer.Option("--dense", help=N_("Every weight, not only the nonzero ones (no pruning).")),
    ] = False,
) -> None:
    """Write the weights of a checkpoint as the solver reads them: int16, sparse, pruned to fit."""
    from twenty48_replay.solver import training

    state = training.load_checkpoint(str(checkpoint))
    info = training.export(state, str(output), max_bytes=int(max_mb * 1e6), sparse=not dense)
    size = output.stat().st_size
    emit(
        _("{file}: {mb} MB, {kept} of {total} weights kept, scale {scale}").format(
            file=printable(str(output)),
            mb=decimal(size / 1e6),
            kept=number(info.get("kept", info["nonzero"])),
            total=number(info["total"]),
            scale=decimal(info["scale"], 4),
        )
    )


def weights_command(
    path: Annotated[
        Path | None,
        typer.Argument(
            help=N_("A weights file (default: the one the solver uses)."), show_default=False
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help=N_("As JSON."))] = False,
) -> None:
    """Check a weights file and describe it: its network, its training, its size.

    A file that is truncated, changed, of another version or not weights at
    all is one line on stderr and exit 2.
    """
    from twenty48_replay.solver import network as nw
    from twenty48_replay.solver import weights as wf

    chosen, _asked = nw.chosen_path(None if path is None else str(path))
    if chosen is None:
        emit(_("no weights: the solver uses its hand-tuned evaluation"))
        return
    loaded = wf.load(chosen)
    try:
        header = loaded.header
        meta = header.metadata
        facts: dict[str, Any] = {
            "file": str(chosen),
            "bytes": chosen.stat().st_size,
            "tuples": [list(t) for t in loaded.shape.tuples],
            "stages": list(loaded.shape.stages),
            "value_type": header.dtype,
            "layout": "sparse" if header.layout == wf.SPARSE else "dense",
            "scale": header.scale,
            "kind": meta.get("kind"),
            "games": meta.get("games"),
            "training": meta.get("training"),
        }
    finally:
        loaded.close()
    if as_json:
        emit_json(facts)
        return
    emit(
        _("{file}: {mb} MB, {layout} {type}, tuples {tuples}, stages {stages}").format(
            file=printable(str(chosen)),
            mb=decimal(facts["bytes"] / 1e6),
            layout=facts["layout"],
            type=facts["value_type"],
            tuples=" ".join("-".join(str(c) for c in t) for t in facts["tuples"]),
            stages=",".join(str(s) for s in facts["stages"]),
        )
    )
    if isinstance(facts["games"], int):
        emit(_("trained on {games} games").format(games=number(facts["games"])))
