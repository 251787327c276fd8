"""Which language a served page speaks: the reader's choice, else their browser's.

The order: ``?lang=en|da`` (the page's switch; remembered in a cookie so that
the next page speaks it too), else the ``t48_lang`` cookie, else the
``Accept-Language`` header (RFC 9110 12.5.4: the highest q among the
languages there is text for; English when none is).  Everything here is
untrusted and bounded: a header longer than :data:`MAX_HEADER` characters is
read only that far, at most :data:`MAX_RANGES` ranges are looked at, and a
value that names no language is ignored.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request

from twenty48_replay.core.i18n import ENGLISH, LANGUAGES

#: The cookie that keeps the reader's choice.
COOKIE: Final = "t48_lang"
#: A year: the choice lasts until the reader switches again.
COOKIE_MAX_AGE: Final = 365 * 24 * 3600
MAX_HEADER: Final = 512
MAX_RANGES: Final = 20


def from_accept_language(header: str) -> str:
    """The best language of an ``Accept-Language`` value (``da, en;q=0.8`` -> ``da``)."""
    best, best_q = ENGLISH, 0.0
    for item in header[:MAX_HEADER].split(",")[:MAX_RANGES]:
        tag, _, params = item.strip().partition(";")
        primary = tag.strip().lower().split("-", 1)[0]
        quality = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                quality = float(value.strip()[:5])
            except ValueError:
                continue
        if primary in LANGUAGES and 0.0 < quality <= 1.0 and quality > best_q:
            best, best_q = primary, quality
    return best


def page_language(request: Request) -> tuple[str, str | None]:
    """The page's language, and the value to remember in the cookie (None: keep it)."""
    asked = request.query_params.get("lang", "")
    if asked in LANGUAGES:
        return asked, asked
    kept = request.cookies.get(COOKIE, "")
    if kept in LANGUAGES:
        return kept, None
    return from_accept_language(request.headers.get("accept-language", "")), None


def cookie_header(language: str) -> str:
    """The ``Set-Cookie`` value that remembers ``language`` for every page of the site."""
    return f"{COOKIE}={language}; Max-Age={COOKIE_MAX_AGE}; Path=/; SameSite=Lax"


__all__ = ["COOKIE", "cookie_header", "from_accept_language", "page_language"]
