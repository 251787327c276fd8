"""Reading records from files, directories and standard input, in bounded memory.

A ``.json`` file holds one record, a ``.jsonl`` file one per line (blank
lines skipped, ``index`` = 1-based line number), ``-`` (and a file with any
other name) is detected: JSON Lines if its first non-blank line is a JSON
value by itself, else one (pretty-printed) document.  A directory stands for
the ``.json`` and ``.jsonl`` files under it, in sorted order.

Memory stays bounded whatever the input: JSON Lines are streamed one line at
a time, and no line or document is read past the 64 MiB limit.  Reading
never raises: every problem is an item with a :class:`RecordError`, placed
by file and line, so one bad line or file never stops a batch.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import attrs

from twenty48_replay.errors import RecordError
from twenty48_replay.record import MAX_INPUT_BYTES, Record, loads_strict

STDIN = "-"
RECORD_SUFFIXES = (".json", ".jsonl")
_BOM = b"\xef\xbb\xbf"


@attrs.frozen(slots=True)
class SourcedRecord:
    """A record, or why it could not be read, with where it came from.

    ``index`` is the record's number in its input (the line, for JSON
    Lines); it is None when the input as a whole could not be read.
    """

    source: str
    index: int | None
    record: Record | None
    error: RecordError | None = None


@attrs.frozen(slots=True)
class RawRecord:
    """The bytes of one record before parsing (so workers can parse in parallel)."""

    source: str
    index: int | None
    data: bytes | None
    #: Line number to name in messages (JSON Lines only).
    line: int | None = None
    error: RecordError | None = None

    def parse(self) -> SourcedRecord:
        """Parse and validate; a failure becomes an item with an error."""
        if self.data is None:
            return SourcedRecord(self.source, self.index, None, self.error)
        try:
            return SourcedRecord(self.source, self.index, Record.from_json(self.data))
        except RecordError as exc:
            return SourcedRecord(self.source, self.index, None, exc.located(self.source, self.line))


def location(source: str, index: int | None) -> str:
    """Where a record came from, as messages name it: ``games.jsonl:12``.

    A JSON Lines file always gets its line number, even for line 1, and any
    input holding several records does; a lone ``.json`` record is just the
    file name.

    >>> location("games.jsonl", 1), location("game.json", 1), location("-", 3)
    ('games.jsonl:1', 'game.json', '-:3')
    >>> location("missing.jsonl", None)
    'missing.jsonl'
    """
    if index is not None and (source.endswith(".jsonl") or index > 1):
        return f"{source}:{index}"
    return source


def _failure(source: str, reason: str) -> RawRecord:
    return RawRecord(source, None, None, None, RecordError(reason, source=source))


def _lines(
    stream: BinaryIO, source: str, first: bytes = b"", number: int = 0
) -> Iterator[RawRecord]:
    """JSON Lines, one bounded line at a time (``first`` is an already-read line)."""
    pending: bytes | None = first or None
    while True:
        if pending is not None:
            line, pending = pending, None
        else:
            line = stream.readline(MAX_INPUT_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_INPUT_BYTES and not line.endswith(b"\n"):
            error = RecordError(f"line is over the limit of {MAX_INPUT_BYTES} bytes")
            yield RawRecord(source, number, None, number, error.located(source, number))
            while line and not line.endswith(b"\n"):  # skip the rest of the line
                line = stream.readline(1 << 20)
            continue
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if line.strip():
            yield RawRecord(source, number, line, number)


def _document(stream: BinaryIO, source: str, head: bytes) -> Iterator[RawRecord]:
    data = head + stream.read(MAX_INPUT_BYTES + 1 - len(head))
    if len(data) > MAX_INPUT_BYTES:
        yield _failure(source, f"input is over the limit of {MAX_INPUT_BYTES:,} bytes")
        return
    if data.strip():
        yield RawRecord(source, 1, data)


def _detect(stream: BinaryIO, source: str) -> Iterator[RawRecord]:
    """JSON Lines if the first non-blank line is JSON by itself, else one document."""
    head = b""
    blank_lines = 0
    while True:
        line = stream.readline(MAX_INPUT_BYTES + 1)
        if not line:
            return
        if not head and not blank_lines and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if line.strip():
            break
        head += line
        blank_lines += 1
    try:
        loads_strict(line)
    except RecordError:
        yield from _document(stream, source, head + line)
        return
    yield from _lines(stream, source, line, blank_lines)


def read_raw(path: str, stdin: BinaryIO | None = None) -> Iterator[RawRecord]:
    """Every record of one input (a file path or ``-``), unparsed, in order."""
    if path == STDIN:
        yield from _detect(stdin if stdin is not None else sys.stdin.buffer, STDIN)
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, after streaming
    except FileNotFoundError:
        yield _failure(path, "no such file")
        return
    except IsADirectoryError:
        yield _failure(path, "is a directory with no .json or .jsonl files")
        return
    except PermissionError:
        yield _failure(path, "permission denied")
        return
    except OSError as exc:
        yield _failure(path, f"cannot be read: {exc.strerror}")
        return
    with stream:
        try:
            if path.endswith(".jsonl"):
                yield from _lines(stream, path)
            elif path.endswith(".json"):
                size = os.fstat(stream.fileno()).st_size
                if size > MAX_INPUT_BYTES:
                    yield _failure(
                        path, f"file is {size:,} bytes, over the limit of {MAX_INPUT_BYTES:,}"
                    )
                    return
                yield from _document(stream, path, b"")
            else:
                yield from _detect(stream, path)
        except OSError as exc:
            yield _failure(path, f"cannot be read: {exc.strerror}")


def read_records(path: str, stdin: BinaryIO | None = None) -> Iterator[SourcedRecord]:
    """Every record of one input, parsed (see :func:`read_raw`)."""
    for raw in read_raw(path, stdin):
        yield raw.parse()


def expand_paths(paths: Iterable[str]) -> Iterator[str]:
    """Inputs with directories replaced by the record files under them (sorted)."""
    for path in paths:
        if path != STDIN and os.path.isdir(path):
            found = sorted(
                str(p) for p in Path(path).rglob("*") if p.suffix in RECORD_SUFFIXES and p.is_file()
            )
            if not found:
                yield path  # reported as "is a directory" with nothing to verify
            yield from found
        else:
            yield path
