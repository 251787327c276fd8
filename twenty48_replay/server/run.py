"""Starting the server on uvicorn, one process or several sharing one database."""

from __future__ import annotations

import os
import socket
from typing import ClassVar

from twenty48_replay.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.server.config import ENV_VAR, ServerConfig, key_path
from twenty48_replay.signing import ServerKey
from twenty48_replay.store import Store


def prepare(config: ServerConfig) -> tuple[str, ServerKey]:
    """Open (create) the database and the key once, before any worker starts.

    Errors here are ordinary library errors (one clear line from the CLI);
    the workers then find both ready.  Returns the database's display name
    and the key.
    """
    with Store(config.db) as store:  # creates, checks or upgrades the whole schema
        name = store.name
    return name, ServerKey.load_or_create(key_path(config))


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


def serve(
    config: ServerConfig,
    *,
    host: str,
    port: int,
    workers: int = 1,
    access_log: bool = True,
    log_level: str = "info",
) -> None:
    """Run uvicorn until interrupted (workers get ``config`` through the environment)."""
    import uvicorn

    os.environ[ENV_VAR] = config.to_env()
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
    )
