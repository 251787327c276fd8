"""Records in and out of the store: ``export`` and ``import``."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from twenty48_replay.bulk.sources import expand_paths, location, read_raw
from twenty48_replay.core.errors import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    Twenty48Error,
)
from twenty48_replay.core.i18n import LANGUAGES, N_, _, ngettext, number
from twenty48_replay.core.text import json_text, printable

from .common import DbOption, open_store
from .helptext import formatted
from .limits import (
    MAX_FRAME_MS,
    MAX_GIF_FRAMES,
    MAX_JOBS,
    MAX_SIZE,
    MAX_STEP,
    MIN_FRAME_MS,
    MIN_SIZE,
    MIN_STEP,
)
from .output import emit, fail, warn
from .targets import Loaded, game_id, load_checked, load_target, step_at
from .writing import check_output, database_files, is_stdout, write_output

if TYPE_CHECKING:
    from twenty48_replay.core.timeline import Timeline


class ExportFormat(StrEnum):
    """What ``export`` writes."""

    JSON = "json"
    SVG = "svg"
    GIF = "gif"
    HTML = "html"


def _protected(db: str | None, target: str | None) -> list[Path]:
    """Files ``-o`` must never replace: the database's files and the record being read."""
    from sqlalchemy.exc import ArgumentError

    from twenty48_replay.store.connection import resolve_url

    files = []
    try:
        url = resolve_url(db)
    except (ArgumentError, ValueError):
        url = None  # opening the store reports it
    if url is not None and url.get_backend_name() == "sqlite":
        files = database_files(url.database)
    if target is not None and target != "-" and game_id(target) is None:
        files.append(Path(target))
    return files


def _write(output: Path | None, data: bytes, what: str, protected: list[Path]) -> None:
    if write_output(output, data, protected):
        warn(
            _("wrote {what} to {file} ({size} bytes)").format(
                what=what, file=printable(str(output)), size=number(len(data))
            )
        )


