"""Starting the server on uvicorn, one process or several sharing one database."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import ClassVar

from twenty48_replay.errors import EXIT_UNUSABLE, KeyFileError, Twenty48Error
from twenty48_replay.server import transport
from twenty48_replay.server.config import ENV_VAR, ServerConfig, key_path
from twenty48_replay.server.guarded_http import PROTOCOL
from twenty48_replay.signing import ServerKey
from twenty48_replay.store import Store


def prepare(config: ServerConfig) -> tuple[str, ServerKey]:
    """Open (create) the database and the key once, before any worker starts.

    Errors here are ordinary library errors (one clear line from the CLI);
    the workers then find both ready.  Returns the database's display name
    and the key.  A refused setting leaves nothing behind: an existing key
    file is loaded and checked, and a missing one's folder checked, before
    the database is created; a new key is made only once the database opened.
    """
    path = key_path(config)
    key = ServerKey.load(path) if os.path.lexists(path) else None
    if key is None and config.key is not None:
        _check_key_folder(path)
    with Store(config.db) as store:  # creates, checks or upgrades the whole schema
        name = store.name
    return name, key if key is not None else ServerKey.load_or_create(path)


def _check_key_folder(path: Path) -> None:
    """Refuse now a ``--key`` that could not be created (the database is not made yet)."""
    folder = path.parent
    if not folder.is_dir():
        raise KeyFileError(f"cannot create key file {path}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise KeyFileError(f"cannot create key file {path}: {folder} is not writable")


class ListenError(Twenty48Error):
    """The address cannot be listened on (in use, not ours, malformed): exit 2."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE


def check_listen(host: str, port: int) -> None:
    """Fail with one clear line now if uvicorn could not bind ``host:port``."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ListenError(f"cannot listen on {host}:{port}: {exc}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise ListenError(f"cannot listen on {host}:{port}: {reason.lower()}") from None


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
    uvicorn.run(
        "twenty48_replay.server.app:create_app",
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
