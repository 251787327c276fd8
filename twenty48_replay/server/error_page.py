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

from twenty48_replay.server import csp

#: No script, no connections: the page is text, the two site stylesheets and the icon.
POLICY: Final = {**csp.BASE_POLICY, "script-src": "'none'", "connect-src": "'none'"}

#: Paths that are the API's however they are asked for: always a JSON error.
API_PREFIXES: Final = ("/api/", "/openapi.json", "/.well-known/")

_PAGE: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>{title} — 2048 fair play</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/theme.css">
<link rel="stylesheet" href="/static/site.css">
</head>
<body class="error">
<header class="site">
<a class="brand" href="/">2048 <span>fair play</span></a>
<nav><a href="/">Play</a><a href="/leaderboard">Leaderboard</a></nav>
</header>
<main id="error" data-status="{status}">
<h1>{title}</h1>
<p class="status" id="error-reason">{reason}</p>
<p><a href="/">Play a fair game</a> · <a href="/leaderboard">Leaderboard</a></p>
</main>
</body>
</html>
"""


def wants_html(request: Request) -> bool:
    """A browser (``Accept`` names HTML) asking for something that is not an API path."""
    if request.url.path.startswith(API_PREFIXES):
        return False
    return "text/html" in request.headers.get("accept", "").lower()


def _title(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    return f"{status} {phrase}"


#: Said instead of a reason that only repeats the status phrase (Starlette's "Not Found").
_PLAIN: Final = {404: "There is no page at this address.", 405: "This page cannot be asked for so."}


def render(status: int, reason: str) -> str:
    """The page's HTML: everything variable is escaped."""
    title = _title(status)
    if reason.strip().lower() == title.split(" ", 1)[1].lower():
        reason = _PLAIN.get(status, "")
    return _PAGE.format(
        status=status,
        title=html.escape(title),
        reason=html.escape(reason[:1].upper() + reason[1:] if reason else ""),
    )


def response(status: int, reason: str) -> Response:
    """The error page with ``status``, the security headers and a no-script policy."""
    headers = {**csp.security_headers(POLICY), "Cache-Control": "no-store"}
    return Response(
        render(status, reason),
        status_code=status,
        media_type="text/html; charset=utf-8",
        headers=headers,
    )
