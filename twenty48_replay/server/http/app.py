"""The Starlette application: routes, answers and the error boundary.

Writes (new game, start, move, finish, submitted record) go to the
:class:`GroupWriter`, which answers only after their transaction has
committed; reads run in the thread pool on their own connections.  Every
refusal is a 4xx with ``{"error": reason}``; anything else that escapes is
a bug, logged (type and code lines only, never values, so no secret can
reach the log) and answered with a JSON 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import attrs
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from twenty48_replay.core import fair
from twenty48_replay.core.errors import RecordError, StoreError
from twenty48_replay.core.i18n import translations
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.timestamps import iso_ms, now_ms
from twenty48_replay.server import bots
from twenty48_replay.server.api_errors import ApiError, not_found
from twenty48_replay.server.config import ServerConfig
from twenty48_replay.server.guard import quotas
from twenty48_replay.server.guard.request_guard import (
    ASGIApp,
    RequestGuard,
    default_allowed_hosts,
    normalise_origin,
)
from twenty48_replay.server.http import cursors, error_page, metrics, pages, parsing
from twenty48_replay.server.http.fastpath import MovesFastPath
from twenty48_replay.server.http.language import page_language
from twenty48_replay.server.http.openapi import MAX_PAGE, openapi_document
from twenty48_replay.server.parts import Server
from twenty48_replay.server.writes import answers, write_jobs
from twenty48_replay.store import fair_games as fair_store

log = logging.getLogger("twenty48.server")

Handler = Callable[[Request], Awaitable[Response]]


class JSON(JSONResponse):
    """Compact UTF-8 JSON."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def error_response(
    status: int, reason: str | ApiError, headers: dict[str, str] | None = None
) -> Response:
    """A JSON refusal: ``{"error": reason}`` (and its code when ``reason`` is an ApiError's)."""
    headers = dict(headers or {})
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    body = reason.answer() if isinstance(reason, ApiError) else {"error": reason}
    return JSON(body, status_code=status, headers=headers)


def create_app(config: ServerConfig | None = None) -> ASGIApp:
    """The ASGI application for ``config`` (from the environment when None: uvicorn workers).

    Around the routes, from the outside in: the metrics' counting, the
    request guard (Host, Origin, Content-Type), CORS for the allowed
    origins, the moves fast path, then Starlette.
    """
    config = config or ServerConfig.from_env()
    holder: dict[str, Server] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server = Server(config, observe=metrics.observe_commit)
        server.start()
        server.sweeper.start()
        holder["server"] = server
        latencies = asyncio.create_task(metrics.flush_latencies())
        try:
            yield
        finally:
            latencies.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await latencies
            await server.sweeper.stop()
            server.stop()

    def api(handler: Callable[[Request, Server], Awaitable[Response]]) -> Handler:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request, holder["server"])
            except ApiError as refusal:
                return error_response(refusal.status, refusal, refusal.headers)
            except Exception as exc:  # a bug: answered here, so nothing re-raises it to uvicorn
                return await server_error(request, exc)

        return endpoint

    routes = [
        *pages.routes(api, index),  # "/", "/leaderboard", "/games/{id}", "/static/..."
        Route("/openapi.json", api(openapi), methods=["GET"]),
        Route("/healthz", api(healthz), methods=["GET"]),
        Route("/readyz", api(readyz), methods=["GET"]),
        Route("/metrics", api(metrics_page), methods=["GET"]),
        Route("/.well-known/twenty48-key", api(well_known), methods=["GET"]),
        Route("/api/players", api(register_player), methods=["POST"]),
        Route("/api/games", api(create_game), methods=["POST"]),
        Route("/api/games/{id}", api(show_game), methods=["GET"]),
        Route("/api/games/{id}/start", api(start_game), methods=["POST"]),
        Route("/api/games/{id}/moves", api(play_move), methods=["POST"]),
        Route("/api/games/{id}/finish", api(finish_game), methods=["POST"]),
        Route("/api/games/{id}/record", api(game_record), methods=["GET"]),
        Route("/api/leaderboard", api(leaderboard), methods=["GET"]),
        Route("/api/records", api(submit_record), methods=["POST"]),
        Route("/api/records", api(list_records), methods=["GET"]),
    ]
    starlette = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app: ASGIApp = MovesFastPath(starlette, lambda: holder["server"].writer)
    if config.allowed_origins:  # browsers on those sites must be told they may read answers
        app = CORSMiddleware(
            app,
            allow_origins=[o for o in map(normalise_origin, config.allowed_origins) if o],
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
            max_age=600,
        )
    app = RequestGuard(
        app,
        allowed_hosts=config.allowed_hosts or default_allowed_hosts("127.0.0.1"),
        allowed_origins=config.allowed_origins,
    )
    return metrics.CountingMiddleware(app)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (unknown path, wrong method): JSON, or a page for a browser."""
    assert isinstance(exc, HTTPException)
    if error_page.wants_html(request):
        language, remember = page_language(request)
        detail = translations(language).gettext(str(exc.detail))
        return error_page.response(exc.status_code, detail, language, remember)
    return error_response(exc.status_code, str(exc.detail))


async def server_error(request: Request, exc: Exception) -> Response:
    """A bug: log where it happened without any value, answer a JSON 500."""
    frames = "".join(traceback.format_tb(exc.__traceback__))
    log.error(
        "internal error %s on %s %s\n%s",
        type(exc).__name__,
        request.method,
        request.url.path,
        frames,
    )
    return error_response(500, "internal server error")


# ------------------------------------------------------------------ handlers


async def index(_request: Request, _server: Server) -> Response:
    return JSON({"name": "twenty48-replay score server", "openapi": "/openapi.json"})


async def openapi(_request: Request, _server: Server) -> Response:
    return JSON(openapi_document())


async def well_known(_request: Request, server: Server) -> Response:
    """The key set: every key this server signed with and when (SPEC 11.6), read each time,
    so a revocation by ``twenty48 admin`` is published with the next request."""
    try:
        document = await run_in_threadpool(server.key_document)
    except StoreError:
        raise ApiError(503, Reason("server.unavailable")) from None
    return JSON(document)


async def healthz(_request: Request, _server: Server) -> Response:
    """The process answers (its event loop runs)."""
    return JSON({"status": "ok"})


async def readyz(_request: Request, server: Server) -> Response:
    """The database answers, the writer takes jobs and the logs' chains hold (:mod:`.health`);
    else 503 and why.  Ready, it publishes the chains' heads."""
    reason = await server.readiness.reason()
    if reason is not None:
        return error_response(503, reason)
    return JSON({"status": "ready", "chains": server.readiness.heads})


