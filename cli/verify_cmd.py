"""``twenty48 verify``: replay records and check their claims, at any scale.

Inputs are files, directories (their .json/.jsonl files) and ``-``; they are
streamed and verified by a process pool (``--jobs``), results come out in
input order.  Exit status: 0 when every record is valid, 1 when any is
invalid, 2 when any input is unreadable (2 wins over 1).  Unreadable input
never stops the batch: each gets one line naming file, line and field.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Annotated, Any

import typer

from twenty48_replay.batch import Result, default_jobs, verify_many
from twenty48_replay.errors import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE
from twenty48_replay.i18n import N_, _, ngettext, number
from twenty48_replay.sources import RawRecord, expand_paths, location, read_raw
from twenty48_replay.text import printable

from .limits import JOBS_HELP, MAX_JOBS
from .output import emit, emit_json, warn


def describe(result: Result, line_sources: frozenset[str] | set[str] = frozenset()) -> str:
    """One human line for a verified record (``line_sources``: inputs read as JSON Lines)."""
    where = printable(
        location(result["file"], result["index"], lines=result["file"] in line_sources)
    )
    summary = _("score {score}, max tile {tile}, {moves} moves").format(
        score=result["score"], tile=result["max_tile"], moves=result["moves"]
    )
    flags = [_(flag) for flag in (N_("won"), N_("over")) if result[flag]]
    if flags:
        summary += f" ({', '.join(flags)})"
    if result["valid"]:
        return _("{where}: valid: {summary} · {fair}").format(
            where=where, summary=summary, fair=fair_label(result)
        )
    return _("{where}: INVALID: {reasons} [replayed {summary}] · {fair}").format(
        where=where, reasons="; ".join(result["reasons"]), summary=summary, fair=fair_label(result)
    )


def fair_label(result: Result) -> str:
    """The fair-play verdict in words (SPEC section 11.8)."""
    status = result.get("fair", "self-seeded")
    if status == "unchecked":
        return _("fair play unchecked (no --trust key for the signature)")
    if status == "fair":
        return _("fair, signature checked")
    return _(str(status))


#: The other fair-play verdicts, as JSON has them, marked for translation where shown.
FAIR_WORDS = (N_("self-seeded"), N_("not fair"))


class _Progress:
    """A progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total_bytes: int | None) -> None:
        self.bar: Any = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("verifying"),
                BarColumn(),
                MofNCompleteColumn()
                if total_bytes is None
                else TextColumn("{task.percentage:>3.0f}%"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.task = self.bar.add_task("verify", total=total_bytes)
            self.bar.start()

    def advance(self, amount: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, amount)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _total_bytes(paths: list[str]) -> int | None:
    import os

    try:
        return sum(os.path.getsize(p) for p in paths) if "-" not in paths else None
    except OSError:
        return None


def _raws(paths: list[str], progress: _Progress, line_sources: set[str]) -> Iterator[RawRecord]:
    """Every input's records; notes each input read as JSON Lines (its line 1 is named so)."""
    for path in paths:
        for raw in read_raw(path):
            if raw.lines:
                line_sources.add(raw.source)
            progress.advance(len(raw.data or b""))
            yield raw


def verify_command(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE",
            help="Record files (.json: one record, .jsonl: one per line), directories, "
            "- for stdin.",
        ),
    ],
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only invalid and unreadable records.")
    ] = False,
    trust: Annotated[
        str | None,
        typer.Option(
            "--trust",
            metavar="KEYFILE_OR_URL",
            help="Check fair records' signatures with this key: a public key file (PEM or the "
            "server's well-known JSON) or a server URL whose /.well-known/twenty48-key is fetched.",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            max=MAX_JOBS,
            help=f"Worker processes (default: all cores; {JOBS_HELP}).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per record on stdout (JSON Lines).")
    ] = False,
) -> None:
    """Replay records and check their claimed score, max tile and final board.

    Fair records (from a score server) also have their commitment and seed
    derivation checked, and with --trust their signature.
    """
    trusted = None
    if trust is not None:
        from twenty48_replay.signing import load_trusted

        trusted = load_trusted(trust)
    paths = list(expand_paths(files))
    counts = {"valid": 0, "invalid": 0, "unreadable": 0}
    replayed = 0
    progress = _Progress(_total_bytes(paths))
    started = time.perf_counter()
    line_sources: set[str] = set()
    try:
        raws = _raws(paths, progress, line_sources)
        for result in verify_many(raws, jobs or default_jobs(), trusted):
            if result["valid"] is None:
                counts["unreadable"] += 1
                if as_json:
                    emit_json(result)
                else:
                    warn(_("{error} (unreadable)").format(error=result["error"]))
                continue
            counts["valid" if result["valid"] else "invalid"] += 1
            replayed += result["moves"]
            if as_json:
                emit_json(result)
            elif not (quiet and result["valid"]):
                emit(describe(result, line_sources))
    finally:
        progress.stop()
    seconds = max(time.perf_counter() - started, 1e-9)
    total = sum(counts.values())
    if total != 1:
        warn(
            ngettext(
                "{total} record: {valid} valid, {invalid} invalid, {unreadable} unreadable"
                " · {records_per_s} records/s, {moves_per_s} moves/s",
                "{total} records: {valid} valid, {invalid} invalid, {unreadable} unreadable"
                " · {records_per_s} records/s, {moves_per_s} moves/s",
                total,
            ).format(
                total=total,
                valid=counts["valid"],
                invalid=counts["invalid"],
                unreadable=counts["unreadable"],
                records_per_s=number(round(total / seconds)),
                moves_per_s=number(round(replayed / seconds)),
            )
        )
    if counts["unreadable"]:
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(EXIT_FAILED if counts["invalid"] else EXIT_OK)
