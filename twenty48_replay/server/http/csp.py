"""Content-Security-Policy and the other security headers of the web pages.

Every page is served with ``script-src 'self'``: no inline script runs
unless the server itself hashed it.  The play and leaderboard pages have
no inline code at all.  The replay page is the self-contained document of
the HTML export (its code and record are inline so that it also works from
``file://``); its executable inline scripts and style elements are hashed
here and only those hashes are allowed, so nothing injected into it could
run.  Data blocks (``<script type="application/json">``) are never run by
a browser and need no hash.
"""

from __future__ import annotations

import base64
import hashlib
from html.parser import HTMLParser
from typing import Final

#: The policy of a page served from the product's own files.
BASE_POLICY: Final = {
    "default-src": "'none'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "font-src": "'self'",
    "manifest-src": "'self'",
    "base-uri": "'none'",
    "form-action": "'none'",
    "frame-ancestors": "'none'",
}

#: Script types a browser executes (the empty string is a missing ``type``).
_EXECUTABLE: Final = frozenset(
    {"", "module", "text/javascript", "application/javascript", "text/ecmascript"}
)


def policy_text(policy: dict[str, str]) -> str:
    """The header value of a policy."""
    return "; ".join(f"{name} {value}" for name, value in policy.items())


def security_headers(policy: dict[str, str] | None = None) -> dict[str, str]:
    """Headers every HTML page carries."""
    return {
        "Content-Security-Policy": policy_text(policy or BASE_POLICY),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "Cross-Origin-Opener-Policy": "same-origin",
    }


def _hash_source(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


class _InlineCode(HTMLParser):
    """Collects the text of executable inline scripts and of style elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._current: list[str] | None = None
        self._parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: (value or "") for name, value in attrs}
        if tag == "script" and "src" not in values:
            kind = values.get("type", "").strip().lower()
            self._current = self.scripts if kind in _EXECUTABLE else None
            self._parts = []
        elif tag == "style":
            self._current = self.styles
            self._parts = []

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._current is not None:
            self._current.append("".join(self._parts))
        if tag in ("script", "style"):
            self._current = None


def inline_policy(html: str) -> dict[str, str]:
    """:data:`BASE_POLICY` plus the hashes of ``html``'s own inline scripts and styles.

    The page makes no request at all (``connect-src 'none'``).
    """
    parser = _InlineCode()
    parser.feed(html)
    parser.close()
    policy = dict(BASE_POLICY)
    scripts = " ".join(sorted({_hash_source(text) for text in parser.scripts}))
    styles = " ".join(sorted({_hash_source(text) for text in parser.styles}))
    policy["script-src"] = f"'self' {scripts}".strip()
    policy["style-src"] = f"'self' {styles}".strip()
    policy["connect-src"] = "'none'"
    return policy