async def metrics_page(request: Request, server: Server) -> Response:
    """Prometheus' text format (:mod:`.metrics`), for the allowed addresses only."""
    allow = metrics.networks(server.config.metrics_allow or metrics.DEFAULT_ALLOW)
    if not metrics.allowed(request.scope.get("client"), allow):
        raise ApiError(404, "Not Found")  # as any unknown path: not even its existence is shown

    def read() -> tuple[int, int, int]:
        with server.store.reading() as connection:
            unstarted, started = fair_store.open_games(connection)
            return unstarted, started, fair_store.analysis_backlog(connection)

    body = await run_in_threadpool(metrics.exposition, metrics.Gauges(read))
    return Response(body, media_type=metrics.CONTENT_TYPE, headers={"Cache-Control": "no-store"})


async def register_player(request: Request, server: Server) -> Response:
    body = await parsing.json_object(request)
    name = parsing.player_name(body, "name")
    address = parsing.quota_subject(request)  # charged to it (register-name, 429)
    answer = await server.writer.run(write_jobs.RegisterPlayer(name, address))
    return JSON(answer, status_code=201)


async def create_game(request: Request, server: Server) -> Response:
    secret = parsing.optional_bearer(request)
    body = await parsing.json_object(request)
    player = parsing.player_name(body)
    address = parsing.quota_subject(request)
    answer = await server.writer.run(write_jobs.CreateGame(player, secret, address))
    return JSON(answer, status_code=201)


async def start_game(request: Request, server: Server) -> Response:
    fair_id = parsing.game_id(request)
    token = parsing.bearer_token(request)
    body = await parsing.json_object(request)
    raw = parsing.string_field(body, "client_seed")
    try:
        client_seed = fair.validate_client_seed(raw)
    except RecordError as exc:
        raise ApiError(422, str(exc)) from None
    made_after = now_ms() - int(server.config.unstarted_expiry_s * 1000)
    job = write_jobs.StartGame(fair_id, token, client_seed, made_after)
    return JSON(await server.writer.run(job))


