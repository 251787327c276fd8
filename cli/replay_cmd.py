"""``twenty48 replay``: walk through a stored game or a record file, step by step.

Without options it opens the full-screen viewer; ``--at``, ``--frames`` and
``--json`` print steps for scripts.  A record is verified first: an invalid
one is shown up to its first invalid move, the reason goes to stderr and the
exit status is 1.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from twenty48_replay.core.errors import EXIT_FAILED
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.replay import Step
from twenty48_replay.core.timeline import Timeline

from .common import DbOption, JsonOption
from .directions import ARROWS
from .limits import MAX_LINE, MAX_STEP, MIN_STEP
from .output import emit, emit_json, fail
from .render import board_text, cell_name
from .targets import load_checked


def step_text(step: Step, last: int) -> str:
    """A step as a few lines of text: header line, then the board."""
    if step.move is None:
        header = _("step 0 / {last} · opening · score 0").format(last=last)
    else:
        spawn = _("{value} at {cell}").format(
            value=step.spawn.value, cell=cell_name(step.spawn.cell)
        )
        header = _(
            "step {step} / {last} · move {letter} {arrow} · "
            "score {score} (+{gained}) · spawned {spawn}"
        ).format(
            step=step.step,
            last=last,
            letter=step.move.letter,
            arrow=ARROWS[step.move.letter],
            score=step.score,
            gained=step.gained,
            spawn=spawn,
        )
    return header + "\n" + board_text(step.board)


def replay_command(
    target: Annotated[
        str,
        typer.Argument(
            metavar="ID|FILE", help=N_("A game id, or a record file (.json, .jsonl, -).")
        ),
    ],
    at: Annotated[
        int | None,
        typer.Option(
            "--at",
            min=MIN_STEP,
            max=MAX_STEP,
            help=N_("Print the board at this step (negative: from the end)."),
        ),
    ] = None,
    frames: Annotated[bool, typer.Option("--frames", help=N_("Print every step."))] = False,
    line: Annotated[
        int | None,
        typer.Option(
            "--line", min=1, max=MAX_LINE, help=N_("For a .jsonl file: the record on this line.")
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Replay a game step by step (viewer, or --at/--frames/--json for scripts)."""
    loaded = load_checked(target, db, line)
    timeline = Timeline(loaded.record)
    if at is None and not frames and not as_json:
        if not sys.stdin.isatty() or not sys.stdout.isatty():
            fail(_("the viewer needs a terminal; use --at N, --frames or --json"))
            raise typer.Exit(2)
        from .evaluation_text import graph_for
        from .tui.replay_app import run_replay_app

        graph, note = graph_for(loaded.record)
        run_replay_app(timeline, loaded.label, list(loaded.reasons), graph, note)
        loaded.finish()
        return
    if at is not None:
        try:
            steps = [timeline[at]]
        except IndexError:
            fail(
                _("{label}: step {at} is outside 0..{last}").format(
                    label=loaded.label, at=at, last=timeline.last
                )
            )
            loaded.finish()
            raise typer.Exit(EXIT_FAILED) from None
    else:
        steps = list(timeline)
    for step in steps:
        if as_json:
            emit_json(step.to_json())
        else:
            emit(step_text(step, timeline.last))
            if frames:
                emit()
    loaded.finish()
