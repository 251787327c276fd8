"""``twenty48 verify``: replay records and check their claims, at any scale.

Inputs are files, directories (their .json/.jsonl files) and ``-``; they are
streamed and verified by a process pool (``--jobs``), results come out in
input order.  Exit status: 0 when every record is valid, 1 when any is
invalid, 2 when any input is unreadable (2 wins over 1).  Unreadable input
never stops the batch: each gets one line naming file, line and field.

With ``--scheduler`` the records are verified on a Dask cluster instead
(:mod:`twenty48_replay.bulk.cluster`, imported only then): the same lines, the
same summary, the same exit code; only where the work runs differs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from twenty48_replay.bulk.batch import Result, verify_many
from twenty48_replay.bulk.sources import RawRecord, expand_paths, location, read_raw
from twenty48_replay.core import native
from twenty48_replay.core.errors import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, RecordError
from twenty48_replay.core.i18n import N_, _, ngettext, number
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.text import printable
from twenty48_replay.core.workers import default_jobs

from .helptext import formatted
from .limits import MAX_JOBS, MAX_PARTITION_BYTES, MIN_PARTITION_BYTES
from .output import emit, emit_json, warn

if TYPE_CHECKING:
    from twenty48_replay.core.fair import SignatureChecker


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
    reasons = "; ".join(Reason.from_json(code).translated() for code in result["reason_codes"])
    return _("{where}: INVALID: {reasons} [replayed {summary}] · {fair}").format(
        where=where, reasons=reasons, summary=summary, fair=fair_label(result)
    )


def unreadable_line(result: Result) -> str:
    """The human line of an unreadable record: its ``error``, translated from ``error_code``."""
    error = RecordError(
        Reason.from_json(result["error_code"]), source=result["file"], index=result["index"]
    )
    return _("{error} (unreadable)").format(error=error.translated())


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
            help=N_(
                "Record files (.json: one record, .jsonl: one per line), directories, - for stdin."
            ),
        ),
    ],
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help=N_("Print only invalid and unreadable records."))
    ] = False,
    trust: Annotated[
        str | None,
        typer.Option(
            "--trust",
            metavar="KEYFILE_OR_URL",
            help=N_(
                "Check fair records' signatures with this key: a public key file (PEM, or the "
                "server's well-known JSON, which may list every key it has used: a key set) or "
                "a server URL whose /.well-known/twenty48-key is fetched."
            ),
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
            help=formatted(
                N_("Worker processes (default: all cores; at most 4 per core: {jobs} here)."),
                jobs=MAX_JOBS,
            ),
            show_default=False,
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="ADDRESS",
            envvar="TWENTY48_SCHEDULER",
            help=N_(
                "Verify on the Dask cluster of this scheduler (tls://HOST:8786; tcp:// only on a "
                "network you control): its workers read the inputs (shared paths or fsspec URLs). "
                "The scheduler and its workers are fully trusted: their answers are unpickled in "
                "this process. tls:// needs Dask's TLS settings: a CA file, a client certificate "
                "and its key (DASK_DISTRIBUTED__COMM__TLS__*; docs: Verifying records). "
                "Needs the 'cluster' extra."
            ),
            show_default=False,
        ),
    ] = None,
    partition_bytes: Annotated[
        int | None,
        typer.Option(
            "--partition-bytes",
            min=MIN_PARTITION_BYTES,
            max=MAX_PARTITION_BYTES,
            help=N_("With --scheduler: bytes of JSON Lines per worker task (default 2 MiB)."),
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help=N_("One JSON object per record on stdout (JSON Lines)."))
    ] = False,
) -> None:
    """Replay records and check their claimed score, max tile and final board.

    Fair records (from a score server) also have their commitment and seed
    derivation checked, and with --trust their signature.

    With --scheduler the Dask scheduler and its workers are fully trusted:
    what they send back is unpickled here, so anyone who can join the cluster
    can run code in this process. Use tls:// with certificates (docs: Verifying records).
    """
    trusted = None
    if trust is not None:
        from twenty48_replay.fairplay.signing import load_trusted

        trusted = load_trusted(trust)
    if scheduler is not None and scheduler.strip():
        if jobs is not None:
            raise typer.BadParameter(
                _("--jobs runs local processes; it cannot go with --scheduler")
            )
        _report(*_verify_on_cluster(scheduler, files, as_json, quiet, trusted, partition_bytes))
    if partition_bytes is not None:
        raise typer.BadParameter(_("--partition-bytes needs --scheduler"))
    paths = list(expand_paths(files))
    progress = _Progress(_total_bytes(paths))
    started = time.perf_counter()
    line_sources: set[str] = set()
    try:
        tally = _print_results(
            verify_many(_raws(paths, progress, line_sources), jobs or default_jobs(), trusted),
            as_json,
            quiet,
            line_sources,
        )
    finally:
        progress.stop()
    _report(tally, time.perf_counter() - started, native.describe())


def _verify_on_cluster(
    scheduler: str,
    files: list[str],
    as_json: bool,
    quiet: bool,
    trusted: SignatureChecker | None,
    partition_bytes: int | None,
) -> tuple[_Tally, float, str]:
    """The same lines as the local pool, from the workers of a Dask cluster, the seconds
    and the engine the workers ran."""
    from twenty48_replay.bulk.cluster import PARTITION_BYTES, connect

    with connect(scheduler.strip()) as session:
        inputs = session.survey(files)
        sizes = [item.size for item in inputs if item.size is not None]
        progress = _Progress(sum(sizes) if sizes else None)
        started = time.perf_counter()
        try:
            results = session.verify(
                inputs, trusted, partition_bytes or PARTITION_BYTES, progress.advance
            )
            # Inputs split into ranges are JSON Lines: their line 1 is named as such.
            line_sources = {item.name for item in inputs if item.size is not None}
            tally = _print_results(results, as_json, quiet, line_sources)
            return tally, time.perf_counter() - started, session.engines()
        finally:
            progress.stop()


class _Tally:
    """Records counted by verdict, and moves replayed, for the summary line."""

    def __init__(self) -> None:
        self.counts = {"valid": 0, "invalid": 0, "unreadable": 0}
        self.replayed = 0


def _print_results(
    results: Iterator[Result], as_json: bool, quiet: bool, line_sources: set[str]
) -> _Tally:
    """Each result's line (or JSON object) as it comes, in order; the tally of them."""
    tally = _Tally()
    counts = tally.counts
    for result in results:
        if result["valid"] is None:
            counts["unreadable"] += 1
            if as_json:
                emit_json(result)
            else:
                warn(unreadable_line(result))
            continue
        counts["valid" if result["valid"] else "invalid"] += 1
        tally.replayed += result["moves"]
        if as_json:
            emit_json(result)
        elif not (quiet and result["valid"]):
            emit(describe(result, line_sources))
    return tally


def _report(tally: _Tally, seconds: float, engine: str) -> NoReturn:
    """The summary line (unless there was one record) and the exit code.

    The summary names the engine that ran (``native (sha-ni)`` or ``python``,
    see :mod:`twenty48_replay.core.native`); it is on stderr, so ``--json`` output
    is the same byte for byte with either engine.
    """
    counts, replayed = tally.counts, tally.replayed
    seconds = max(seconds, 1e-9)
    total = sum(counts.values())
    if total != 1:
        warn(
            ngettext(
                "{total} record: {valid} valid, {invalid} invalid, {unreadable} unreadable"
                " · engine {engine} · {records_per_s} records/s, {moves_per_s} moves/s",
                "{total} records: {valid} valid, {invalid} invalid, {unreadable} unreadable"
                " · engine {engine} · {records_per_s} records/s, {moves_per_s} moves/s",
                total,
            ).format(
                total=total,
                valid=counts["valid"],
                invalid=counts["invalid"],
                unreadable=counts["unreadable"],
                engine=engine,
                records_per_s=number(round(total / seconds)),
                moves_per_s=number(round(replayed / seconds)),
            )
        )
    if counts["unreadable"]:
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(EXIT_FAILED if counts["invalid"] else EXIT_OK)
