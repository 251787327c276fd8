"""Records in and out of the store: ``export`` and ``import``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from twenty48_replay.errors import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, StoreError
from twenty48_replay.sources import expand_paths, read_records

from .common import DbOption, open_store
from .output import emit, warn


def export_command(
    game_id: Annotated[int | None, typer.Argument(help="Game id to export.")] = None,
    all_games: Annotated[
        bool, typer.Option("--all", help="Export every game, as JSON Lines.")
    ] = False,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Write games as v1 records: JSON for one game, JSON Lines for --all."""
    if (game_id is None) == (not all_games):
        raise typer.BadParameter("give a game id or --all (not both)")
    with open_store(db) as store:
        if all_games:
            lines = [record.to_json() + "\n" for record in store.export_all()]
            text = "".join(lines)
            count = len(lines)
        else:
            assert game_id is not None
            text = store.export_record(game_id).to_json(indent=2) + "\n"
            count = 1
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise StoreError(f"{output}: cannot write ({exc.strerror})") from None
    warn(f"wrote {count} record(s) to {output}")


def import_command(
    files: Annotated[list[str], typer.Argument(help="Record files (.json, .jsonl, - for stdin).")],
    db: DbOption = None,
) -> None:
    """Verify records and store each valid one as a game (one transaction per record)."""
    from twenty48_replay.store import ImportRejectedError

    counts = {"imported": 0, "duplicate": 0, "invalid": 0, "unreadable": 0}
    with open_store(db) as store:
        for item in (item for path in expand_paths(files) for item in read_records(path)):
            where = item.source if item.index in (1, None) else f"{item.source}:{item.index}"
            if item.record is None:
                assert item.error is not None
                counts["unreadable"] += 1
                warn(f"{item.error.message} (unreadable, not imported)")
                continue
            try:
                outcome = store.import_record(item.record)
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
