"""Starting the server on uvicorn, one process or several sharing one database."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import stat
import tempfile
from pathlib import Path
from typing import ClassVar, Final

from twenty48_replay.core.errors import (
    EXIT_UNUSABLE,
    KeyFileError,
    MessageError,
    os_problem,
)
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.fairplay.signing import ServerKey
from twenty48_replay.server import key_rules
from twenty48_replay.server.config import ENV_VAR, ServerConfig, key_path
from twenty48_replay.server.guard import transport
from twenty48_replay.server.guard.guarded_http import PROTOCOL
from twenty48_replay.store import Store, log_chain

#: prometheus-client's multiprocess folder (twenty48_replay.server.http.metrics; not imported
#: here: the variable must be set before prometheus-client is).
METRICS_ENV_VAR: Final = "PROMETHEUS_MULTIPROC_DIR"


def prepare(config: ServerConfig, *, rotate_key: bool = False) -> tuple[str, ServerKey, list[str]]:
    """Open (create) the database and settle the key once, before any worker starts.

    Errors here are ordinary library errors (one clear line from the CLI);
    the workers then find both ready.  Returns the database's display name,
    the key, and notes for the operator (a rotation, records whose key is
    unknown).  The key file must agree with the keys the database signed
    with (:mod:`.key_rules`; ``rotate_key`` makes a new key current).  A
    refused setting leaves nothing behind: an existing key file is loaded and
    checked, and a missing one's folder checked, before the database is
    created; a new key is made only once the database opened and the key
    rules allow it.
    """
    path = key_path(config)
    key = ServerKey.load(path) if os.path.lexists(path) else None
    if key is None and config.key is not None:
        _check_key_folder(path)
    database = Store.sqlite_file(config.db)
    if rotate_key and database is not None and not database.exists():
        raise key_rules.KeyRefusedError(
            N_("--rotate-key: the database has no key yet, so there is nothing to rotate")
        )
    with Store(config.db) as store:  # creates, checks or upgrades the whole schema
        name = store.name
        # A log rewritten behind the program's back is refused before anything is added
        # to it (StoreError: one line, exit 2); serve would publish what it says.
        store.require_intact_chains()
        key, notes = key_rules.settle(
            store, path, key, rotate=rotate_key, make_key=lambda: ServerKey.load_or_create(path)
        )
        notes.append(chain_heads_note(store.chains()))
    return name, key, notes


def chain_heads_note(report: log_chain.ChainReport) -> str:
    """The chains' heads, for the operator to write down and compare (docs/operating.md)."""
    return _(
        "log heads (write them down; 'twenty48 check --head' says whether the logs still "
        "pass through them): {heads}"
    ).format(heads=" ".join(head.text() for head in report.heads))


def _check_key_folder(path: Path) -> None:
    """Refuse now a ``--key`` that could not be created (the database is not made yet)."""
    folder = path.parent
    if not folder.is_dir():
        raise KeyFileError(
            N_("cannot create key file {path}: {folder} is not a directory"),
            path=str(path),
            folder=str(folder),
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise KeyFileError(
            N_("cannot create key file {path}: {folder} is not writable"),
            path=str(path),
            folder=str(folder),
        )


class ListenError(MessageError):
    """The address cannot be listened on (in use, not ours, malformed): exit 2."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE


def check_listen(host: str, port: int) -> None:
    """Fail with one clear line now if uvicorn could not bind ``host:port``."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ListenError(
            N_("cannot listen on {host}:{port}: {why}"), host=host, port=str(port), why=str(exc)
        ) from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise ListenError(
                N_("cannot listen on {host}:{port}: {why}"),
                host=host,
                port=str(port),
                why=os_problem(exc),
            ) from None


def fit_connections(limits: transport.TransportLimits) -> transport.TransportLimits:
    """Raise the open-files limit to its hard limit; ``limits`` lowered to fit within it.

    Call before :func:`serve` (the caller can then say when ``--max-connections``
    was lowered); uvicorn's workers inherit the raised limit.
    """
    return transport.fit_to_open_files(limits, transport.raise_open_files_limit())


def serve(
    config: ServerConfig,
    *,
    host: str,
    port: int,
    workers: int = 1,
    access_log: bool = True,
    log_level: str = "info",
    limits: transport.TransportLimits | None = None,
) -> None:
    """Run uvicorn until interrupted (workers get ``config`` through the environment).

    Every connection runs :mod:`.guarded_http`'s protocol within ``limits``
    (per process).  ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are read
    only from ``limits.forwarded_allow_ips``: uvicorn trusts them from
    127.0.0.1 by default, which would let any local process, or anyone when
    the server listens behind nothing, choose the address it is logged and
    counted under.
    """
    import uvicorn

    limits = limits or transport.TransportLimits()
    os.environ[ENV_VAR] = config.to_env()
    os.environ[transport.ENV_VAR] = limits.to_env()
    forwarded = list(limits.forwarded_allow_ips)
    # Every process's metrics in files of one private folder (0700), summed by whichever
    # process answers /metrics; set before any process imports prometheus-client.
    metrics_folder = _metrics_folder()
    os.environ[METRICS_ENV_VAR] = metrics_folder

    def terminated(signum: int, _frame: object) -> None:
        # uvicorn re-raises SIGTERM after its graceful shutdown, with this handler back in
        # place: remove the folder, then die of the signal as before.
        shutil.rmtree(metrics_folder, ignore_errors=True)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        uvicorn.run(
            "twenty48_replay.server.http.app:create_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            access_log=access_log,
            log_level=log_level,
            server_header=False,
            date_header=False,
            http=PROTOCOL,
            ws="none",  # no upgrades: a WebSocket protocol would bypass the connection bounds
            proxy_headers=bool(forwarded),
            forwarded_allow_ips=forwarded or [],
            timeout_keep_alive=limits.idle_timeout,
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
        os.environ.pop(METRICS_ENV_VAR, None)
        shutil.rmtree(metrics_folder, ignore_errors=True)


def _metrics_folder() -> str:
    """A new private folder for the metrics files; those of dead servers are removed first.

    Named after the process, so that a folder left by a server that was
    killed (SIGKILL runs no clean-up) is recognised at the next start.
    """
    base = Path(tempfile.gettempdir())
    prefix = "twenty48-metrics-"
    with contextlib.suppress(OSError):
        for folder in base.glob(prefix + "*"):
            pid = folder.name.removeprefix(prefix).partition("-")[0]
            if not pid.isdigit() or _alive(int(pid)):
                continue
            info = folder.lstat()
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
                shutil.rmtree(folder, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process
        return True
    return True
