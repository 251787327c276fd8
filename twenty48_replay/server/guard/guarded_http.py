"""uvicorn's httptools protocol with the connection bounds of :mod:`.transport`.

uvicorn on httptools (llhttp) bounds neither the size nor the read time of a
request's head: httptools keeps every byte of an endless header value (117 MB
were accepted in one attack), a connection that sends nothing or a byte now
and then stays open for ever, and connections are accepted until the process
runs out of file descriptors, after which every request fails.  The h11
backend bounds the head's size but not the rest, at about half the requests
per second.  So ``serve`` keeps httptools and runs this subclass, which adds
to every connection, in the process that accepted it:

* admission: past the per-address or the total connection limit the new
  connection is answered ``429`` / ``503`` (a JSON reason, ``Retry-After``)
  at once, before its request is read, then closed;
* the head: its bytes are counted as they arrive (``431`` past the limit;
  at most one read of the socket more is ever buffered) and it must be
  complete within the header timeout of the connection's opening or of the
  request's first byte (``408``), so an idle or trickling connection ends;
* the body: complete within the body timeout of the head's end (``408``);
* the answer: a client that stops reading it for the body timeout is dropped.

Refusals are written directly on the socket (the application never sees the
request); each connection's bookkeeping is a few integer operations per read,
so the move path keeps httptools' speed (docs/performance/server.md).
"""

from __future__ import annotations

import asyncio
import functools
import http
import json
import logging
from collections.abc import Callable
from typing import Any, Final

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from twenty48_replay.server.guard import transport as tr

log = logging.getLogger("twenty48.server")

#: What uvicorn is given as its ``http`` protocol (an import string: worker processes load it).
PROTOCOL: Final = "twenty48_replay.server.guard.guarded_http:GuardedHttpToolsProtocol"


