"""A small HTML page for a refusal a browser asked for (``/games/99``, an unknown path).

A browser shown ``{"error": ...}`` leaves a player with raw JSON and no way
back, so page routes and unknown paths answer people with this page (same
status code, the site's look, links to Play and Leaderboard) while API
routes and clients asking for JSON keep the JSON error.  The page has no
script at all and a policy that allows none; the reason is escaped, since a
refusal may one day quote what the client sent.
"""

from __future__ import annotations

import html
from http import HTTPStatus
from typing import Final

from starlette.requests import Request
from starlette.responses import Response

from twenty48_replay.core.i18n import ENGLISH, N_, translations
from twenty48_replay.server.api_errors import ApiError
from twenty48_replay.server.http import csp
from twenty48_replay.server.http.language import cookie_header
from twenty48_replay.server.http.shells import site_header

#: No script, no connections: the page is text, the two site stylesheets and the icon.
POLICY: Final = {**csp.BASE_POLICY, "script-src": "'none'", "connect-src": "'none'"}

#: Paths that are the API's however they are asked for: always a JSON error.
API_PREFIXES: Final = ("/api/", "/openapi.json", "/.well-known/")

_PAGE: Final = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>{title} — 2048 {fair_play}</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/theme.css">
<link rel="stylesheet" href="/static/site.css">
<link rel="stylesheet" href="/static/site_header.css">
</head>
<body class="error">
{header}<main id="error" data-status="{status}">
<h1>{title}</h1>
<p class="status" id="error-reason">{reason}</p>
<p><a href="/">{play_fair}</a> · <a href="/leaderboard">{leaderboard}</a></p>
</main>
</body>
</html>
"""


def wants_html(request: Request) -> bool:
    """A browser (``Accept`` names HTML) asking for something that is not an API path."""
    if request.url.path.startswith(API_PREFIXES):
        return False
    return "text/html" in request.headers.get("accept", "").lower()


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


#: The status phrases a page can show, marked for the catalog (HTTP's own words in English).
_PHRASES: Final = (
    N_("Bad Request"),
    N_("Not Found"),
    N_("Method Not Allowed"),
    N_("Conflict"),
    N_("Content Too Large"),
    N_("Request Entity Too Large"),
    N_("Too Many Requests"),
    N_("Internal Server Error"),
    N_("Service Unavailable"),
    N_("Error"),
)

#: Said instead of a reason that only repeats the status phrase (Starlette's "Not Found").
_PLAIN: Final = {
    404: N_("There is no page at this address."),
    405: N_("This page cannot be asked for so."),
}


def said(refusal: ApiError, language: str) -> str:
    """A refusal's reason in ``language`` (its template's translation, else its words')."""
    tr = translations(language).gettext
    if refusal.code is not None:
        return refusal.code.render(tr)
    if refusal.template is not None:
        return tr(refusal.template).format(**refusal.values)
    return tr(refusal.reason)


def render(status: int, reason: str, language: str = ENGLISH) -> str:
    """The page's HTML in ``language`` (``reason`` already in it), everything escaped."""
    tr = translations(language).gettext
    phrase = _phrase(status)
    if reason.strip().lower() in (phrase.lower(), tr(phrase).lower()):
        plain = _PLAIN.get(status)
        reason = "" if plain is None else tr(plain)
    return _PAGE.format(
        lang=language,
        status=status,
        title=html.escape(f"{status} {tr(phrase)}"),
        reason=html.escape(reason[:1].upper() + reason[1:] if reason else ""),
        fair_play=html.escape(tr(N_("fair play"))),
        header=site_header(language),
        leaderboard=html.escape(tr(N_("Leaderboard"))),
        play_fair=html.escape(tr(N_("Play a fair game"))),
    )


def response(
    status: int, reason: str, language: str = ENGLISH, remember: str | None = None
) -> Response:
    """The error page with ``status`` in ``language``, the security headers and a no-script
    policy (it varies with the reader's language).

    The header has the site's English/Dansk switch as every other page has;
    ``remember`` (from :func:`~twenty48_replay.server.http.language.page_language`)
    keeps a switch's choice in the language cookie, as they do.
    """
    headers = {
        **csp.security_headers(POLICY),
        "Cache-Control": "no-store",
        "Vary": "Accept-Language, Cookie",
    }
    if remember is not None:
        headers["Set-Cookie"] = cookie_header(remember)
    return Response(
        render(status, reason, language),
        status_code=status,
        media_type="text/html; charset=utf-8",
        headers=headers,
    )
