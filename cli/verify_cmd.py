"""``twenty48 verify``: replay records and check their claims.

Exit status: 0 when every record is valid, 1 when any is invalid, 2 when
any input is unreadable (2 wins over 1).  Unreadable inputs never stop the
batch: each gets one line naming file, line and field.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from twenty48_replay.errors import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, RecordError
from twenty48_replay.replay import VerifyResult, verify
from twenty48_replay.sources import SourcedRecord, read_records

from .output import emit, emit_json, warn


def _describe(item: SourcedRecord, result: VerifyResult) -> str:
    where = (
        item.source
        if item.index == 1 and not item.source.endswith(".jsonl")
        else (f"{item.source}:{item.index}")
    )
    summary = f"score {result.score}, max tile {result.max_tile}, {result.moves} moves"
    flags = [flag for flag, on in (("won", result.won), ("over", result.over)) if on]
    if flags:
        summary += f" ({', '.join(flags)})"
    if result.valid:
        return f"{where}: valid: {summary}"
    return f"{where}: INVALID: " + "; ".join(result.reasons) + f" [replayed {summary}]"


def _unreadable_json(source: str, index: int | None, error: RecordError) -> dict[str, Any]:
    return {"file": source, "index": index, "valid": None, "error": error.message}


def verify_command(
    files: Annotated[
        list[str],
        typer.Argument(
            help="Record files: .json (one record), .jsonl (one per line), - for stdin."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per record on stdout (JSON Lines).")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only invalid and unreadable records.")
    ] = False,
) -> None:
    """Replay records and check their claimed score, max tile and final board."""
    counts = {"valid": 0, "invalid": 0, "unreadable": 0}
    for path in files:
        try:
            items = list_or_stream(path)
            for item in items:
                if item.record is None:
                    assert item.error is not None
                    counts["unreadable"] += 1
                    if as_json:
                        emit_json(_unreadable_json(item.source, item.index, item.error))
                    else:
                        warn(f"{item.error.message} (unreadable)")
                    continue
                result = verify(item.record)
                counts["valid" if result.valid else "invalid"] += 1
                if as_json:
                    emit_json({"file": item.source, "index": item.index, **result.to_json()})
                elif not (quiet and result.valid):
                    emit(_describe(item, result))
        except RecordError as exc:
            counts["unreadable"] += 1
            if as_json:
                emit_json(_unreadable_json(path, None, exc))
            else:
                warn(f"{exc.message} (unreadable)")
    total = sum(counts.values())
    if total != 1 and not as_json:
        warn(
            f"{total} records: {counts['valid']} valid, {counts['invalid']} invalid, "
            f"{counts['unreadable']} unreadable"
        )
    if counts["unreadable"]:
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(EXIT_FAILED if counts["invalid"] else EXIT_OK)


def list_or_stream(path: str) -> Any:
    """The records of one input, streamed (see :func:`read_records`)."""
    return read_records(path)
