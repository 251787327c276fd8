"""Connection-level bounds of ``twenty48 serve`` and the proxies it trusts.

These are the transport's settings, apart from the application's
(:mod:`.config`): how many connections the process keeps, per client address
and in total; how large and how slow a request's head may be; how long a body
and a stalled reader may take; which proxies may name the real client in
``X-Forwarded-For``.  :mod:`.guarded_http` enforces them on every connection,
so they hold when ``serve`` is reached directly on any ``--host``, not only
behind nginx.  They reach uvicorn's worker processes through one environment
variable, as :class:`~.config.ServerConfig` does.
"""

from __future__ import annotations

import ipaddress
import json
import os
from typing import Any, ClassVar, Final

import attrs

from twenty48_replay.core.errors import EXIT_UNUSABLE, MessageError
from twenty48_replay.core.i18n import N_

#: Environment variable that carries the limits to uvicorn's worker processes.
ENV_VAR: Final = "TWENTY48_SERVE_TRANSPORT"

#: File descriptors kept back from connections: the database (file, -wal, -shm per
#: reading thread), the writer, the analysis worker's pipes, logs, the event loop.
FD_RESERVE: Final = 256
#: Connections refused at admission (429 / 503) being closed gracefully: the
#: answer sent, the client's request drained for a moment so that it reads the
#: answer rather than a reset.  Past this many, the next is closed at once.
#: (An admitted connection refused later, 408 / 431, still counts toward the total.)
MAX_LINGERING: Final = 256
#: How long, and how many bytes, a refused connection is drained before it is closed.
LINGER_SECONDS: Final = 2.0
LINGER_BYTES: Final = 64 * 1024

#: When the hard limit on open files is "unlimited" (macOS), the soft limit asked for.
UNLIMITED_FILES_TARGET: Final = 65536


@attrs.frozen
class TransportLimits:
    """What one server process allows a connection, with the defaults ``serve`` uses.

    * ``max_connections``: open connections in this process; one more gets
      ``503`` and is closed (never a hang, never an exhausted file table).
    * ``max_connections_per_client``: open connections from one client
      address (an IPv6 client: its /64); one more gets ``429``.  Connections
      from a trusted proxy count only toward the total (the proxy bounds its
      clients itself).
    * ``max_header_bytes``: request line plus headers; past it ``431``.
    * ``header_timeout``: seconds from connecting (or from a keep-alive
      request's first byte) until the whole head has arrived; then ``408``.
    * ``idle_timeout``: seconds a keep-alive connection may wait between requests.
    * ``body_timeout``: seconds from the end of the head until the whole body
      has arrived (``408``), and how long a client may stop reading an answer
      before its connection is dropped.
    * ``forwarded_allow_ips``: proxies (addresses, networks, or ``*``) whose
      ``X-Forwarded-For`` / ``X-Forwarded-Proto`` name the client; empty:
      nobody's, every header of that kind is ignored.
    """

    max_connections: int = 4096
    max_connections_per_client: int = 64
    max_header_bytes: int = 16 * 1024
    header_timeout: int = 10
    idle_timeout: int = 5
    body_timeout: int = 30
    forwarded_allow_ips: tuple[str, ...] = ()

    def to_env(self) -> str:
        return json.dumps(attrs.asdict(self))

    @classmethod
    def from_env(cls) -> TransportLimits:
        raw = os.environ.get(ENV_VAR)
        if not raw:
            return cls()
        data: dict[str, Any] = json.loads(raw)
        data["forwarded_allow_ips"] = tuple(data.get("forwarded_allow_ips", ()))
        return cls(**data)


class ForwardedAllowError(MessageError, ValueError):
    """A ``--forwarded-allow-ips`` value that cannot be used (exit 2), in the reader's language."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE


def parse_forwarded_allow_ips(text: str) -> tuple[str, ...]:
    """``--forwarded-allow-ips``: comma-separated addresses or networks, or ``*``.

    Raises :class:`ForwardedAllowError` (a ValueError) naming the first item
    that is neither, so a typo never silently trusts (or distrusts) a proxy.
    An empty text trusts nobody.
    """
    items = [item.strip() for item in text.split(",")]
    if items == [""]:
        return ()
    if "*" in items:
        if len(items) > 1:
            raise ForwardedAllowError(N_("'*' trusts every address; give it alone"))
        return ("*",)
    found = []
    for item in items:
        try:
            network = ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ForwardedAllowError(
                N_("{item} is not an IP address or network"), item=repr(item)
            ) from None
        found.append(str(network.network_address) if _is_single(network) else str(network))
    return tuple(found)


def _is_single(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> bool:
    return network.num_addresses == 1


class TrustedProxies:
    """Membership test for the socket addresses of trusted proxies."""

    def __init__(self, allowed: tuple[str, ...]) -> None:
        self.everyone = allowed == ("*",)
        self.networks = [] if self.everyone else [ipaddress.ip_network(a) for a in allowed]
        self._known: dict[str, bool] = {}

    def __contains__(self, address: str) -> bool:
        if self.everyone:
            return True
        if not self.networks:
            return False
        known = self._known.get(address)
        if known is None:
            known = _in_networks(address, self.networks)
            if len(self._known) < 4096:  # addresses seen; bounded like everything else
                self._known[address] = known
        return known


def _in_networks(
    address: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in networks)


def client_key(address: str) -> str:
    """What the per-client limits count by: the address, or an IPv6 /64.

    The connection limit counts by it, and so do the per-address rate limits
    (:func:`twenty48_replay.server.http.parsing.quota_subject`).

    One IPv6 subscriber usually holds a whole /64 (2**64 addresses), so per
    address it would not be bounded at all.  An IPv4-mapped IPv6 address (a
    dual-stack socket) counts as its IPv4 address; IPv4 addresses and anything
    unparsable count as given.
    """
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address.partition("%")[0])
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))


def raise_open_files_limit() -> int | None:
    """Raise this process's soft limit on open files to its hard limit; the new soft limit.

    Connections are file descriptors: at Linux's usual soft limit of 1,024, a
    thousand idle connections leave no descriptor for the database or the
    next honest client.  Child processes (uvicorn's workers) inherit the
    raised limit.  None where the platform has no such limit (Windows).
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, UNLIMITED_FILES_TARGET)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):  # e.g. macOS caps the soft limit below "unlimited"
            return soft
        return target
    return soft if soft != resource.RLIM_INFINITY else None


def fit_to_open_files(limits: TransportLimits, open_files: int | None) -> TransportLimits:
    """``limits`` with ``max_connections`` lowered so that connections never exhaust the files.

    Each connection holds one descriptor; :data:`FD_RESERVE` stay for the
    database and the process, :data:`MAX_LINGERING` for refusals on their way out.
    """
    if open_files is None:
        return limits
    room = max(1, open_files - FD_RESERVE - MAX_LINGERING)
    if limits.max_connections <= room:
        return limits
    return attrs.evolve(
        limits,
        max_connections=room,
        max_connections_per_client=min(limits.max_connections_per_client, room),
    )
