"""Refusals the API answers with a status code and a JSON reason."""

from __future__ import annotations

import math
from collections.abc import Mapping

from twenty48_replay.core.i18n import N_


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx/5xx) and a one-line ``reason``.

    The reason goes to the client as ``{"error": reason}``; it never holds a
    secret (server seed, token).  ``headers`` go with the answer
    (``Retry-After`` of a 429 or 503).
    """

    def __init__(
        self,
        status: int,
        reason: str,
        template: str | None = None,
        values: Mapping[str, object] | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.reason = reason
        #: For a person's page (error_page): the reason's English template (marked for the
        #: catalog) and its values; None when ``reason`` itself is the message id.
        self.template = template
        self.values = dict(values or {})
        self.headers = headers or {}
        super().__init__(f"{status}: {reason}")


def not_found(fair_id: int) -> ApiError:
    """404 for an unknown game id."""
    template = N_("no game with id {id}")
    return ApiError(404, template.format(id=fair_id), template, {"id": fair_id})


def conflict(reason: str) -> ApiError:
    """409: the request does not fit the game's current state."""
    return ApiError(409, reason)


def retry_after(status: int, reason: str, seconds: float) -> ApiError:
    """A refusal that says when to try again (``Retry-After``, whole seconds, at least 1)."""
    wait = max(1, math.ceil(seconds))
    return ApiError(status, reason, headers={"Retry-After": str(wait)})


def too_many(what: str, seconds: float) -> ApiError:
    """429: a rate limit refused ``what``; it may be sent again after ``seconds``."""
    wait = max(1, math.ceil(seconds))
    return retry_after(429, f"too many {what}; try again in {wait} s", wait)
