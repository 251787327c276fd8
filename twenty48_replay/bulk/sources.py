"""Reading records from files, directories and standard input, in bounded memory.

The rules are SPEC 8.1's: a ``.json`` file holds one record (index 1, even
when it is empty: that is an unreadable record, never "no result"); a
``.jsonl`` file one per line (``index`` = 1-based line number, lines of JSON
whitespace only skipped, the LF not counted in the 16 MiB line limit).
``-`` (and a file with any other name) is one record when it is exactly one
JSON value (syntax only, within the value and nesting limits) or only
whitespace, else JSON Lines, so one broken line never hides the others.  A
byte order mark is ignored once, at the very start of a file or stream, and
is an error anywhere else.  A directory stands for the ``.json`` and
``.jsonl`` files under it, in sorted order (a command-line rule, not the
format's).

Memory stays bounded whatever the input: JSON Lines are streamed one line at
a time, and no line or document is read past the 16 MiB limit.  Reading
never raises: every problem is an item with a :class:`RecordError`, placed
by file and index, so one bad line or file never stops a batch.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import attrs

from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.record import (
    MAX_INPUT_BYTES,
    MAX_NESTING,
    MAX_VALUES,
    Record,
    count_values,
)

STDIN = "-"
RECORD_SUFFIXES = (".json", ".jsonl")
_BOM = b"\xef\xbb\xbf"
#: JSON's whitespace (RFC 8259): a line of only these is blank.  Not VT or FF.
_WHITESPACE = b" \t\r\n"


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
    #: Whether the record is a line of JSON Lines (then named by its line, even line 1).
    lines: bool = False


@attrs.frozen(slots=True)
class RawRecord:
    """The bytes of one record before parsing (so workers can parse in parallel)."""

    source: str
    index: int | None
    data: bytes | None
    error: RecordError | None = None
    #: Whether ``data`` starts the file or stream, where one BOM is allowed.
    first: bool = False
    #: Whether ``data`` is a line of JSON Lines (see :func:`location`).
    lines: bool = False

    def parse(self) -> SourcedRecord:
        """Parse and validate; a failure becomes an item with an error naming file and index."""
        if self.data is None:
            return SourcedRecord(self.source, self.index, None, self.error, self.lines)
        try:
            record = Record.from_json(self.data, bom=self.first)
        except RecordError as exc:
            return SourcedRecord(
                self.source, self.index, None, exc.located(self.source, self.index), self.lines
            )
        except Exception as exc:  # the reader's boundary: never raise past it (MemoryError too)
            error = RecordError(
                Reason("input.unreadable", {"error": f"{type(exc).__name__}: {exc}"})
            )
            return SourcedRecord(
                self.source, self.index, None, error.located(self.source, self.index), self.lines
            )
        return SourcedRecord(self.source, self.index, record, lines=self.lines)


def location(source: str, index: int | None, *, lines: bool = False) -> str:
    """Where a record came from, as messages name it: ``games.jsonl:12``.

    A JSON Lines file always gets its line number, even for line 1, and so
    does any input read as JSON Lines (``lines``: standard input holding
    several records); a lone ``.json`` record is just the file name.

    >>> location("games.jsonl", 1), location("game.json", 1), location("-", 3)
    ('games.jsonl:1', 'game.json', '-:3')
    >>> location("-", 1), location("-", 1, lines=True), location("missing.jsonl", None)
    ('-', '-:1', 'missing.jsonl')
    """
    if index is not None and (lines or source.endswith(".jsonl") or index > 1):
        return f"{source}:{index}"
    return source


def unreadable(exc: BaseException) -> Reason:
    """An input that cannot be read, in the system's words (its ``strerror`` when it has one)."""
    return Reason("input.unreadable", {"error": str(getattr(exc, "strerror", None) or exc)})


def _failure(source: str, reason: Reason, index: int | None = None) -> RawRecord:
    return RawRecord(source, index, None, RecordError(reason, source=source, index=index))


