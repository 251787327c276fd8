"""``twenty48 evidence [ID]``: the reports ``play --server`` kept when a server broke a rule.

Without an id, one line per report (newest first); with one, the report's
evidence document as JSON on standard output (every answer the server
sent, in order, the bearer token only as its SHA-256), to keep or to send
to whoever runs the server.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from twenty48_replay.core.errors import Twenty48Error
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.text import json_text, printable

from .common import DbOption, local_time, open_store
from .limits import MAX_GAME_ID, MAX_LIST
from .output import emit, warn

if TYPE_CHECKING:
    from twenty48_replay.store import EvidenceInfo


class NoSuchReportError(Twenty48Error):
    """No evidence report has this id (exit 1)."""


def verdict_text(info: EvidenceInfo) -> str:
    """The verdict in the reader's language, from its stored code; the stored English words
    when the code is missing or cannot be read (a store written by hand, or by an older
    version)."""
    if info.verdict_code is None:
        return info.verdict
    try:
        return Reason.from_json(info.verdict_code).translated()
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError):
        return info.verdict


def evidence_command(
    report: Annotated[
        int | None,
        typer.Argument(
            metavar="ID",
            min=1,
            max=MAX_GAME_ID,
            help=N_("A report's id: print its evidence as JSON."),
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=MAX_LIST, help=N_("How many reports."))
    ] = 20,
    db: DbOption = None,
) -> None:
    """Fair-play evidence: what play --server kept when a server broke a rule."""
    from twenty48_replay.store import list_evidence, load_evidence

    with open_store(db) as store:
        if report is None:
            reports = list_evidence(store, limit)
            if not reports:
                warn(_("no fair-play evidence kept in {db}").format(db=printable(store.name)))
            for info in reports:
                game = "?" if info.fair_game_id is None else str(info.fair_game_id)
                emit(
                    _("{id}  {when}  {server} game {game}  {verdict}").format(
                        id=info.id,
                        when=local_time(info.saved_ms),
                        server=printable(info.server),
                        game=game,
                        verdict=printable(verdict_text(info)),
                    )
                )
            return
        found = load_evidence(store, report)
    if found is None:
        raise NoSuchReportError(_("no evidence report {id}").format(id=report))
    _info, document = found
    if document is None:
        raise NoSuchReportError(_("evidence report {id} is damaged").format(id=report))
    emit(json_text(json.dumps(document, ensure_ascii=False, indent=2)))
