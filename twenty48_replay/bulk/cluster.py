"""Verifying records on a Dask cluster: ``twenty48 verify --scheduler``.

The local pool (:mod:`twenty48_replay.bulk.batch`) reads every byte in the main
process; past one machine that process is the bottleneck, and the data may
not even be on it.  Here the *workers* read: the client asks a worker to
list and size the inputs, cuts each JSON Lines input into byte ranges of a
few MB (:class:`~twenty48_replay.bulk.sources.RangeLines` gives each range the
lines that start in it, so boundaries never split or repeat a line), and
submits one task per range.  Workers open the shared path or fsspec URL
themselves and send back the same result dicts as the local pool.  The
client keeps a bounded window of tasks in flight and yields results in
input order, so its memory stays flat however large the archive.

Line numbers: a range cannot know how many lines come before it without
reading them, so each range numbers its records from 1 and reports how many
lines it started; the client, which takes the ranges in order, adds the sum
of the earlier ranges' counts and rebuilds the located error messages.  The
output is byte for byte the local pool's.

Faults are Dask's: a task whose worker dies is run again on another worker,
and a task's result is taken once, so every record is reported once.  What
goes wrong with the cluster itself (no Dask installed, no scheduler, a task
that keeps killing its workers) is a :class:`ClusterError`, exit code 2.

Dask is imported only when a client connects (worker-side code needs only
fsspec, and only for URLs): plain ``twenty48 verify`` never loads it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, ClassVar, Final

import attrs

from twenty48_replay.bulk.batch import Result, verify_raw
from twenty48_replay.bulk.sources import (
    STDIN,
    RangeLines,
    RawRecord,
    expand_paths,
    is_json_lines,
    read_opened,
    unreadable,
)
from twenty48_replay.core import native
from twenty48_replay.core.errors import EXIT_UNUSABLE, MessageError, RecordError, os_problem
from twenty48_replay.core.i18n import N_
from twenty48_replay.core.reasons import Reason

if TYPE_CHECKING:
    from twenty48_replay.core.fair import SignatureChecker

#: Bytes of JSON Lines per task (about 1.5 million moves, 4 s of one core):
#: Dask's cost per task (milliseconds) is noise next to it, while a lost
#: worker costs little, results start flowing at once, and the last tasks
#: leave little idle time at the end of a run.
PARTITION_BYTES: Final = 2 * 1024 * 1024
#: Tasks in flight per worker thread: one running, the next ones queued on
#: the worker so it never waits for the scheduler, few enough that the
#: client holds only a handful of results.
WINDOW_PER_THREAD: Final = 3
#: Seconds to reach the scheduler before giving up.
CONNECT_TIMEOUT: Final = 30.0
CLUSTER_EXTRA: Final = "pip install 'twenty48-replay[cluster]'"
#: Where the Dask client logs (connection retries, lost workers): the CLI's
#: output must be the local pool's, and a real failure is raised instead.
_DASK_LOGGERS: Final = ("distributed", "dask")


class ClusterError(MessageError):
    """The cluster cannot be used: Dask missing, scheduler unreachable, a task failing (exit 2)."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE


def is_url(path: str) -> bool:
    """A URL for fsspec (``file://``, ``s3://``, ``https://`` ...), not a plain path."""
    return "://" in path


# --- worker side ------------------------------------------------------------


def _open_input(path: str) -> tuple[BinaryIO, Callable[[], int | None]]:
    """A seekable binary stream of a path or URL, and a way to get its size (None: unknown)."""
    if not is_url(path):
        stream = open(path, "rb")  # noqa: SIM115 - the caller closes it
        return stream, lambda: os.fstat(stream.fileno()).st_size
    import fsspec

    opened: Any = fsspec.open(path, "rb").open()
    # fsspec's files read lines one byte at a time and take no size limit;
    # Python's buffered reader over them reads big blocks and bounds lines.
    buffered = io.BufferedReader(opened, 1 << 20)
    return buffered, lambda: None if opened.size is None else int(opened.size)


def _open_reason(exc: BaseException) -> Reason:
    """The local reader's words (:func:`read_raw`) for an input that cannot be opened."""
    if isinstance(exc, FileNotFoundError):
        return Reason("input.no_such_file")
    if isinstance(exc, IsADirectoryError):
        return Reason("input.empty_directory")
    if isinstance(exc, PermissionError):
        return Reason("input.permission_denied")
    return unreadable(exc)


def _failure(path: str, reason: Reason) -> Result:
    """The result of an input that cannot be read (index None, as locally)."""
    error = RecordError(reason, source=path, index=None)
    return {
        "file": path,
        "index": None,
        "valid": None,
        "error": error.message,
        "error_code": error.to_json(),
    }


