"""The web assets the server hands out: ``web/js`` and ``web/static`` of the package, read once.

Only files listed in those two folders when the index is built can ever be
served, looked up by their exact name: a request path is never joined to
a directory, so ``..``, encoded slashes or absolute paths cannot reach
anything else (they are simply not in the index).  Each asset carries its
MIME type and a strong ETag (a hash of its bytes) for revalidation.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from importlib.abc import Traversable
from typing import Final

import attrs

#: MIME type of each extension served; a file with any other extension is not served.
MIME_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
}

#: Names that may be served: no path separators, no leading dot.
_NAME: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")

#: The folders of the package served, by the URL prefix they appear under.
FOLDERS: Final = {"js": ("web", "js"), "static": ("web", "static")}


@attrs.frozen(slots=True)
class Asset:
    """One file's bytes, MIME type and ETag."""

    body: bytes
    media_type: str
    etag: str


def _suffix(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _folder(parts: tuple[str, ...]) -> Traversable:
    return resources.files("twenty48_replay").joinpath(*parts)


def load_folder(parts: tuple[str, ...]) -> dict[str, Asset]:
    """Every servable file directly in the package folder ``parts`` (none if it is missing)."""
    folder = _folder(parts)
    found: dict[str, Asset] = {}
    if not folder.is_dir():
        return found
    for entry in folder.iterdir():
        name = entry.name
        media_type = MIME_TYPES.get(_suffix(name))
        if media_type is None or not _NAME.fullmatch(name) or not entry.is_file():
            continue
        found[name] = make_asset(entry.read_bytes(), media_type)
    return found


def make_asset(body: bytes, media_type: str) -> Asset:
    """An asset with its ETag."""
    return Asset(body, media_type, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')


#: Name (under ``/static/``) of the whole stylesheet of the web pages: the pictures'
#: palette as CSS, then ``web/static/style.css`` (:func:`twenty48_replay.web.theme.stylesheet`),
#: the same text the exported page inlines, so the board looks the same everywhere.
THEME: Final = "theme.css"


def generated() -> dict[str, Asset]:
    """The assets made from code rather than read from a file."""
    from twenty48_replay.web import theme

    return {THEME: make_asset(theme.stylesheet().encode("utf-8"), MIME_TYPES[".css"])}


class AssetIndex:
    """The assets of every folder, loaded on first use and kept for the process's life."""

    def __init__(self) -> None:
        self._folders: dict[str, dict[str, Asset]] | None = None

    def get(self, folder: str, name: str) -> Asset | None:
        """The asset ``name`` of ``folder`` ("js" or "static"), or None."""
        if self._folders is None:
            folders = {key: load_folder(parts) for key, parts in FOLDERS.items()}
            folders["static"].update(generated())
            self._folders = folders
        return self._folders.get(folder, {}).get(name)


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak forms and ``*`` included)."""
    if not if_none_match:
        return False
    for candidate in if_none_match.split(","):
        tag = candidate.strip()
        if tag == "*" or tag.removeprefix("W/") == etag:
            return True
    return False
