"""The server's web pages: ``/`` (play), ``/leaderboard``, ``/games/{id}`` and ``/static/``.

The pages are thin: the play and leaderboard pages are HTML shells
(:mod:`.shells`, one per language: the reader's, see :mod:`.language`) whose
ES modules (``web/js``) talk to the same JSON API as every other client,
and ``/games/{id}`` is the self-verifying document of the HTML export
(:mod:`twenty48_replay.web.page`) built from the game's signed record, with
this server's key set (every key it signed with, and when) as the trusted
keys.  Nothing here reveals more than the API does: an unfinished game has
no replay page (its record, and the server seed in it, do not exist yet).

Refusals are the API's (``{"error": reason}`` with a 4xx), so a bad id or
an unknown file is a 404 like any unknown path; a browser (``Accept`` naming
HTML) gets the same status as a small HTML page (:mod:`.error_page`).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from typing import Any, Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from twenty48_replay.core.i18n import ENGLISH, N_
from twenty48_replay.server.api_errors import ApiError, not_found
from twenty48_replay.server.http import csp, error_page, parsing, shells
from twenty48_replay.server.http.assets import AssetIndex, etag_matches
from twenty48_replay.server.http.language import cookie_header, page_language
from twenty48_replay.server.parts import Server
from twenty48_replay.store import fair_games as fair_store

PageHandler = Callable[[Request, Server], Awaitable[Response]]
Wrap = Callable[[PageHandler], Callable[[Request], Awaitable[Response]]]

HTML: Final = "text/html; charset=utf-8"
#: Pages and assets are revalidated on every use (a cheap 304): after an upgrade the
#: modules a page imports can never be a mix of old and new files.
REVALIDATE: Final = "no-cache"


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _cached_or(
    request: Request, body: bytes, media_type: str, etag: str, headers: dict[str, str]
) -> Response:
    """``body`` with its validators, or 304 when the client already holds it."""
    headers = {**headers, "ETag": etag, "Cache-Control": REVALIDATE}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def html_page(request: Request, html: str, policy: dict[str, str] | None = None) -> Response:
    """An HTML page with the security headers and a strict policy."""
    body = html.encode("utf-8")
    return _cached_or(request, body, HTML, _etag(body), csp.security_headers(policy))


def wants_json(request: Request) -> bool:
    """A client that asks for JSON and not HTML (API clients at ``/``)."""
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "text/html" not in accept


def html_errors(handler: PageHandler) -> PageHandler:
    """``handler`` whose refusals a browser sees as an HTML page; other clients get the JSON."""

    async def guarded(request: Request, server: Server) -> Response:
        try:
            return await handler(request, server)
        except ApiError as refusal:
            if not error_page.wants_html(request):
                raise
            language, remember = page_language(request)
            return error_page.response(
                refusal.status, error_page.said(refusal, language), language, remember
            )

    return guarded


def routes(wrap: Wrap, json_index: PageHandler) -> list[Route]:
    """The page routes; ``wrap`` is the app's error boundary, ``json_index`` the API's ``/``."""
    index = AssetIndex()

    async def play(request: Request, server: Server) -> Response:
        if wants_json(request):
            return await json_index(request, server)
        return _in_language(request, shells.play_page)

    async def leaderboard(request: Request, _server: Server) -> Response:
        return _in_language(request, shells.leaderboard_page)

    async def js_file(request: Request, _server: Server) -> Response:
        return _asset(request, index, "js")

    async def static_file(request: Request, _server: Server) -> Response:
        return _asset(request, index, "static")

    def page(handler: PageHandler) -> Callable[[Request], Awaitable[Response]]:
        return wrap(html_errors(handler))

    return [
        Route("/", page(play), methods=["GET"]),
        Route("/leaderboard", page(leaderboard), methods=["GET"]),
        Route("/games/{id}", page(game_page), methods=["GET"]),
        Route("/static/js/{name}", page(js_file), methods=["GET"]),
        Route("/static/{name}", page(static_file), methods=["GET"]),
    ]


def _in_language(request: Request, shell: Callable[[str], str]) -> Response:
    """A page shell in the reader's language (:mod:`.language`), remembering a switch."""
    language, remember = page_language(request)
    response = html_page(request, shell(language))
    response.headers["Vary"] = "Accept-Language, Cookie"
    if remember is not None:
        response.headers["Set-Cookie"] = cookie_header(remember)
    return response


def _asset(request: Request, index: AssetIndex, folder: str) -> Response:
    name = request.path_params.get("name", "")
    asset = index.get(folder, name) if isinstance(name, str) else None
    if asset is None:
        raise ApiError(404, "no such file")
    headers = {"X-Content-Type-Options": "nosniff", "Cross-Origin-Resource-Policy": "same-origin"}
    return _cached_or(request, asset.body, asset.media_type, asset.etag, headers)


async def finished_record(request: Request, server: Server, unfinished: str) -> str:
    """The signed record of the finished game the path names (404 unknown, 409 ``unfinished``).

    One lookup for the JSON record (``GET /api/games/{id}/record``) and its replay page.
    """
    fair_id = parsing.game_id(request)

    def read() -> fair_store.FairRow | None:
        with server.store.reading() as connection:
            return fair_store.load(connection, fair_id)

    row = await run_in_threadpool(read)
    if row is None:
        raise not_found(fair_id)
    if row.finished_ms is None or row.record is None:
        raise ApiError(409, unfinished)
    return row.record


async def game_page(request: Request, server: Server) -> Response:
    """The replay page of a finished game, verified in the browser against this server's key."""
    record = await finished_record(
        request, server, N_("the game is not finished; its replay page exists when it ends")
    )
    language, remember = page_language(request)
    trusted = await run_in_threadpool(server.key_document)
    html, policy = await run_in_threadpool(
        served_replay, record, json.dumps(trusted, sort_keys=True), language
    )
    response = html_page(request, html, dict(policy))
    response.headers["Vary"] = "Accept-Language, Cookie"
    if remember is not None:
        response.headers["Set-Cookie"] = cookie_header(remember)
    return response


#: Replay pages kept built: a finished game's signed record never changes, and building
#: one (bundling the modules, hashing the inline code) takes ~20 ms of CPU.
REPLAY_CACHE_SIZE: Final = 64


@functools.lru_cache(maxsize=REPLAY_CACHE_SIZE)
def served_replay(
    record_text: str, key_set: str, language: str = ENGLISH
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The replay page of a record in ``language`` and its Content-Security-Policy (as items:
    immutable).

    ``key_set`` is the server's key set document as JSON text (a new rotation or
    revocation is a new text, so a cached page never outlives the keys it trusts).
    """
    html = replay_document(record_text, json.loads(key_set), language)
    return html, tuple(csp.inline_policy(html).items())


def replay_document(
    record_text: str, trusted: bytes | Mapping[str, Any], language: str = ENGLISH
) -> str:
    """The export's self-verifying page for a stored signed record, trusting ``trusted``
    (a raw public key, or a key set document: every key the server signed with), in
    ``language``, under the site's header (the same as every other page's, its style
    inlined: the page loads nothing)."""
    from twenty48_replay.web import page  # the page builder and its bundle load on first use

    return page.replay_page(
        record_text,
        trusted_key=trusted,
        language=language,
        site_header=(shells.site_header(language), site_header_css()),
    )


@functools.cache
def site_header_css() -> str:
    """The site header's stylesheet (``web/static/site_header.css``)."""
    folder = resources.files("twenty48_replay").joinpath("web", "static")
    return folder.joinpath("site_header.css").read_text(encoding="utf-8")
