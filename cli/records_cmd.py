"""Records in and out of the store: ``export`` and ``import``."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from twenty48_replay.errors import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    StoreError,
    Twenty48Error,
)
from twenty48_replay.sources import expand_paths, location, read_raw

from .common import DbOption, open_store
from .output import emit, fail, warn


class ExportFormat(StrEnum):
    """What ``export`` writes."""

    JSON = "json"
    SVG = "svg"
    GIF = "gif"


def _write(output: Path | None, data: bytes, what: str) -> None:
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        output.write_bytes(data)
    except OSError as exc:
        raise StoreError(f"{output}: cannot write ({exc.strerror})") from None
    warn(f"wrote {what} to {output} ({len(data):,} bytes)")


def export_command(
    target: Annotated[
        str | None,
        typer.Argument(help="A game id, or (for svg/gif) a record file.", show_default=False),
    ] = None,
    all_games: Annotated[
        bool, typer.Option("--all", help="Export every game, as JSON Lines.")
    ] = False,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    fmt: Annotated[
        ExportFormat,
        typer.Option("--format", "-f", help="json: the record; svg: one position; gif: a replay."),
    ] = ExportFormat.JSON,
    at: Annotated[
        int | None,
        typer.Option(
            "--at", help="svg: the step to draw (default: the last; negative from the end)."
        ),
    ] = None,
    steps: Annotated[
        str | None,
        typer.Option("--steps", help="gif: a range of steps A:B (like Python slices, e.g. 0:200)."),
    ] = None,
    frame_ms: Annotated[
        int, typer.Option("--frame-ms", min=10, help="gif: milliseconds per move.")
    ] = 120,
    size: Annotated[int, typer.Option("--size", min=120, help="gif: width in pixels.")] = 240,
    db: DbOption = None,
) -> None:
    """Write games as v1 records (JSON, JSON Lines for --all), or as an SVG or GIF picture."""
    if (target is None) == (not all_games):
        raise typer.BadParameter("give a game id or --all (not both)")
    if fmt is ExportFormat.JSON:
        _export_records(target, all_games, output, db)
        return
    if all_games or target is None:
        raise typer.BadParameter("--all exports records; pictures are of one game")
    from twenty48_replay.pictures import step_svg, write_replay_gif
    from twenty48_replay.timeline import Timeline

    from .targets import load_target

    record, label = load_target(target, db)
    timeline = Timeline(record)
    if timeline.error is not None:
        warn(f"{label}: {timeline.error}; drawing the steps before it")
    if fmt is ExportFormat.SVG:
        number = timeline.last if at is None else at
        try:
            step = timeline[number]
        except IndexError:
            raise typer.BadParameter(
                f"--at {number}: {label} has steps 0..{timeline.last}"
            ) from None
        _write(output, step_svg(step, timeline.last).encode("utf-8"), f"step {step.step} as SVG")
        return
    if output is None and sys.stdout.isatty():
        raise typer.BadParameter("a GIF is binary: give --output FILE (or redirect stdout)")
    first, last = _step_range(steps, timeline.last)
    chosen = (timeline[n] for n in range(first, last + 1)) if first else _prefix(timeline, last)
    buffer = io.BytesIO()
    frames = write_replay_gif(
        chosen, buffer, frame_ms=frame_ms, size=size, total_moves=timeline.last
    )
    _write(output, buffer.getvalue(), f"{frames} frames (steps {first}-{last}) as GIF")


def _prefix(timeline: Any, last: int) -> Iterator[Any]:
    for step in timeline:
        if step.step > last:
            return
        yield step


def _step_range(text: str | None, last: int) -> tuple[int, int]:
    """Parse ``A:B`` (either side optional, negatives from the end) into inclusive steps."""
    if text is None:
        return 0, last
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        start = int(parts[0]) if parts[0] else 0
        stop = int(parts[1]) if parts[1] else last + 1
    except ValueError:
        raise typer.BadParameter(f"--steps {text!r}: expected A:B, e.g. 0:200") from None
    indices = range(last + 1)[start:stop]
    if not indices:
        raise typer.BadParameter(f"--steps {text!r}: no steps in 0..{last}")
    return indices[0], indices[-1]


def _export_records(
    target: str | None, all_games: bool, output: Path | None, db: str | None
) -> None:
    damaged = 0
    with open_store(db) as store:
        if all_games:
            lines = []
            for outcome in store.export_each():  # a damaged game is reported, never exported
                if isinstance(outcome, Twenty48Error):
                    damaged += 1
                    fail(str(outcome))
                else:
                    lines.append(outcome.to_json() + "\n")
            text = "".join(lines)
            what = f"{len(lines)} record(s)"
        else:
            assert target is not None
            if not target.isdigit():
                raise typer.BadParameter(f"{target!r} is not a game id")
            text = store.export_record(int(target)).to_json(indent=2) + "\n"
            what = "1 record"
    _write(output, text.encode("utf-8"), what)
    if damaged:
        raise typer.Exit(EXIT_FAILED)


def import_command(
    files: Annotated[
        list[str], typer.Argument(help="Record files (.json, .jsonl), directories, - for stdin.")
    ],
    db: DbOption = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", min=1, help="Verifying processes (default: all cores but one)."
        ),
    ] = None,
) -> None:
    """Verify records and store each valid one as a game (one transaction per record)."""
    from twenty48_replay.batch import verify_records
    from twenty48_replay.store import ImportRejectedError

    counts = {"imported": 0, "duplicate": 0, "invalid": 0, "unreadable": 0}
    raws = (raw for path in expand_paths(files) for raw in read_raw(path))
    with open_store(db) as store, store.batch():
        for item, result in verify_records(raws, jobs):
            where = location(item.source, item.index)
            if item.record is None:
                assert item.error is not None
                counts["unreadable"] += 1
                warn(f"{item.error.message} (unreadable, not imported)")
                continue
            try:
                outcome = store.import_record(item.record, result)
            except ImportRejectedError as exc:
                counts["invalid"] += 1
                warn(f"{where}: INVALID, not imported: {exc.reason}")
                continue
            if outcome.duplicate:
                counts["duplicate"] += 1
                emit(f"{where}: already stored as game {outcome.game_id}, skipped")
            else:
                counts["imported"] += 1
                emit(f"{where}: imported as game {outcome.game_id}")
    warn(
        f"{counts['imported']} imported, {counts['duplicate']} duplicate(s) skipped, "
        f"{counts['invalid']} invalid, {counts['unreadable']} unreadable"
    )
    if counts["unreadable"]:
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(EXIT_FAILED if counts["invalid"] else EXIT_OK)
