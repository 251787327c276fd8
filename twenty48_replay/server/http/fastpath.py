"""``POST /api/games/{id}/moves`` as plain ASGI, ahead of Starlette.

Moves are nearly every request a busy server gets, and at thousands per
second Starlette's layers (two exception middlewares, route matching over
every route, Request and Response objects) cost more CPU than the move
itself (cProfile of the event loop thread under the benchmark).  This
handler parses the same things with the same functions of
:mod:`.parsing` and answers the same JSON; every other request, and any
move request it does not recognise, goes to the Starlette application.
"""

from __future__ import annotations

import json
import logging
import re
import traceback
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from twenty48_replay.server.api_errors import ApiError, not_found
from twenty48_replay.server.http import parsing
from twenty48_replay.server.writes import write_jobs
from twenty48_replay.server.writes.writer import GroupWriter

log = logging.getLogger("twenty48.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_MOVES: Final = re.compile(r"/api/games/([0-9]{1,18})/moves")
#: The answers' encoder, made once: ``json.dumps`` with any argument builds a new
#: encoder on every call (4% of the server's samples under bench_abuse.py).
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class MovesFastPath:
    """ASGI wrapper: moves handled here, everything else by ``app``."""

    def __init__(self, app: ASGIApp, writer: Callable[[], GroupWriter]) -> None:
        self.app = app
        self.writer = writer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            match = _MOVES.fullmatch(scope["path"])
            if match is not None:
                await self._move(int(match.group(1)), scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _move(self, fair_id: int, scope: Scope, receive: Receive, send: Send) -> None:
        extra: dict[str, str] = {}
        try:
            status, answer = 200, await self._answer(fair_id, scope, receive)
        except ApiError as refusal:
            status, answer, extra = refusal.status, refusal.answer(), refusal.headers
        except Exception as exc:  # a bug: logged without values, answered as JSON
            log.error(
                "internal error %s on POST %s\n%s",
                type(exc).__name__,
                scope["path"],
                "".join(traceback.format_tb(exc.__traceback__)),
            )
            status, answer = 500, {"error": "internal server error"}
        body = _ENCODER.encode(answer).encode("utf-8")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        if status == 401:
            headers.append((b"www-authenticate", b"Bearer"))
        headers.extend(
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in extra.items()
        )
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _answer(self, fair_id: int, scope: Scope, receive: Receive) -> dict[str, Any]:
        if not 1 <= fair_id <= parsing.MAX_ID:
            raise not_found(fair_id)
        authorization = None
        declared = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                authorization = value.decode("latin-1")
            elif name == b"content-length":
                declared = value.decode("latin-1")
        token = parsing.token_from_header(authorization)
        body = await parsing.read_asgi_body(receive, declared, parsing.MAX_BODY)
        letter, n = parsing.move_fields(parsing.parse_object(body))
        return await self.writer().run(write_jobs.PlayMove(fair_id, token, n, letter))
