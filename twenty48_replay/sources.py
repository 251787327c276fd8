"""Reading records from files and standard input, within memory bounds.

A ``.json`` file holds one record, a ``.jsonl`` file one per line (blank
lines skipped, ``index`` = 1-based line number), ``-`` is standard input in
either form.  Every read is bounded by the 64 MiB input limit, so a huge
file is refused after reading at most that much, never loaded whole.  Each
item comes with its location; an unreadable one carries a
:class:`RecordError` instead of a record, so one bad line never stops a batch.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO

import attrs

from twenty48_replay.errors import RecordError
from twenty48_replay.record import MAX_INPUT_BYTES, Record, loads_strict

STDIN = "-"


@attrs.frozen(slots=True)
class SourcedRecord:
    """A record, or why it could not be read, with where it came from."""

    source: str
    index: int
    record: Record | None
    error: RecordError | None = None


def _read_bounded(stream: BinaryIO, source: str) -> bytes:
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise RecordError(f"input is over the limit of {MAX_INPUT_BYTES} bytes", source=source)
    return data


def _parse(data: bytes, source: str, index: int, line: int | None = None) -> SourcedRecord:
    """Read one record; errors name the line only when the input has lines."""
    try:
        return SourcedRecord(source, index, Record.from_json(data))
    except RecordError as exc:
        return SourcedRecord(source, index, None, exc.located(source, line))


def _lines(stream: BinaryIO, source: str, first: bytes = b"") -> Iterator[SourcedRecord]:
    """JSON Lines, one bounded line at a time."""
    number = 0
    pending = first
    while True:
        line = pending + stream.readline(MAX_INPUT_BYTES + 1 - len(pending))
        pending = b""
        if not line:
            return
        number += 1
        if len(line) > MAX_INPUT_BYTES and not line.endswith(b"\n"):
            error = RecordError(f"line is over the limit of {MAX_INPUT_BYTES} bytes")
            yield SourcedRecord(source, number, None, error.located(source, number))
            while line and not line.endswith(b"\n"):  # skip the rest of the line
                line = stream.readline(1 << 20)
            continue
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if line.strip():
            yield _parse(line, source, number, number)


def _detect(stream: BinaryIO, source: str) -> Iterator[SourcedRecord]:
    """One JSON document if the whole input is one, else JSON Lines (stdin, other names)."""
    data = _read_bounded(stream, source)
    if not data.strip():
        return
    try:
        document = loads_strict(data)
    except RecordError:
        yield from _lines(io.BytesIO(data), source)
        return
    try:
        yield SourcedRecord(source, 1, Record.from_dict(document))
    except RecordError as exc:
        yield SourcedRecord(source, 1, None, exc.located(source, None))


def read_records(path: str, stdin: BinaryIO | None = None) -> Iterator[SourcedRecord]:
    """Every record of one input (a path or ``-``), in order.

    Raises :class:`RecordError` only when the input as a whole cannot be read
    (missing file, a directory, over-size ``.json``); per-record problems are
    yielded as items with an ``error``.
    """
    if path == STDIN:
        yield from _detect(stdin if stdin is not None else sys.stdin.buffer, STDIN)
        return
    try:
        if os.path.isdir(path):
            raise RecordError("is a directory, not a record file", source=path)
        with open(path, "rb") as stream:
            if path.endswith(".jsonl"):
                yield from _lines(stream, path)
            elif not path.endswith(".json"):  # unknown extension: detect, as for stdin
                yield from _detect(stream, path)
            else:
                size = os.fstat(stream.fileno()).st_size
                if size > MAX_INPUT_BYTES:
                    raise RecordError(
                        f"file is {size:,} bytes, over the limit of {MAX_INPUT_BYTES:,}",
                        source=path,
                    )
                yield _parse(_read_bounded(stream, path), path, 1)
    except FileNotFoundError:
        raise RecordError("no such file", source=path) from None
    except PermissionError:
        raise RecordError("permission denied", source=path) from None
    except IsADirectoryError:
        raise RecordError("is a directory, not a record file", source=path) from None
    except OSError as exc:
        raise RecordError(f"cannot be read: {exc.strerror}", source=path) from None
