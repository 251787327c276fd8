"""Reading untrusted requests: bounded bodies, strict JSON, typed fields, bearer tokens.

Everything here raises :class:`ApiError` (a 4xx with a reason) and never
lets a malformed request reach the store.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from starlette.requests import ClientDisconnect, Request

from twenty48_replay.core.i18n import N_
from twenty48_replay.core.reasons import Reason, in_field
from twenty48_replay.fairplay.names import NameRefusedError, check_name
from twenty48_replay.server.api_errors import ApiError, not_found
from twenty48_replay.server.guard.transport import client_key

#: Bodies of the game endpoints (a move is ~30 bytes).
MAX_BODY: Final = 64 * 1024
MAX_TOKEN: Final = 256
MAX_ID: Final = 2**62
#: The highest move number a move request may carry.
MAX_MOVE_NUMBER: Final = 1_000_000


def _check_declared(declared: str | None, limit: int) -> None:
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, "Content-Length is not a number")
        if int(declared) > limit:
            raise ApiError(413, f"body larger than {limit} bytes")


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 past ``limit`` bytes (checked while reading)."""
    _check_declared(request.headers.get("content-length"), limit)
    chunks = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, f"body larger than {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:  # gone, or cut off by the body timeout: not a bug to log
        raise ApiError(400, "the client went away") from None
    return b"".join(chunks)


async def read_asgi_body(
    receive: Callable[[], Awaitable[MutableMapping[str, Any]]], declared: str | None, limit: int
) -> bytes:
    """:func:`read_body` on raw ASGI messages (the moves fast path)."""
    _check_declared(declared, limit)
    chunks = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ApiError(400, "the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"body larger than {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class DuplicateKeyError(ValueError):
    """A JSON object names one key twice (``{"move":"L","move":"R"}``)."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, refused when a key repeats: JSON parsers disagree on which wins,
    so a proxy or a log and this server could each read a different request."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return found


#: Made once: ``json.loads`` with any argument builds a decoder and its scanner on every call.
_DECODER: Final = json.JSONDecoder(parse_constant=_no_constants, object_pairs_hook=_no_duplicates)


def parse_object(body: bytes) -> dict[str, Any]:
    """A JSON object, or 400 with the reason."""
    if not body:
        raise ApiError(400, "the body is empty; send a JSON object")
    try:
        text = body.decode("utf-8")
        value = _DECODER.decode(text)
    except UnicodeDecodeError:
        raise ApiError(400, "the body is not UTF-8") from None
    except DuplicateKeyError as exc:
        shown = json.dumps(str(exc))[:80]
        raise ApiError(400, f"the body names the key {shown} twice") from None
    except (ValueError, RecursionError) as exc:
        raise ApiError(400, f"the body is not JSON: {str(exc).splitlines()[0][:200]}") from None
    if not isinstance(value, dict):
        raise ApiError(400, f"the body must be a JSON object, not {type(value).__name__}")
    return value


async def json_object(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """Read and parse a bounded JSON object body."""
    return parse_object(await read_body(request, limit))


def string_field(obj: dict[str, Any], name: str) -> str:
    """A required string field, or 400."""
    if name not in obj:
        raise ApiError(400, f"field '{name}' is missing")
    value = obj[name]
    if not isinstance(value, str):
        raise ApiError(400, f"field '{name}' must be a string, not {_kind(value)}")
    return value


def int_field(obj: dict[str, Any], name: str, low: int, high: int) -> int:
    """A required integer field in ``[low, high]``, or 400."""
    if name not in obj:
        raise ApiError(400, f"field '{name}' is missing")
    value = obj[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"field '{name}' must be an integer, not {_kind(value)}")
    if not low <= value <= high:
        raise ApiError(400, f"field '{name}' must be between {low} and {high}")
    return value


def move_fields(obj: dict[str, Any]) -> tuple[str, int]:
    """A move request's body: ``{"move": "U"|"D"|"L"|"R", "n": the move's number}``.

    The one reader of a move body, for both entrances (the fast path and the
    Starlette route), so both refuse the same bodies with the same reasons.
    """
    letter = string_field(obj, "move")
    if letter not in ("U", "D", "L", "R"):
        raise ApiError(400, "field 'move' must be one of U, D, L, R")
    return letter, int_field(obj, "n", 1, MAX_MOVE_NUMBER)


def player_name(obj: dict[str, Any], field: str = "player") -> str:
    """A player's name (``field`` of the body), trimmed; 422 for a name the rules refuse.

    The rules are :func:`twenty48_replay.fairplay.names.check_name`'s: 1-64
    characters, no invisible, filler or format character, few combining
    marks.
    """
    try:
        return check_name(string_field(obj, field))
    except NameRefusedError as exc:
        raise ApiError(422, in_field(field, exc.reason)) from None


def optional_bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header, None without the header."""
    header = request.headers.get("authorization")
    return None if header is None else token_from_header(header)


def game_id(request: Request) -> int:
    """The ``{id}`` of the path as a positive integer, or 404."""
    raw = request.path_params.get("id", "")
    if not (isinstance(raw, str) and raw.isdigit() and raw.isascii() and len(raw) < 19):
        raise ApiError(404, N_("no game with that id"))
    value = int(raw)
    if not 1 <= value <= MAX_ID:
        raise not_found(value)
    return value


def bearer_token(request: Request) -> str:
    """The token of ``Authorization: Bearer TOKEN``, or 401."""
    return token_from_header(request.headers.get("authorization"))


def token_from_header(header: str | None) -> str:
    """The token of an ``Authorization`` header value, or 401 (403 if it cannot be ours)."""
    if header is None:
        raise ApiError(401, "missing 'Authorization: Bearer TOKEN' header")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "the Authorization header must be 'Bearer TOKEN'")
    if len(token) > MAX_TOKEN or not token.isascii():
        raise ApiError(403, Reason("server.wrong_token"))
    return token


def quota_subject(request: Request) -> str:
    """Whom the per-address rate limits charge: the client's address, an IPv6 client's /64.

    The address is the transport's (a trusted proxy's ``X-Forwarded-For``
    included), grouped as the connection limit groups it
    (:func:`~twenty48_replay.server.guard.transport.client_key`): one IPv6
    subscriber holds a whole /64, so counted per address it would get a new
    quota with every address it picks; an IPv4-mapped address counts as its
    IPv4 address.  Every per-address quota takes its subject from here.
    """
    return client_key(request.client.host) if request.client is not None else "unknown"


def limit_param(request: Request, default: int, high: int) -> int:
    """The ``limit`` query parameter, 1..``high``, or 400."""
    raw = request.query_params.get("limit")
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) < 10):
        raise ApiError(400, f"limit must be an integer between 1 and {high}")
    value = int(raw)
    if not 1 <= value <= high:
        raise ApiError(400, f"limit must be an integer between 1 and {high}")
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }.get(type(value), type(value).__name__)
