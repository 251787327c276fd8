"""Refusals the API answers with a status code and a JSON reason."""

from __future__ import annotations


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx) and a one-line ``reason``.

    The reason goes to the client as ``{"error": reason}``; it never holds a
    secret (server seed, token).
    """

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason
        super().__init__(f"{status}: {reason}")


def not_found(fair_id: int) -> ApiError:
    """404 for an unknown game id."""
    return ApiError(404, f"no game with id {fair_id}")


def conflict(reason: str) -> ApiError:
    """409: the request does not fit the game's current state."""
    return ApiError(409, reason)
