"""A private network for one test: many client addresses of one IPv6 /64 on this machine.

Per-network limits can only be tested with clients that really come from
many addresses of one network, each its own TCP connection.  The machine's
own network is left alone: :func:`run_in_own_network` runs a function in a
new thread that has a network namespace of its own (``unshare(CLONE_NEWNET)``
affects the calling thread only), brings its loopback up and routes a whole
IPv6 prefix to it (``ip -6 route add local PREFIX dev lo``), so that a
socket may take any address of the prefix as its source
(:func:`connect_from`, with ``IP_FREEBIND``).  Every process the function
starts (serve, nginx) inherits the namespace; a PostgreSQL server on a Unix
socket stays reachable (sockets in the file system are not namespaced).

Making a namespace needs CAP_SYS_ADMIN (the tests run as root in CI); without
it the test skips with that reason, unless ``TWENTY48_REQUIRE_NGINX`` is set
(the deployment tests must then run).
"""

from __future__ import annotations

import ctypes
import os
import socket
import subprocess
import threading
from collections.abc import Callable
from typing import Final, TypeVar

import pytest

T = TypeVar("T")

CLONE_NEWNET: Final = 0x40000000
#: Linux's IP_FREEBIND (also honoured by IPv6 sockets): bind an address no interface has.
IP_FREEBIND: Final = 15
REQUIRE_VAR: Final = "TWENTY48_REQUIRE_NGINX"


class _NoNamespaceError(Exception):
    """The thread could not get a network namespace of its own (why)."""


def run_in_own_network(prefix: str, action: Callable[[], T], timeout: float = 600) -> T:
    """``action()`` in a thread with its own network, where ``prefix`` (IPv6) is all local.

    Its result, or its exception raised here; skips (or fails under
    ``TWENTY48_REQUIRE_NGINX``) when no namespace can be made.
    """
    outcome: list[T] = []
    failure: list[BaseException] = []

    def body() -> None:
        try:
            _own_network(prefix)
            outcome.append(action())
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    thread = threading.Thread(target=body, name="own-network", daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"the test's network thread did not end within {timeout} s"
    if failure:
        if isinstance(failure[0], _NoNamespaceError):
            reason = f"no network namespace for the test ({failure[0]})"
            if os.environ.get(REQUIRE_VAR):
                pytest.fail(f"{reason}, but {REQUIRE_VAR} is set")
            pytest.skip(reason)
        raise failure[0]
    return outcome[0]


def _own_network(prefix: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        raise _NoNamespaceError(os.strerror(ctypes.get_errno()))
    for command in (
        ["ip", "link", "set", "lo", "up"],
        ["ip", "-6", "route", "add", "local", prefix, "dev", "lo"],
    ):
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        except OSError as exc:
            raise _NoNamespaceError(f"{command[0]}: {exc}") from None
        if done.returncode != 0:
            raise _NoNamespaceError(f"{' '.join(command)}: {done.stderr.strip()}")


def connect_from(source: str, host: str, port: int, timeout: float = 30) -> socket.socket:
    """A TCP connection to ``host``:``port`` from the IPv6 address ``source`` of the prefix."""
    sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
        sock.settimeout(timeout)
        sock.bind((source, 0))
        sock.connect((host, port))
    except BaseException:
        sock.close()
        raise
    return sock
