"""Refusals the API answers with a status code and a JSON reason."""

from __future__ import annotations

from collections.abc import Mapping

from twenty48_replay.i18n import N_


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx) and a one-line ``reason``.

    The reason goes to the client as ``{"error": reason}``; it never holds a
    secret (server seed, token).
    """

    def __init__(
        self,
        status: int,
        reason: str,
        template: str | None = None,
        values: Mapping[str, object] | None = None,
    ) -> None:
        self.status = status
        self.reason = reason
        #: For a person's page (error_page): the reason's English template (marked for the
        #: catalog) and its values; None when ``reason`` itself is the message id.
        self.template = template
        self.values = dict(values or {})
        super().__init__(f"{status}: {reason}")


def not_found(fair_id: int) -> ApiError:
    """404 for an unknown game id."""
    template = N_("no game with id {id}")
    return ApiError(404, template.format(id=fair_id), template, {"id": fair_id})


def conflict(reason: str) -> ApiError:
    """409: the request does not fit the game's current state."""
    return ApiError(409, reason)