def refusal(status: int, reason: str, retry_after: int | None = None) -> bytes:
    """A complete ``Connection: close`` answer with ``{"error": reason}``."""
    body = json.dumps({"error": reason}).encode("utf-8")
    lines = [
        f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        "connection: close",
    ]
    if retry_after is not None:
        lines.append(f"retry-after: {retry_after}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


class Admission:
    """Open connections of this process, in total and per client (address, or IPv6 /64)."""

    def __init__(self, limits: tr.TransportLimits) -> None:
        self.limits = limits
        self.trusted = tr.TrustedProxies(limits.forwarded_allow_ips)
        self.total = 0
        self.by_client: dict[str, int] = {}
        self.lingering = 0
        self.too_many = refusal(
            503, f"the server has {limits.max_connections} connections open; try again", 1
        )
        self.too_many_here = refusal(
            429,
            f"too many connections from your address (at most "
            f"{limits.max_connections_per_client}); close one and try again",
            1,
        )
        self.head_too_large = refusal(
            431, f"request line and headers larger than {limits.max_header_bytes} bytes"
        )
        self.head_too_slow = refusal(
            408, f"request line and headers not received within {limits.header_timeout} s"
        )
        self.body_too_slow = refusal(
            408, f"request body not received within {limits.body_timeout} s"
        )

    def admit(self, address: str) -> str | bytes:
        """Count a new connection from ``address``: the key it counts under, or the refusal.

        The key (:func:`~.transport.client_key`) goes back to :meth:`release`.
        """
        if self.total >= self.limits.max_connections:
            return self.too_many
        key = tr.client_key(address)
        count = self.by_client.get(key, 0)
        if count >= self.limits.max_connections_per_client and address not in self.trusted:
            return self.too_many_here
        self.total += 1
        self.by_client[key] = count + 1
        return key

    def release(self, key: str) -> None:
        self.total -= 1
        count = self.by_client[key] - 1
        if count:
            self.by_client[key] = count
        else:
            del self.by_client[key]


@functools.cache
def admission() -> Admission:
    """This process's one :class:`Admission`, with the limits ``serve`` put in the environment."""
    return Admission(tr.TransportLimits.from_env())


class HeadTooLargeError(Exception):
    """Raised in the parser's callback to stop it at a head over the limit."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """One HTTP/1.1 connection: uvicorn's httptools protocol within the process's bounds."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.admission = admission()
        self.limits = self.admission.limits
        self.client_key: str | None = None  # counted in admission under this key while not None
        self.refused = False  # answered by us: the rest of the input is drained, not parsed
        self.lingers = False  # counted in admission.lingering
        self.in_head = True  # between requests or inside a head (not a body, not the app's turn)
        self.in_body = False
        self.heads = 0  # heads completed on this connection
        self.head_bytes = 0  # bytes of the current head so far
        self.drained = 0
        self.read_size = 0  # bytes of the read being parsed
        self.oversized = False
        self.deadline: asyncio.TimerHandle | None = None
        self.deadline_for_body = False
        self.send_deadline: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------ connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        admitted = self.admission.admit(address)
        if isinstance(admitted, bytes):
            self.transport = transport
            self._refuse(admitted)
            return
        self.client_key = admitted
        super().connection_made(transport)
        self._arm(self.limits.header_timeout, self._head_timed_out, body=False)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.send_deadline is not None:
            self.send_deadline.cancel()
            self.send_deadline = None
        if self.lingers:
            self.lingers = False
            self.admission.lingering -= 1
        if self.client_key is None:  # refused at admission: uvicorn never knew of it
            return
        self.admission.release(self.client_key)
        self.client_key = None
        super().connection_lost(exc)

    def eof_received(self) -> None:
        if self.refused:
            self.transport.close()

    # ------------------------------------------------------------ reading

    def data_received(self, data: bytes) -> None:
        if self.refused:
            self.drained += len(data)
            if self.drained > tr.LINGER_BYTES:
                self.transport.close()
            return
        self.read_size = len(data)
        was_head = self.in_head
        heads = self.heads
        super().data_received(data)
        if self.refused or self.transport.is_closing():
            return
        if self.in_head:
            # Only a read that was head from its first byte to its last is counted
            # and starts the head's deadline.  A read that completed a request may
            # carry the start of the next: that head is counted (and timed) from
            # its next read, and until then uvicorn's idle timeout closes it.
            if was_head and self.heads == heads:
                self.head_bytes += len(data)
                if self.head_bytes > self.limits.max_header_bytes:
                    self._refuse(self.admission.head_too_large)
                    return
                if self.deadline is None:
                    self._arm(self.limits.header_timeout, self._head_timed_out, body=False)
        elif self.deadline is None or not self.deadline_for_body:
            self._arm(self.limits.body_timeout, self._body_timed_out, body=True)

    def on_headers_complete(self) -> None:
        if self.head_bytes + self.read_size > self.limits.max_header_bytes:
            # The head's last bytes came in this read, with maybe a body: measure the head.
            size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
            if size > self.limits.max_header_bytes:
                self.oversized = True
                raise HeadTooLargeError  # stops the parser; uvicorn then calls send_400_response
        self.in_head = False
        self.in_body = True
        self.heads += 1
        self.head_bytes = 0
        self._disarm()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self.in_body = False
        self.in_head = True
        self._disarm()
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request the parser gave up on (ours: a head too large)."""
        if self.oversized:
            self._refuse(self.admission.head_too_large)
        else:
            super().send_400_response(msg)

    # ------------------------------------------------------------ writing

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.send_deadline is None and not self.refused:
            self.send_deadline = self.loop.call_later(
                self.limits.body_timeout, self._stalled_reader
            )

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.send_deadline is not None:
            self.send_deadline.cancel()
            self.send_deadline = None

    def _stalled_reader(self) -> None:
        self.send_deadline = None
        self.transport.abort()

    # ------------------------------------------------------------ deadlines

    def _arm(self, seconds: float, then: Callable[[], None], *, body: bool) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
        self.deadline = self.loop.call_later(seconds, then)
        self.deadline_for_body = body

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _head_timed_out(self) -> None:
        self.deadline = None
        if self.head_bytes == 0:
            self.transport.close()  # connected (or kept alive) and said nothing: no answer owed
        else:
            self._refuse(self.admission.head_too_slow)

    def _body_timed_out(self) -> None:
        self.deadline = None
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            # The application is waiting for the rest of the body: it gets a
            # disconnect and whatever it answers is dropped; the client gets 408.
            cycle.disconnected = True
            cycle.message_event.set()
            self._refuse(self.admission.body_too_slow)
        else:
            self.transport.close()

    # ------------------------------------------------------------ refusing

    def _refuse(self, answer: bytes) -> None:
        """Send ``answer`` and close gracefully: stop parsing, drain the input briefly.

        While the application is still answering an earlier request on this
        connection, nothing is written (it would interleave with that answer):
        the connection is just closed.
        """
        self.refused = True
        self._disarm()
        transport = self.transport
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and not cycle.disconnected:
            transport.close()
            return
        transport.write(answer)
        if not transport.can_write_eof():
            transport.close()
            return
        if self.client_key is None:  # refused at admission: its descriptor is counted nowhere else
            if self.admission.lingering >= tr.MAX_LINGERING:
                transport.close()
                return
            self.admission.lingering += 1
            self.lingers = True
        transport.write_eof()
        self.deadline = self.loop.call_later(tr.LINGER_SECONDS, transport.close)
