"""What the connection bounds cost per request: uvicorn's httptools protocol with and without them.

In one process, on uvloop, each protocol class gets the same kept-alive
connection (an in-memory transport) and the same move request, ``--requests``
times, answered by a minimal ASGI application (so that the figure is the
protocol's cost, not the game's).  Rounds alternate between the two classes;
the best round of each is reported, in microseconds of this process's CPU
per request (so that other work on the machine changes it little), with the
difference: the CPU the bounds add to every request.  Multiplied by a
server's requests per second it is the share of a core they take (README,
Performance).  The end-to-end figure is bench_server.py's, run against both.

    python tests/bench/bench_guard.py [--requests 20000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from twenty48_replay.server.guard.guarded_http import GuardedHttpToolsProtocol

REQUEST = (
    b"POST /api/games/17/moves HTTP/1.1\r\nHost: 127.0.0.1:8048\r\n"
    b"Content-Length: 20\r\nAuthorization: Bearer 0123456789abcdef0123456789abcdef\r\n"
    b"Content-Type: application/json\r\n\r\n"
    b'{"move":"L","n":123}'
)
ANSWER = b'{"board":[[2,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,2]],"score":0}'


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The smallest answer to a move: read the body, send a JSON body."""
    while (await receive()).get("more_body"):
        pass
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(ANSWER))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": ANSWER})


class MemoryTransport(asyncio.Transport):
    """A connected socket that accepts every write and is never closed by the peer."""

    def __init__(self) -> None:
        super().__init__()
        self.closing = False
        self.written = 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.2", 40000), "sockname": ("127.0.0.1", 8048)}.get(
            name, default
        )

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += len(data)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        pass


async def one_round(kind: type[HttpToolsProtocol], config: Config, requests: int) -> float:
    """Seconds per request for ``requests`` requests on one kept-alive connection."""
    state = ServerState()
    protocol = kind(config=config, server_state=state, app_state={})
    transport = MemoryTransport()
    protocol.connection_made(transport)
    start = (
        time.process_time()
    )  # this process's CPU: what other work on the machine does not change
    for _ in range(requests):
        protocol.data_received(REQUEST)
        while state.tasks:
            await asyncio.sleep(0)
    elapsed = time.process_time() - start
    assert not transport.closing
    assert transport.written > requests * len(ANSWER)
    protocol.connection_lost(None)
    return elapsed / requests


async def main_async(args: argparse.Namespace) -> None:
    config = Config(app=app, ws="none", proxy_headers=False, lifespan="off", access_log=False)
    config.load()
    best = {HttpToolsProtocol: float("inf"), GuardedHttpToolsProtocol: float("inf")}
    for _ in range(args.rounds):
        for kind in best:
            best[kind] = min(best[kind], await one_round(kind, config, args.requests))
    plain = best[HttpToolsProtocol] * 1e6
    guarded = best[GuardedHttpToolsProtocol] * 1e6
    print(
        f"per request, best of {args.rounds} rounds of {args.requests:,}: httptools "
        f"{plain:.2f} us, with the bounds {guarded:.2f} us: +{guarded - plain:.2f} us "
        f"({100 * (guarded - plain) / plain:+.1f}% of the protocol's own cost); "
        f"load average {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    try:
        import uvloop
    except ImportError:
        asyncio.run(main_async(args))
        return
    uvloop.run(main_async(args))


if __name__ == "__main__":
    main()
