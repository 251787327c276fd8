"""Requests the server refuses before any handler runs: wrong Host, foreign Origin, not JSON.

Plain ASGI around the whole application (the moves fast path included), one
pass over the request's headers:

* **Host** (400): only the names the operator allows (``--allowed-host``,
  repeatable; by default the loopback names and the address ``serve``
  listens on, so that a web page that rebinds its own domain name to
  127.0.0.1 cannot talk to a server on this machine).  ``*`` allows any.
* **Origin** (403): a browser names the page a request comes from.  A
  request whose ``Origin`` is not this server's own (scheme, host and port
  as the request arrived: behind a TLS proxy the scheme comes from the
  trusted proxy's ``X-Forwarded-Proto``) is refused unless the operator
  allowed that origin (``--allowed-origin``).  Requests without ``Origin``
  (command-line clients, same-origin navigation) pass.
* **Content-Type** (415): a request that changes state (``POST`` under
  ``/api/``) must say ``application/json``.  HTML forms can send only
  three other types without the browser asking first, so another site's
  form can never reach the API.

Every refusal is ``{"error": reason}``; the reason is recorded in the scope
(``twenty48.refusal``) for the metrics.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Final

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Scope key where a refusal names its reason (read by the metrics).
REFUSAL_KEY: Final = "twenty48.refusal"
ANY_HOST: Final = "*"
DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: Methods that change state; under ``/api/`` they must send JSON.
CHANGING: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: The names a server listening on loopback answers to by default.
LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "::1")
_WILDCARDS: Final = frozenset({"", "0.0.0.0", "::"})


def host_name(value: str) -> str | None:
    """The host of a ``Host`` header value (``name``, ``name:port``, ``[v6]:port``), normalised.

    None when the value is not a host at all.
    """
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1 :] and not _is_port(value[end + 1 :])):
            return None
        name = value[1:end]
    else:
        name, colon, port = value.rpartition(":")
        if not colon:
            name = value
        elif not _is_port(":" + port) or ":" in name:
            return None
    name = name.rstrip(".")
    if not name or any(ch.isspace() or ch in "/?#@\\" for ch in name):
        return None
    return name


def _is_port(text: str) -> bool:
    return text.startswith(":") and text[1:].isascii() and text[1:].isdigit() and len(text) <= 6


def default_allowed_hosts(listen_host: str) -> tuple[str, ...]:
    """The names allowed without ``--allowed-host``: loopback and the listening address.

    A wildcard address (``0.0.0.0``, ``::``) answers to any name: the server
    is reachable from other machines by whatever name or address they use.
    """
    if listen_host.strip() in _WILDCARDS:
        return (ANY_HOST,)
    listen = host_name(listen_host) or listen_host.strip().lower()
    return tuple(dict.fromkeys((*LOOPBACK_NAMES, listen)))


def normalise_origin(text: str) -> str | None:
    """``scheme://host[:port]`` with the scheme's default port dropped, lowercase; or None."""
    scheme, sep, rest = text.strip().partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in DEFAULT_PORTS or not rest or "/" in rest:
        return None
    name = host_name(rest)
    if name is None:
        return None
    port = DEFAULT_PORTS[scheme]
    if rest.startswith("["):
        tail = rest[rest.find("]") + 1 :]
    else:
        tail = rest.rpartition(":")[2] if ":" in rest else ""
        tail = ":" + tail if tail else ""
    if tail:
        port = int(tail[1:])
    shown = f"[{name}]" if ":" in name else name
    return f"{scheme}://{shown}" if port == DEFAULT_PORTS[scheme] else f"{scheme}://{shown}:{port}"


class RequestGuard:
    """ASGI middleware enforcing the three rules in the module docstring."""

    def __init__(
        self, app: ASGIApp, *, allowed_hosts: Iterable[str], allowed_origins: Iterable[str] = ()
    ) -> None:
        self.app = app
        hosts = {h.strip().lower().rstrip(".") for h in allowed_hosts}
        self.any_host = ANY_HOST in hosts
        self.hosts = frozenset(
            (host_name(h) or h) for h in hosts if h != ANY_HOST and (host_name(h) or h)
        )
        self.origins = frozenset(
            o for o in (normalise_origin(text) for text in allowed_origins) if o is not None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, name, reason = refusal
        scope[REFUSAL_KEY] = name
        body = json.dumps({"error": reason}, separators=(",", ":")).encode("utf-8")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        hosts: list[bytes] = []
        origin: bytes | None = None
        content_type: bytes | None = None
        for name, value in scope["headers"]:
            if name == b"host":
                hosts.append(value)
            elif name == b"origin":
                origin = value
            elif name == b"content-type":
                content_type = value
        if len(hosts) != 1:
            return 400, "host_not_allowed", "the request must have exactly one Host header"
        host_text = hosts[0].decode("latin-1")
        host = host_name(host_text)
        if host is None or not (self.any_host or host in self.hosts):
            return 400, "host_not_allowed", "this server does not answer for that Host"
        if origin is not None and not self._same_or_allowed(origin, host_text, scope):
            return 403, "origin_not_allowed", "requests from other web sites are not allowed"
        if (
            scope["method"] in CHANGING
            and scope["path"].startswith("/api/")
            and not _is_json(content_type)
        ):
            return 415, "not_json", "send the request body as Content-Type: application/json"
        return None

    def _same_or_allowed(self, origin: bytes, host_text: str, scope: Scope) -> bool:
        given = normalise_origin(origin.decode("latin-1"))
        if given is None:  # "null" (a sandboxed page, a file), or not an origin at all
            return False
        own = normalise_origin(f"{scope.get('scheme', 'http')}://{host_text.strip()}")
        return given == own or given in self.origins


def _is_json(content_type: bytes | None) -> bool:
    """Whether a Content-Type value names ``application/json`` (parameters allowed)."""
    if content_type is None:
        return False
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json"