@attrs.frozen(slots=True)
class Input:
    """One input as the workers read it.

    ``name`` is what the output calls it (the path as the user gave it, as
    the local pool does); ``where`` is what a worker opens: the URL, or the
    path made absolute on the client, so that a relative path means the same
    file on workers started elsewhere.  ``size`` is the byte count of a
    JSON Lines input, split into ranges; None for one read whole.
    """

    name: str
    where: str
    size: int | None


def survey(given: Sequence[tuple[str, str]]) -> list[Input]:
    """The inputs as the workers see them, from ``(name, where)`` pairs (see :class:`Input`).

    Runs on a worker, which may see a shared file system the client does
    not.  Directories expand as locally (:func:`expand_paths`), the files
    under them named as the local pool names them; a URL is one input.
    Anything that cannot be opened is read whole, which reports why in the
    local reader's words.
    """
    found: list[Input] = []
    for name, where in given:
        if is_url(where):
            found.append(_sized(name, where))
            continue
        for path in expand_paths([where]):
            inner = name if path == where else str(Path(name) / Path(path).relative_to(where))
            found.append(_sized(inner, path))
    return found


def _sized(name: str, where: str) -> Input:
    try:
        stream, size = _open_input(where)
    except Exception:  # reported by verify_whole, as the local reader would
        return Input(name, where, None)
    try:
        with stream:
            # JSON Lines of unknown size (a server that does not say) are read whole, streamed.
            return Input(name, where, size() if is_json_lines(stream, name) else None)
    except Exception:
        return Input(name, where, None)


def _read_whole(name: str, where: str) -> Iterator[RawRecord]:
    try:
        stream, size = _open_input(where)
    except Exception as exc:  # any failure is this input's, never the batch's
        yield RawRecord(name, None, None, RecordError(_open_reason(exc), source=name))
        return
    with stream:
        # An unknown size passes the up-front check; the read stops at the limit anyway.
        yield from read_opened(stream, name, lambda: size() or 0)


def verify_whole(
    inputs: Sequence[tuple[str, str]], trusted: SignatureChecker | None = None
) -> list[Result]:
    """Every record of inputs read whole (``(name, where)``: ``.json`` records), as locally."""
    return [verify_raw(raw, trusted) for name, where in inputs for raw in _read_whole(name, where)]


def verify_range(
    name: str, where: str, start: int, end: int, trusted: SignatureChecker | None = None
) -> tuple[int, list[Result]]:
    """The results of the lines starting in bytes ``[start, end)``, and how many lines started.

    Indexes count from 1 at the range's first line; an unreadable line's
    result carries ``_error`` (reason, field) so the client can locate it
    again once it knows the line number (:func:`rebase`).  A read error
    ends the range with a result of index None, as it ends a local read.
    """
    try:
        stream, _size = _open_input(where)
    except Exception as exc:
        return 0, [_failure(name, _open_reason(exc))]
    results: list[Result] = []
    with stream:
        lines = RangeLines(stream, name, start, end)
        try:
            for raw in lines:
                results.append(_relative(raw, trusted))
        except OSError as exc:
            results.append(_failure(name, unreadable(exc)))
    return lines.lines, results


def _relative(raw: RawRecord, trusted: SignatureChecker | None) -> Result:
    result = verify_raw(raw, trusted)
    if result["valid"] is None:
        error = raw.parse().error  # parsed again only for the (rare) unreadable lines
        assert error is not None
        result["_error"] = (error.code, error.field)
    return result


def rebase(result: Result, lines_before: int) -> Result:
    """A range's result placed in its file: the index, and the error message naming it."""
    located = result.pop("_error", None)
    if lines_before and result["index"] is not None:
        result["index"] += lines_before
        if located is not None:
            reason, field = located
            result["error"] = RecordError(
                reason, field=field, source=result["file"], index=result["index"]
            ).message
    return result


# --- client side ------------------------------------------------------------


