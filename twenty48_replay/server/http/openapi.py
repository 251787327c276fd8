"""The API described as OpenAPI 3.1, served at ``/openapi.json`` (written by hand, kept short)."""

from __future__ import annotations

from functools import cache
from typing import Any

from twenty48_replay import __version__

#: The most entries one page of a list holds (``limit``); ``cursor`` gives the next page.
MAX_PAGE = 100

_ERROR = {"$ref": "#/components/schemas/Error"}
_BOARD = {
    "type": "array",
    "items": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4},
    "minItems": 4,
    "maxItems": 4,
}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    reasons = {
        400: "malformed request (not JSON, wrong types, out of range)",
        401: "missing or malformed bearer token (or secret of a registered name)",
        403: "wrong token for this game, wrong secret for a name, or a banned name",
        404: "no such game",
        409: "does not fit the game's state (already started, n already used by another "
        "move, not started, finished, not finished), or a name that looks the same as a "
        "registered one",
        413: "body too large (a record: over --max-record-bytes, or its unknown keys over "
        "--max-record-extra-bytes of canonical JSON)",
        422: "refused by the rules (a move that changes nothing, an invalid record, a name "
        "with invisible, filler or format characters)",
        429: "over a rate limit (games, records and name registrations per client address, "
        "moves per game); Retry-After gives the seconds to wait; nothing was done",
        503: "busy (the database could not take the write, or every record checker is "
        "taken); nothing was stored; retry, after Retry-After when given",
    }
    answers = {str(code): _json(_ERROR, reasons[code]) for code in codes}
    for code in (429, 503):
        if str(code) in answers:
            answers[str(code)]["headers"] = {
                "Retry-After": {
                    "description": "seconds to wait before trying again",
                    "schema": {"type": "integer", "minimum": 1},
                }
            }
    return answers


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"type": "object", "properties": properties, "required": required}
            }
        },
    }


_ID = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
_AUTH: list[dict[str, list[str]]] = [{"bearer": []}]
_LIMIT = [
    {
        "name": "limit",
        "in": "query",
        "description": "entries on this page",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 10},
    },
    {
        "name": "cursor",
        "in": "query",
        "description": "where the page starts: the next_cursor of the page before (opaque; "
        "absent: the first page); a cursor this list did not give is a 400",
        "schema": {"type": "string", "maxLength": 200, "pattern": "^[A-Za-z0-9_-]+$"},
    },
]
_NEXT = {
    "next_cursor": {
        "type": ["string", "null"],
        "description": "the cursor of the next page, null on the last page",
    }
}
_STATE = {
    "type": "object",
    "properties": {
        "board": _BOARD,
        "score": {"type": "integer"},
        "moves": {"type": "integer"},
        "max_tile": {"type": "integer"},
        "won": {"type": "boolean"},
        "over": {"type": "boolean"},
    },
}