def _blank(data: bytes, first: bool) -> bool:
    """Only JSON whitespace (after the stream's BOM, on its first line)."""
    if first and data.startswith(_BOM):
        data = data[len(_BOM) :]
    return not data.strip(_WHITESPACE)


class _LineSource(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


class _Rejoined:
    """Lines from bytes already read, then from the rest of the stream."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self.head = io.BytesIO(head)
        self.rest = rest

    def readline(self, size: int = -1, /) -> bytes:
        line = self.head.readline(size)
        if line.endswith(b"\n") or (size >= 0 and len(line) >= size):
            return line
        return line + self.rest.readline(size - len(line) if size >= 0 else -1)


def _lines(stream: _LineSource, source: str) -> Iterator[RawRecord]:
    """JSON Lines, one bounded line at a time; the LF is not part of the line."""
    number = 0
    while True:
        line = stream.readline(MAX_INPUT_BYTES + 1)
        if not line:
            return
        number += 1
        if line.endswith(b"\n"):
            line = line[:-1]
        elif len(line) > MAX_INPUT_BYTES:
            error = RecordError(Reason("input.line_too_large", {"limit": MAX_INPUT_BYTES}))
            yield RawRecord(source, number, None, error.located(source, number), lines=True)
            while line and not line.endswith(b"\n"):  # skip the rest of the line
                line = stream.readline(1 << 20)
            continue
        if not _blank(line, number == 1):
            yield RawRecord(source, number, line, first=number == 1, lines=True)


def _document(stream: BinaryIO, source: str) -> Iterator[RawRecord]:
    """A ``.json`` file: one record, index 1, whatever it holds (empty included)."""
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        yield _failure(source, Reason("input.file_too_large", {"limit": MAX_INPUT_BYTES}), 1)
        return
    yield RawRecord(source, 1, data, first=True)


def _objects_as_lists(pairs: list[tuple[str, Any]]) -> list[Any]:
    return [value for _key, value in pairs]


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _ignore(_text: str) -> None:
    return None


def is_one_json_value(data: bytes) -> bool:
    """SPEC 8.1's test for standard input: exactly one JSON value, syntax only.

    After one optional BOM the bytes are UTF-8 and one JSON value with
    whitespace around it, of at most :data:`MAX_VALUES` values nested at
    most :data:`MAX_NESTING` levels.  Duplicate keys, number ranges and
    record rules do not matter here; the record's own reading reports them.
    Memory is bounded by the value count, checked first.
    """
    if count_values(data) > MAX_VALUES:
        return False
    try:
        text = data.decode("utf-8-sig")
        value = json.loads(
            text,
            object_pairs_hook=_objects_as_lists,
            parse_int=_ignore,
            parse_float=_ignore,
            parse_constant=_not_json,
        )
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError too
        return False
    stack: list[tuple[list[Any], int]] = [(value, 1)] if isinstance(value, list) else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            return False
        stack.extend((child, depth + 1) for child in item if isinstance(child, list))
    return True


def _detect(stream: BinaryIO, source: str) -> Iterator[RawRecord]:
    """One record if the input is one JSON value or only whitespace, else JSON Lines."""
    head = stream.read(MAX_INPUT_BYTES + 1)
    if len(head) <= MAX_INPUT_BYTES and (_blank(head, True) or is_one_json_value(head)):
        yield RawRecord(source, 1, head, first=True)
        return
    yield from _lines(_Rejoined(head, stream), source)


def read_raw(path: str, stdin: BinaryIO | None = None) -> Iterator[RawRecord]:
    """Every record of one input (a file path or ``-``), unparsed, in order."""
    if path == STDIN:
        stream = stdin if stdin is not None else getattr(sys.stdin, "buffer", None)
        if stream is None:  # started with standard input closed
            yield _failure(STDIN, Reason("input.stdin_closed"))
            return
        try:
            yield from _detect(stream, STDIN)
        except (OSError, ValueError) as exc:  # ValueError: standard input is closed
            yield _failure(STDIN, unreadable(exc))
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, after streaming
    except FileNotFoundError:
        yield _failure(path, Reason("input.no_such_file"))
        return
    except IsADirectoryError:
        yield _failure(path, Reason("input.empty_directory"))
        return
    except PermissionError:
        yield _failure(path, Reason("input.permission_denied"))
        return
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        yield _failure(path, unreadable(exc))
        return
    with stream:
        yield from read_opened(stream, path, lambda: os.fstat(stream.fileno()).st_size)


def read_opened(stream: BinaryIO, path: str, size: Callable[[], int]) -> Iterator[RawRecord]:
    """Every record of an input already open (a file, or a URL's stream on a worker).

    ``path`` decides the format as in :func:`read_raw`; ``size`` gives the
    whole input's size, asked only for a ``.json`` file (over the limit, it is
    refused without reading).  Read errors become a failure item.
    """
    try:
        if path.endswith(".jsonl"):
            yield from _lines(stream, path)
        elif path.endswith(".json"):
            total = size()
            if total > MAX_INPUT_BYTES:
                yield _failure(
                    path, Reason("input.file_size", {"size": total, "limit": MAX_INPUT_BYTES}), 1
                )
                return
            yield from _document(stream, path)
        else:
            yield from _detect(stream, path)
    except OSError as exc:
        yield _failure(path, unreadable(exc))


def is_json_lines(stream: BinaryIO, path: str) -> bool:
    """Whether :func:`read_raw` reads this input as JSON Lines (the stream is read from its start).

    ``.jsonl`` always is, ``.json`` never; any other name is when its first
    16 MiB are neither one JSON value nor only whitespace (SPEC 8.1).
    """
    if path.endswith(".jsonl"):
        return True
    if path.endswith(".json"):
        return False
    head = stream.read(MAX_INPUT_BYTES + 1)
    return not (len(head) <= MAX_INPUT_BYTES and (_blank(head, True) or is_one_json_value(head)))


class RangeLines:
    """The JSON Lines records that start in bytes ``[start, end)`` of a seekable stream.

    A distributed reader splits a file into byte ranges without reading it:
    each range owns the lines that start inside it, so the ranges together
    give every line exactly once, whatever the boundaries cut.  The records
    are exactly :func:`read_raw`'s, except that ``index`` counts from 1 at
    the range's first line: the line numbers before the range are unknown
    here.  After iterating, :attr:`lines` is the number of lines the range
    started (blank ones included), so whoever reads the ranges in order adds
    the sum of the earlier ranges' counts to get the file's line numbers.
    Memory is bounded as in :func:`read_raw` (no line read past 16 MiB).
    """

    def __init__(self, stream: BinaryIO, source: str, start: int, end: int) -> None:
        self.stream = stream
        self.source = source
        self.start = start
        self.end = end
        #: Lines started in the range, known once iteration is over.
        self.lines = 0

    def __iter__(self) -> Iterator[RawRecord]:
        stream, source = self.stream, self.source
        pos = self.start
        if pos > 0:  # the line running into the range belongs to an earlier one
            stream.seek(pos - 1)
            pos -= 1
            while True:
                part = stream.readline(1 << 20)
                if not part:
                    return
                pos += len(part)
                if part.endswith(b"\n"):
                    break
        else:
            stream.seek(0)
        number = 0
        while pos < self.end:
            line = stream.readline(MAX_INPUT_BYTES + 1)
            if not line:
                return
            pos += len(line)
            number += 1
            self.lines = number
            first = self.start == 0 and number == 1
            if line.endswith(b"\n"):
                line = line[:-1]
            elif len(line) > MAX_INPUT_BYTES:
                error = RecordError(Reason("input.line_too_large", {"limit": MAX_INPUT_BYTES}))
                yield RawRecord(source, number, None, error.located(source, number))
                while line and not line.endswith(b"\n"):  # skip the rest of the line
                    line = stream.readline(1 << 20)
                    pos += len(line)
                continue
            if not _blank(line, first):
                yield RawRecord(source, number, line, first=first)


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