def _quiet_dask() -> None:
    """No Dask log lines on the client: Dask's config gives some loggers levels of their own."""
    names = [*_DASK_LOGGERS, *logging.root.manager.loggerDict]
    for name in names:
        if name.split(".")[0] in _DASK_LOGGERS:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _probe(address: str, timeout: float) -> None:
    """Fail at once on a TCP scheduler nobody listens at (Dask retries until its timeout)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise ClusterError(
            N_("not a scheduler address: {address} ({problem})"), address=address, problem=str(exc)
        ) from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ClusterError(
            N_("cannot reach the scheduler at {address}: {why}"),
            address=address,
            why=os_problem(exc),
        ) from None


class ClusterSession:
    """A connection to a Dask scheduler that verifies inputs on its workers."""

    def __init__(self, client: Any, address: str) -> None:
        # Any: distributed is only partly typed (its Client and Future methods are not).
        self.client = client
        self.address = address

    def close(self) -> None:
        # Closing a client whose scheduler is gone must not hide why the run failed.
        with contextlib.suppress(Exception):
            self.client.close()

    def __enter__(self) -> ClusterSession:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _fail(self, doing: MessageError, exc: BaseException) -> ClusterError:
        why = str(exc) or type(exc).__name__
        return ClusterError(
            N_("the cluster at {address} failed {doing}: {why}"),
            address=self.address,
            doing=doing,
            why=why,
        )

    def survey(self, files: Sequence[str]) -> list[Input]:
        """The inputs as a worker sees them (see :func:`survey`).

        Relative paths are made absolute here, against the client's working
        directory, since workers run elsewhere; the output keeps the names.
        """
        if STDIN in files:
            raise ClusterError(
                N_(
                    "standard input (-) cannot be read by the workers; "
                    "verify it without --scheduler"
                )
            )
        given = [(name, name if is_url(name) else os.path.abspath(name)) for name in files]
        try:
            found: list[Input] = self.client.submit(survey, given, pure=False).result()
        except Exception as exc:
            raise self._fail(MessageError(N_("listing the inputs")), exc) from None
        return found

    def engines(self) -> str:
        """The engine the workers run (:func:`native.describe` of each; the distinct ones)."""
        try:
            found: dict[str, str] = self.client.run(native.describe)
        except Exception as exc:
            raise self._fail(MessageError(N_("reporting its engine")), exc) from None
        return ", ".join(sorted(set(found.values()))) or native.describe()

    def threads(self) -> int:
        """Worker threads on the cluster now (at least 1)."""
        try:
            return max(1, int(sum(self.client.nthreads().values())))
        except Exception as exc:
            raise self._fail(MessageError(N_("listing its workers")), exc) from None

    def verify(
        self,
        inputs: Iterable[Input],
        trusted: SignatureChecker | None = None,
        partition_bytes: int = PARTITION_BYTES,
        advance: Callable[[int], None] | None = None,
    ) -> Iterator[Result]:
        """Results of every record of ``inputs`` (from :meth:`survey`), in input order.

        ``advance`` is told the bytes of each range as its results arrive
        (a progress bar).  Tasks are submitted a window ahead of what was
        yielded and cancelled if the caller stops early.
        """
        window = WINDOW_PER_THREAD * self.threads()
        pending: deque[tuple[Any, _Task]] = deque()
        state = _Order()
        try:
            for task in _tasks(inputs, partition_bytes):
                pending.append((self._submit(task, trusted), task))
                while len(pending) >= window:
                    yield from self._finish(*pending.popleft(), state, advance)
            while pending:
                yield from self._finish(*pending.popleft(), state, advance)
        finally:
            for future, _task in pending:
                future.cancel()

    def _submit(self, task: _Task, trusted: SignatureChecker | None) -> Any:
        try:
            if task.start is None or task.end is None:
                pairs = [(item.name, item.where) for item in task.inputs]
                return self.client.submit(verify_whole, pairs, trusted, pure=False)
            item = task.inputs[0]
            return self.client.submit(
                verify_range, item.name, item.where, task.start, task.end, trusted, pure=False
            )
        except Exception as exc:
            raise self._fail(MessageError(N_("taking a task")), exc) from None

    def _finish(
        self,
        future: Any,
        task: _Task,
        state: _Order,
        advance: Callable[[int], None] | None,
    ) -> Iterator[Result]:
        start, end = task.start, task.end
        try:
            answer = future.result()
        except Exception as exc:
            raise self._fail(
                MessageError(N_("verifying {inputs}"), inputs=task.describe()), exc
            ) from None
        finally:
            future.release()
        if start is None or end is None:
            yield from answer
            return
        if advance is not None:
            advance(end - start)
        lines, results = answer
        if task.occurrence != state.occurrence:
            state.occurrence, state.lines_before, state.broken = task.occurrence, 0, False
        if state.broken:  # the input failed in an earlier range: the local reader stops there
            return
        for result in results:
            if result["index"] is None:
                state.broken = True
                result.pop("_error", None)
                yield result
                return
            yield rebase(result, state.lines_before)
        state.lines_before += lines


#: Inputs read whole (``.json`` records) per task: one task each would make
#: a folder of small records wait on the scheduler's round trips.
WHOLE_PER_TASK: Final = 50


@attrs.frozen(slots=True)
class _Task:
    """A byte range of one JSON Lines input, or (no bytes) inputs read whole."""

    inputs: tuple[Input, ...]
    #: The range's input's place in the run (the same file may be given twice).
    occurrence: int = -1
    start: int | None = None
    end: int | None = None

    def describe(self) -> MessageError | str:
        """The task's inputs in words (for a failure's message)."""
        first = self.inputs[0].name
        if self.start is not None:
            return MessageError(
                N_("bytes {start:,}-{end:,} of {input}"),
                start=self.start,
                end=self.end,
                input=first,
            )
        more = len(self.inputs) - 1
        if not more:
            return first
        if more == 1:
            return MessageError(N_("{input} and 1 more input"), input=first)
        return MessageError(N_("{input} and {more} more inputs"), input=first, more=more)


class _Order:
    """Where the in-order reading of the ranges is: which input, lines before, failed."""

    def __init__(self) -> None:
        self.occurrence = -1
        self.lines_before = 0
        self.broken = False


def _tasks(inputs: Iterable[Input], partition_bytes: int) -> Iterator[_Task]:
    whole: list[Input] = []
    for occurrence, item in enumerate(inputs):
        if item.size is None:
            whole.append(item)
            if len(whole) >= WHOLE_PER_TASK:
                yield _Task(tuple(whole))
                whole = []
            continue
        if whole:
            yield _Task(tuple(whole))
            whole = []
        for start in range(0, item.size, partition_bytes):
            yield _Task((item,), occurrence, start, min(start + partition_bytes, item.size))
    if whole:
        yield _Task(tuple(whole))


#: Dask's settings a client needs for ``tls://`` (environment variables or Dask's config).
TLS_SETTINGS: Final = (
    "DASK_DISTRIBUTED__COMM__TLS__CA_FILE",
    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT",
    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY",
)


def _check_tls_settings(address: str, security: Any) -> None:
    """A ``tls://`` scheduler needs a CA and a client certificate: say which are missing.

    Dask itself fails later with "TLS expects a `ssl_context` argument ...".
    """
    import dask.config

    if not address.lower().startswith("tls://") or dask.config.get(
        "distributed.client.security-loader", None
    ):
        return
    given = (security.tls_ca_file, security.tls_client_cert, security.tls_client_key)
    missing = [name for name, value in zip(TLS_SETTINGS, given, strict=True) if not value]
    if missing:
        raise ClusterError(
            N_(
                "the scheduler at {address} uses TLS, and Dask's TLS settings for a client are "
                "missing: {missing} (or distributed.comm.tls in Dask's configuration)"
            ),
            address=address,
            missing=", ".join(missing),
        )


def _dask_problem(exc: BaseException) -> MessageError | str:
    """Why Dask could not connect: the system's words translated where known, else Dask's."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return os_problem(exc)
    return str(exc) or type(exc).__name__