@cache
def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of the server."""
    paths: dict[str, Any] = {
        "/api/players": {
            "post": {
                "summary": "Register a player name; the answer holds its secret, once",
                "requestBody": _body({"name": {"type": "string", "maxLength": 64}}, ["name"]),
                "responses": {
                    "201": _json(
                        {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "secret": {"type": "string"},
                            },
                        },
                        "the name as registered and its secret (send it as 'Authorization: "
                        "Bearer' on POST /api/games); the server keeps only its hash",
                    ),
                    **_errors(400, 403, 409, 413, 422, 503),
                },
            }
        },
        "/api/games": {
            "post": {
                "summary": "New fair game: the server seed is drawn and committed",
                "description": "A registered name needs its secret as 'Authorization: Bearer'.",
                "requestBody": _body({"player": {"type": "string", "maxLength": 64}}, ["player"]),
                "responses": {
                    "201": _json(
                        {
                            "type": "object",
                            "properties": {
                                "id": {"type": "integer"},
                                "token": {"type": "string"},
                                "commitment": {"type": "string"},
                                "registered": {"type": "boolean"},
                            },
                        },
                        "the game id, its bearer token and the commitment (SHA-256 of the "
                        "server seed); whether the name is registered; a game not started "
                        "within the unstarted expiry (10 minutes by default) is removed",
                    ),
                    **_errors(400, 401, 403, 409, 413, 422, 429, 503),
                },
            }
        },
        "/api/games/{id}": {
            "get": {
                "summary": "Public state of a game (the server seed only once finished; "
                "'abandoned' once finished: true when the server finished it because no move "
                "came for the idle time, 24 h by default)",
                "parameters": _ID,
                "responses": {"200": _json(_STATE, "the game"), **_errors(404)},
            }
        },
        "/api/games/{id}/start": {
            "post": {
                "summary": "Send the client seed; once per game",
                "parameters": _ID,
                "security": _AUTH,
                "requestBody": _body(
                    {"client_seed": {"type": "string", "minLength": 1, "maxLength": 128}},
                    ["client_seed"],
                ),
                "responses": {
                    "200": _json(_STATE, "the opening board"),
                    **_errors(400, 401, 403, 404, 409, 422, 503),
                },
            }
        },
        "/api/games/{id}/moves": {
            "post": {
                "summary": "Play move number n; retrying the same n and move is answered again "
                "and never applied twice",
                "parameters": _ID,
                "security": _AUTH,
                "requestBody": _body(
                    {
                        "move": {"type": "string", "enum": ["U", "D", "L", "R"]},
                        "n": {"type": "integer", "minimum": 1},
                    },
                    ["move", "n"],
                ),
                "responses": {
                    "200": _json(
                        {
                            "allOf": [_STATE],
                            "properties": {
                                "n": {"type": "integer"},
                                "move": {"type": "string"},
                                "gained": {"type": "integer"},
                                "spawn": {
                                    "type": "object",
                                    "properties": {
                                        "cell": {"type": "integer"},
                                        "value": {"type": "integer"},
                                    },
                                },
                                "finished": {"type": "boolean"},
                                "record_url": {"type": "string"},
                            },
                        },
                        "the board after the move and its spawn, sent after the commit",
                    ),
                    **_errors(400, 401, 403, 404, 409, 413, 422, 429, 503),
                },
            }
        },
        "/api/games/{id}/finish": {
            "post": {
                "summary": "End the game (automatic at game over): sign it, reveal the server seed",
                "parameters": _ID,
                "security": _AUTH,
                "responses": {
                    "200": _json(_STATE, "final state, server_seed, client_seed, record_url"),
                    **_errors(401, 403, 404, 409, 503),
                },
            }
        },
        "/api/games/{id}/record": {
            "get": {
                "summary": "The signed record of a finished game",
                "parameters": _ID,
                "responses": {
                    "200": _json({"type": "object"}, "a v1 record with 'fair' and 'signature'"),
                    **_errors(404, 409),
                },
            }
        },
        "/api/leaderboard": {
            "get": {
                "summary": "Best finished fair games, one per player; ties: fewer moves, then "
                "earlier end; with bot signals",
                "description": "Abandoned games are never ranked.  Read a page at a time: "
                "'limit' entries from 'cursor' on.",
                "parameters": _LIMIT,
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "properties": {
                                "games": {"type": "array", "items": {"type": "object"}},
                                "bot_thresholds": {"type": "object"},
                                **_NEXT,
                            },
                        },
                        "one page of games, each with its rank",
                    ),
                    **_errors(400),
                },
            }
        },
        "/api/records": {
            "post": {
                "summary": "Submit a self-seeded record: verified, stored, listed apart",
                "description": "At most --max-record-bytes (1 MiB by default); its unknown "
                "top-level keys at most --max-record-extra-bytes (64 KiB) of canonical JSON.  "
                "Rate limited per client address.",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                "responses": {
                    "201": _json({"type": "object"}, "stored (or an exact duplicate)"),
                    **_errors(400, 413, 422, 429, 503),
                },
            },
            "get": {
                "summary": "Submitted self-seeded records, best first (never their metadata)",
                "parameters": _LIMIT,
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "properties": {
                                "self_seeded": {"type": "boolean"},
                                "records": {"type": "array", "items": {"type": "object"}},
                                **_NEXT,
                            },
                        },
                        "one page of records: id, player, score, moves, max_tile, seed",
                    ),
                    **_errors(400),
                },
            },
        },
        "/.well-known/twenty48-key": {
            "get": {
                "summary": "The server's public key (Ed25519) and its id",
                "responses": {"200": _json({"type": "object"}, "algorithm, key_id, public_key")},
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "twenty48-replay score server", "version": __version__},
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "properties": {
                        "error": {"type": "string"},
                        # The reason as a code with parameters (SPEC 8.8), where it has one.
                        "error_code": {
                            "type": "object",
                            "properties": {
                                "code": {"type": "string"},
                                "params": {"type": "object"},
                            },
                            "required": ["code", "params"],
                        },
                    },
                    "required": ["error"],
                }
            },
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
