"""Resolving ``ID|FILE`` arguments: a stored game or a record file."""

from __future__ import annotations

from pathlib import Path

from twenty48_replay.errors import RecordError
from twenty48_replay.record import Record
from twenty48_replay.sources import read_records

from .common import open_store


def load_target(target: str, db: str | None, index: int | None = None) -> tuple[Record, str]:
    """The record named by ``target`` and a label for it.

    A target that is a whole number and not an existing file is a game id in
    the store; anything else is a record file (``-`` for stdin).  For a JSON
    Lines file, ``index`` picks the record on that line (default: the first).
    """
    if target.isdigit() and not Path(target).exists():
        with open_store(db) as store:
            return store.export_record(int(target)), f"game {target}"
    for item in read_records(target):
        if index is not None and item.index != index:
            continue
        if item.record is None:
            assert item.error is not None
            raise item.error
        label = target if item.index == 1 else f"{target}:{item.index}"
        return item.record, label
    where = f"line {index}" if index is not None else "any record"
    raise RecordError(f"has no record at {where}", source=target)