def _client_class(distributed: Any) -> Any:
    """Dask's Client, made to let go at once when it cannot connect.

    A Client whose constructor fails (a TLS handshake the scheduler refuses,
    a scheduler that is no Dask scheduler) is still closed by its finaliser
    at exit, which waited 60 s on a dead connection and then printed a
    traceback: this one closes itself on the spot, within 2 s.
    """

    class OneShotClient(distributed.Client):  # type: ignore[misc]
        def start(self, **kwargs: Any) -> Any:
            try:
                return super().start(**kwargs)
            except BaseException:
                with contextlib.suppress(Exception):
                    self.close(timeout=2)
                self.status = "closed"
                raise

    return OneShotClient


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> ClusterSession:
    """A session with the Dask scheduler at ``address`` (``tls://host:8786``, ``tcp://...``).

    The scheduler and its workers are trusted fully: what they send back is
    unpickled in this process, so whoever can join the cluster can run code
    here.  Use ``tls://`` with Dask's TLS settings (a CA and certificates
    for every scheduler, worker and client; docs/verifying.md), which Dask
    reads from its configuration or environment.

    Raises :class:`ClusterError` when Dask is not installed, the TLS settings
    are missing, or the scheduler cannot be reached, with one line saying which.
    """
    try:
        import distributed

        client_class: Any = _client_class(distributed)  # distributed is only partly typed
        security_class: Any = distributed.Security  # Dask's TLS settings (config, environment)
    except ImportError:
        raise ClusterError(
            N_("verifying on a cluster needs Dask: {install}"), install=CLUSTER_EXTRA
        ) from None
    _quiet_dask()
    _check_tls_settings(address, security_class())
    _probe(address, min(timeout, 10.0))
    try:
        client = client_class(address, timeout=timeout, set_as_default=False)
    except Exception as exc:  # Dask's own errors: OSError, TimeoutError, ValueError ...
        raise ClusterError(
            N_("cannot reach the scheduler at {address}: {why}"),
            address=address,
            why=_dask_problem(exc),
        ) from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except Exception:
        with contextlib.suppress(Exception):
            client.close()
        raise ClusterError(
            N_("the scheduler at {address} has no workers (waited {seconds} s)"),
            address=address,
            seconds=f"{timeout:g}",
        ) from None
    return ClusterSession(client, address)
