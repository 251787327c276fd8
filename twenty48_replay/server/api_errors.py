"""Refusals the API answers with a status code and a JSON reason."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from twenty48_replay.core.reasons import Reason


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx/5xx) and a one-line ``reason``.

    The reason goes to the client as ``{"error": reason}``; it never holds a
    secret (server seed, token).  A reason given as a :class:`Reason` is also
    sent as its code with parameters, ``"error_code": {"code", "params"}``
    (SPEC 8.8), so that a page says it in its reader's language.  ``headers``
    go with the answer (``Retry-After`` of a 429 or 503).
    """

    def __init__(
        self,
        status: int,
        reason: str | Reason,
        template: str | None = None,
        values: Mapping[str, object] | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        #: The reason's code with parameters; None for a reason given as words only.
        self.code = reason if isinstance(reason, Reason) else None
        self.reason = str(reason)
        #: For a person's page (error_page): the reason's English template (marked for the
        #: catalog) and its values; None when ``reason`` itself is the message id.
        self.template = template
        self.values = dict(values or {})
        self.headers = headers or {}
        super().__init__(f"{status}: {self.reason}")

    def answer(self) -> dict[str, Any]:
        """The JSON body: ``{"error": reason}``, and ``"error_code"`` when it has a code."""
        if self.code is None:
            return {"error": self.reason}
        return {"error": self.reason, "error_code": self.code.to_json()}


def not_found(fair_id: int) -> ApiError:
    """404 for an unknown game id."""
    return ApiError(404, Reason("server.no_game", {"id": fair_id}))


def conflict(reason: str | Reason) -> ApiError:
    """409: the request does not fit the game's current state."""
    return ApiError(409, reason)


def retry_after(status: int, reason: str | Reason, seconds: float) -> ApiError:
    """A refusal that says when to try again (``Retry-After``, whole seconds, at least 1)."""
    wait = max(1, math.ceil(seconds))
    return ApiError(status, reason, headers={"Retry-After": str(wait)})


def too_many(what: Reason, seconds: float) -> ApiError:
    """429: a rate limit refused ``what`` (a ``server.quota.*`` reason); it may be sent again
    after ``seconds``."""
    wait = max(1, math.ceil(seconds))
    return retry_after(429, Reason("server.too_many", {"what": what, "seconds": wait}), wait)