def export_command(
    ctx: typer.Context,
    target: Annotated[
        str | None,
        typer.Argument(
            metavar="ID|FILE",
            help=N_("A game id, or (for svg/gif/html) a record file."),
            show_default=False,
        ),
    ] = None,
    all_games: Annotated[
        bool, typer.Option("--all", help=N_("Export every game, as JSON Lines."))
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help=N_(
                "Write to this file instead of stdout ('-': stdout). Written whole or not at "
                "all; never over a database file."
            ),
        ),
    ] = None,
    fmt: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            "-f",
            help=N_(
                "json: the record; svg: one position; gif: a replay; html: a self-contained "
                "page that replays and verifies the game in any browser, offline."
            ),
        ),
    ] = ExportFormat.JSON,
    at: Annotated[
        int | None,
        typer.Option(
            "--at",
            min=MIN_STEP,
            max=MAX_STEP,
            help=N_("svg: the step to draw (default: the last; negative from the end)."),
        ),
    ] = None,
    steps: Annotated[
        str | None,
        typer.Option(
            "--steps",
            help=formatted(
                N_(
                    "gif: a range of steps A:B (like Python slices, e.g. 0:200); "
                    "at most {count} frames."
                ),
                count=MAX_GIF_FRAMES,
            ),
        ),
    ] = None,
    frame_ms: Annotated[
        int,
        typer.Option(
            "--frame-ms", min=MIN_FRAME_MS, max=MAX_FRAME_MS, help=N_("gif: milliseconds per move.")
        ),
    ] = 120,
    size: Annotated[
        int, typer.Option("--size", min=MIN_SIZE, max=MAX_SIZE, help=N_("gif: width in pixels."))
    ] = 240,
    trust: Annotated[
        str | None,
        typer.Option(
            "--trust",
            metavar="KEYFILE_OR_URL",
            help=N_(
                "html: embed this server key (as for verify --trust) so the page also checks "
                "a fair record's signature."
            ),
            show_default=False,
        ),
    ] = None,
    page_language: Annotated[
        str | None,
        typer.Option(
            "--lang",
            metavar="en|da",
            help=N_("html: the page's language, en or da (default: the language of messages)."),
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Write games as v1 records (JSON, JSON Lines for --all), an SVG or GIF picture, or a
    self-verifying HTML replay page."""
    if (target is None) == (not all_games):
        raise typer.BadParameter(_("give a game id or --all (not both)"))
    # An option of another format would be silently ignored: refuse it instead.
    for name, option, wanted in (
        ("at", "--at", ExportFormat.SVG),
        ("steps", "--steps", ExportFormat.GIF),
        ("frame_ms", "--frame-ms", ExportFormat.GIF),
        ("size", "--size", ExportFormat.GIF),
        ("trust", "--trust", ExportFormat.HTML),
        ("page_language", "--lang", ExportFormat.HTML),
    ):
        source = ctx.get_parameter_source(name)
        given = source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")
        if given and fmt is not wanted:
            raise typer.BadParameter(
                _("{option} goes with --format {wanted}, not --format {given}").format(
                    option=option, wanted=wanted, given=fmt
                )
            )
    if page_language is not None and page_language not in LANGUAGES:
        raise typer.BadParameter(
            _("--lang: {value} is not a language; choose one of {languages}").format(
                value=page_language, languages=", ".join(LANGUAGES)
            )
        )
    protected = _protected(db, target)
    if output is not None and not is_stdout(output):
        check_output(output, protected)
    if fmt is ExportFormat.JSON:
        _export_records(target, all_games, output, db, protected)
        return
    if all_games or target is None:
        raise typer.BadParameter(_("--all exports records; pictures and pages are of one game"))
    if fmt is ExportFormat.HTML:
        _export_html(target, trust, output, db, protected, page_language)
    elif fmt is ExportFormat.SVG:
        _export_svg(target, at, output, db, protected)
    else:
        _export_gif(target, steps, frame_ms, size, output, db, protected)


def _drawn_timeline(target: str, db: str | None) -> tuple[Loaded, Timeline]:
    """The record to draw and its steps; an invalid one is drawn up to its first bad move."""
    from twenty48_replay.core.timeline import Timeline

    loaded = load_checked(target, db)
    timeline = Timeline(loaded.record)
    if timeline.error is not None:
        warn(
            _("{label}: {error}; drawing the steps before it").format(
                label=loaded.label, error=timeline.error.translated()
            )
        )
    return loaded, timeline


def _export_svg(
    target: str, at: int | None, output: Path | None, db: str | None, protected: list[Path]
) -> None:
    """One position of a game as an SVG picture."""
    from twenty48_replay.pictures import step_svg

    loaded, timeline = _drawn_timeline(target, db)
    step = step_at(timeline, at, loaded.label)
    svg = step_svg(step, timeline.last).encode("utf-8")
    _write(output, svg, _("step {step} as SVG").format(step=step.step), protected)
    loaded.finish()


def _export_gif(
    target: str,
    steps: str | None,
    frame_ms: int,
    size: int,
    output: Path | None,
    db: str | None,
    protected: list[Path],
) -> None:
    """A range of steps of a game as an animated GIF."""
    from twenty48_replay.pictures import write_replay_gif

    if is_stdout(output) and sys.stdout.isatty():
        raise typer.BadParameter(_("a GIF is binary: give --output FILE (or redirect stdout)"))
    loaded, timeline = _drawn_timeline(target, db)
    first, last = _step_range(steps, timeline.last)
    if last - first + 1 > MAX_GIF_FRAMES:
        raise typer.BadParameter(
            _(
                "a GIF of {frames} frames is over the limit of {limit}; "
                "choose a part with --steps A:B"
            ).format(frames=number(last - first + 1), limit=number(MAX_GIF_FRAMES))
        )
    chosen = (timeline[n] for n in range(first, last + 1)) if first else _prefix(timeline, last)
    buffer = io.BytesIO()
    frames = write_replay_gif(
        chosen, buffer, frame_ms=frame_ms, size=size, total_moves=timeline.last
    )
    if frames == 1:
        what = _("1 frame (step {first}) as GIF").format(first=first)
    else:
        what = _("{frames} frames (steps {first}-{last}) as GIF").format(
            frames=frames, first=first, last=last
        )
    _write(output, buffer.getvalue(), what, protected)
    loaded.finish()


def _export_html(
    target: str,
    trust: str | None,
    output: Path | None,
    db: str | None,
    protected: list[Path],
    language: str | None = None,
) -> None:
    """The self-verifying replay page of one record.

    Like the pictures, an invalid record still gets its page (which shows
    why it fails), then its reasons on stderr and exit 1.  The key is read
    before the record, as ``verify --trust`` does, and the record is checked
    here with it too, so the exit code agrees with what the page shows.
    """
    from twenty48_replay.core.replay import verify
    from twenty48_replay.fairplay.signing import TrustedKeySet, load_trusted
    from twenty48_replay.web.page import replay_page

    from .evaluation_text import graph_for

    trusted = None
    if trust is not None:
        trusted = load_trusted(trust)
    record, label = load_target(target, db)
    loaded = Loaded(record, label, tuple(verify(record, trusted).translated_reasons()))
    page_key = None
    if trusted is not None:
        page_key = (
            trusted.keys.to_json() if isinstance(trusted, TrustedKeySet) else trusted.public_key
        )
    graph, _note = graph_for(record)
    html = replay_page(
        record, trusted_key=page_key, language=language, graph=graph, graph_note=graph is None
    ).encode("utf-8")
    _write(output, html, _("the replay page as HTML"), protected)
    loaded.finish()


def _prefix(timeline: Timeline, last: int) -> Iterator[Any]:
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
        raise typer.BadParameter(
            _("--steps {text}: expected A:B, e.g. 0:200").format(text=repr(text))
        ) from None
    indices = range(last + 1)[start:stop]
    if not indices:
        raise typer.BadParameter(
            _("--steps {text}: no steps in 0..{last}").format(text=repr(text), last=last)
        )
    return indices[0], indices[-1]


def _export_records(
    target: str | None,
    all_games: bool,
    output: Path | None,
    db: str | None,
    protected: list[Path],
) -> None:
    number = None
    if not all_games:
        assert target is not None
        number = game_id(target)
        if number is None:
            raise typer.BadParameter(
                _("{target} is not a game id").format(target=printable(repr(target)))
            )
    damaged = 0
    with open_store(db) as store:
        if number is None:
            lines = []
            for outcome in store.export_each():  # a damaged game is reported, never exported
                if isinstance(outcome, Twenty48Error):
                    damaged += 1
                    fail(outcome.translated())
                else:
                    lines.append(outcome.to_json() + "\n")
            text = "".join(lines)
            what = ngettext("{count} record", "{count} records", len(lines)).format(
                count=len(lines)
            )
        else:
            text = store.game_as_record(number).to_json(indent=2) + "\n"
            what = _("1 record")
    _write(output, json_text(text).encode("utf-8"), what, protected)
    if damaged:
        raise typer.Exit(EXIT_FAILED)


def import_command(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE",
            help=N_("Record files (.json, .jsonl), directories, - for stdin."),
        ),
    ],
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            max=MAX_JOBS,
            help=formatted(
                N_(
                    "Verifying processes (default: all cores but one; "
                    "at most 4 per core: {jobs} here)."
                ),
                jobs=MAX_JOBS,
            ),
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Verify records and store each valid one as a game (one transaction per record)."""
    from twenty48_replay.bulk.batch import verify_records
    from twenty48_replay.core.errors import ImportRejectedError

    counts = {"imported": 0, "duplicate": 0, "invalid": 0, "unreadable": 0}
    raws = (raw for path in expand_paths(files) for raw in read_raw(path))
    with open_store(db) as store, store.batch():
        for item, result in verify_records(raws, jobs):
            where = printable(location(item.source, item.index, lines=item.lines))
            if item.record is None:
                assert item.error is not None
                counts["unreadable"] += 1
                warn(_("{error} (unreadable, not imported)").format(error=item.error.translated()))
                continue
            try:
                outcome = store.import_record(item.record, result)
            except ImportRejectedError as exc:
                counts["invalid"] += 1
                warn(
                    _("{where}: INVALID, not imported: {reason}").format(
                        where=where, reason=exc.translated()
                    )
                )
                continue
            if outcome.duplicate:
                counts["duplicate"] += 1
                emit(
                    _("{where}: already stored as game {id}, skipped").format(
                        where=where, id=outcome.game_id
                    )
                )
            else:
                counts["imported"] += 1
                emit(_("{where}: imported as game {id}").format(where=where, id=outcome.game_id))
    parts = (
        ngettext("{count} imported", "{count} imported", counts["imported"]),
        ngettext("{count} duplicate skipped", "{count} duplicates skipped", counts["duplicate"]),
        ngettext("{count} invalid", "{count} invalid", counts["invalid"]),
        ngettext("{count} unreadable", "{count} unreadable", counts["unreadable"]),
    )
    numbers = (counts["imported"], counts["duplicate"], counts["invalid"], counts["unreadable"])
    warn(", ".join(part.format(count=n) for part, n in zip(parts, numbers, strict=True)))
    if counts["unreadable"]:
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(EXIT_FAILED if counts["invalid"] else EXIT_OK)
