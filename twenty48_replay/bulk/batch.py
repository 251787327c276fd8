"""Verifying many records: streamed, in parallel worker processes, in input order.

The main process only reads bytes (bounded, see :mod:`twenty48_replay.bulk.sources`)
and hands chunks of raw records to a process pool, at most a few chunks
ahead of what it has printed, so memory stays flat on inputs of any size.
Workers parse and verify and send back small JSON-ready result dicts.
Small inputs (one chunk) are verified in-process: starting workers would
cost more than the work.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from multiprocessing.pool import AsyncResult
from typing import TYPE_CHECKING, Any, Final, TypeVar

from twenty48_replay.bulk.sources import RawRecord, SourcedRecord
from twenty48_replay.core.record import MAX_INPUT_BYTES
from twenty48_replay.core.replay import VerifyResult, verify
from twenty48_replay.core.workers import default_jobs, worker_pool

if TYPE_CHECKING:
    from twenty48_replay.core.fair import SignatureChecker

CHUNK_RECORDS: Final = 200
CHUNK_BYTES: Final = 64 * 1024  # ~60,000 moves: results start flowing within ~0.15 s
WINDOW_PER_JOB: Final = 3
#: Bytes of records sent to workers and not yet answered: with 16 MiB lines and
#: many jobs, the window of chunks alone would hold hundreds of MB in the main process.
MAX_IN_FLIGHT_BYTES: Final = 4 * MAX_INPUT_BYTES

Result = dict[str, Any]
T = TypeVar("T")


def verify_raw(raw: RawRecord, trusted: SignatureChecker | None = None) -> Result:
    """The ``--json`` result object of one record (``valid`` None when unreadable).

    Besides the replay, every record gets its fair-play verdict (SPEC
    section 11.7): ``fair`` ("self-seeded", "fair", "unchecked", "not fair")
    and ``signature`` ("checked" with a ``trusted`` key, else "unchecked";
    None when self-seeded).  A fair record that fails a fair check is invalid.
    """
    item = raw.parse()
    if item.record is None:
        assert item.error is not None
        return {
            "file": item.source,
            "index": item.index,
            "valid": None,
            "error": item.error.message,
            "error_code": item.error.to_json(),
        }
    return {"file": item.source, "index": item.index, **verify(item.record, trusted).to_json()}


def verified(raw: RawRecord) -> tuple[SourcedRecord, VerifyResult | None]:
    """Parse and verify one raw record, keeping the objects (for imports)."""
    item = raw.parse()
    return item, None if item.record is None else verify(item.record)


def _verify_chunk(chunk: list[RawRecord], trusted: SignatureChecker | None = None) -> list[Result]:
    return [verify_raw(raw, trusted) for raw in chunk]


def _verified_chunk(chunk: list[RawRecord]) -> list[tuple[SourcedRecord, VerifyResult | None]]:
    return [verified(raw) for raw in chunk]


def _size(chunk: list[RawRecord]) -> int:
    return sum(len(raw.data or b"") for raw in chunk)


def _chunks(raws: Iterable[RawRecord]) -> Iterator[list[RawRecord]]:
    chunk: list[RawRecord] = []
    size = 0
    for raw in raws:
        chunk.append(raw)
        size += len(raw.data or b"")
        if len(chunk) >= CHUNK_RECORDS or size >= CHUNK_BYTES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def map_chunks(
    work: Callable[[list[RawRecord]], list[T]],
    raws: Iterable[RawRecord],
    jobs: int | None = None,
    *,
    beside_main: bool = False,
) -> Iterator[T]:
    """``work`` applied to chunks of raw records in ``jobs`` processes, results in input order.

    At most a few chunks per worker are in flight, so memory stays flat
    however long the input; one or two chunks are done in-process.  With
    ``beside_main`` even one job runs in a worker, because the main process
    has work of its own (an import writes while the worker verifies).
    """
    jobs = default_jobs() if jobs is None else max(1, jobs)
    chunks = _chunks(raws)
    first = next(chunks, None)
    if first is None:
        return
    second = next(chunks, None)
    if (jobs == 1 and not beside_main) or second is None:
        yield from work(first)
        if second is not None:
            yield from work(second)
            for chunk in chunks:
                yield from work(chunk)
        return
    with worker_pool(jobs) as pool:
        pending: deque[tuple[AsyncResult[list[T]], int]] = deque()
        window = WINDOW_PER_JOB * jobs
        in_flight = 0
        for chunk in _prepend(first, second, chunks):
            size = _size(chunk)
            pending.append((pool.apply_async(work, (chunk,)), size))
            in_flight += size
            while len(pending) > window or (len(pending) > 1 and in_flight > MAX_IN_FLIGHT_BYTES):
                done, done_size = pending.popleft()
                in_flight -= done_size
                yield from done.get()
        while pending:
            yield from pending.popleft()[0].get()


def verify_many(
    raws: Iterable[RawRecord], jobs: int | None = None, trusted: SignatureChecker | None = None
) -> Iterator[Result]:
    """``--json`` results for every raw record, in input order, using ``jobs`` processes.

    ``trusted`` (a :class:`signing.TrustedKey`, picklable) checks signatures.
    """
    work = _verify_chunk if trusted is None else partial(_verify_chunk, trusted=trusted)
    return map_chunks(work, raws, jobs)


def verify_records(
    raws: Iterable[RawRecord], jobs: int | None = None
) -> Iterator[tuple[SourcedRecord, VerifyResult | None]]:
    """Parsed records with their verification, in input order (what ``import`` needs).

    The caller writes to the database meanwhile, so by default one core is
    left to it: ``jobs`` defaults to the cores minus one, in worker processes.
    """
    if jobs is None:
        jobs = max(1, default_jobs() - 1)
    return map_chunks(_verified_chunk, raws, jobs, beside_main=True)


def _prepend(
    first: list[RawRecord], second: list[RawRecord], rest: Iterator[list[RawRecord]]
) -> Iterator[list[RawRecord]]:
    yield first
    yield second
    yield from rest