async def play_move(request: Request, server: Server) -> Response:
    fair_id = parsing.game_id(request)
    token = parsing.bearer_token(request)
    letter, n = parsing.move_fields(await parsing.json_object(request))
    return JSON(await server.writer.run(write_jobs.PlayMove(fair_id, token, n, letter)))


async def finish_game(request: Request, server: Server) -> Response:
    fair_id = parsing.game_id(request)
    token = parsing.bearer_token(request)
    await parsing.read_body(request, parsing.MAX_BODY)  # may be empty; bounded anyway
    return JSON(await server.writer.run(write_jobs.FinishGame(fair_id, token)))


async def show_game(request: Request, server: Server) -> Response:
    """The game as its rows stand (projection and secret row): nothing is replayed."""
    fair_id = parsing.game_id(request)

    def read() -> tuple[fair_store.FairRow, fair_store.Projection | None] | None:
        with server.store.reading() as connection:
            return fair_store.public_game(connection, fair_id)

    found = await run_in_threadpool(read)
    if found is None:
        raise not_found(fair_id)
    row, game = found
    if game is None and row.created_ms < now_ms() - int(server.config.unstarted_expiry_s * 1000):
        raise write_jobs.expired(fair_id)
    if game is not None and game.damage:
        raise ApiError(500, f"game {fair_id} is damaged in the database; the operator can see why")
    return JSON(answers.public_view(row, game))


async def game_record(request: Request, server: Server) -> Response:
    record = await pages.finished_record(
        request, server, "the game is not finished; its record is signed when it ends"
    )
    return Response(record, media_type="application/json")


async def leaderboard(request: Request, server: Server) -> Response:
    limit = parsing.limit_param(request, default=10, high=MAX_PAGE)
    after = _cursor(request, "leaderboard", 5)
    place = None if after is None else fair_store.BoardKey(*after)
    registered_only = server.config.registered_only

    def read() -> list[fair_store.BoardEntry]:
        with server.store.reading() as connection:
            return fair_store.leaderboard(
                connection, limit + 1, place, registered_only=registered_only
            )

    rows = await run_in_threadpool(read)
    page, more = rows[:limit], len(rows) > limit
    config = server.config
    games = [
        {
            "rank": row.position,
            "id": row.fair_id,
            "player": row.player,
            "registered": row.registered,
            "score": row.score,
            "moves": row.moves,
            "max_tile": row.max_tile,
            "ended": iso_ms(row.finished_ms),
            "record_url": answers.record_url(row.fair_id),
            **bots.signal_fields(config, row),
        }
        for row in page
    ]
    thresholds = bots.thresholds(config)
    key = page[-1].key if more else None
    following = None if key is None else cursors.encode("leaderboard", attrs.astuple(key))
    return JSON(
        {
            "games": games,
            "registered_only": config.registered_only,
            "bot_thresholds": thresholds,
            "next_cursor": following,
        }
    )


def _cursor(request: Request, kind: str, count: int) -> tuple[int, ...] | None:
    """The ``cursor`` query parameter of list ``kind`` (None: the first page), or 400."""
    raw = request.query_params.get("cursor")
    return None if raw is None else cursors.decode(kind, raw, count)


async def submit_record(request: Request, server: Server) -> Response:
    """Charged to the address first, then read and verified in the record pool, then stored."""
    await server.charge(quotas.SUBMIT_RECORD, parsing.quota_subject(request))
    body = await parsing.read_body(request, server.config.max_record_bytes)
    checked = await server.records.check(body)
    job = write_jobs.SubmitRecord(checked.record, checked.result)
    return JSON(await server.writer.run(job), status_code=201)


async def list_records(request: Request, server: Server) -> Response:
    limit = parsing.limit_param(request, default=10, high=MAX_PAGE)
    after = _cursor(request, "records", 3)
    place = None if after is None else fair_store.SubmittedKey(*after)

    def read() -> list[fair_store.SubmittedEntry]:
        with server.store.reading() as connection:
            return fair_store.submitted(connection, limit + 1, place)

    rows = await run_in_threadpool(read)
    page, more = rows[:limit], len(rows) > limit
    records = [
        {
            "id": entry.game_id,
            "player": entry.player,
            "score": entry.score,
            "moves": entry.moves,
            "max_tile": entry.max_tile,
            "seed": entry.seed,
        }
        for entry in page
    ]
    following = None if not more else cursors.encode("records", attrs.astuple(page[-1].key))
    return JSON({"self_seeded": True, "records": records, "next_cursor": following})
