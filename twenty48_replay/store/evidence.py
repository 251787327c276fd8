"""Fair-play evidence: what ``play --server`` keeps when a score server breaks a rule.

One row per broken game (table ``fair_evidence``): when, which server and
game, the one-line verdict, and the evidence document built by
:class:`twenty48_replay.fairplay.witness.Witness` (every answer received, in order;
the bearer token only as its SHA-256), stored as JSON text with every
non-ASCII character escaped, so any backend holds it exactly.  Nothing
here judges anything: the witness did that before the row was written.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs
from sqlalchemy import select

from twenty48_replay.core.record import dumps_value
from twenty48_replay.store.tables import fair_evidence

if TYPE_CHECKING:
    from twenty48_replay.store.store import Store


@attrs.frozen(slots=True)
class EvidenceInfo:
    """One kept report, without its (possibly large) document."""

    id: int
    saved_ms: int
    server: str
    fair_game_id: int | None
    verdict: str
    #: The verdict as a code with parameters (the document's ``verdict_code``, SPEC 8.8),
    #: from which a person reads it in their language; None when the document has none.
    verdict_code: Any = None


def save_evidence(store: Store, saved_ms: int, verdict: str, document: dict[str, Any]) -> int:
    """Keep one report in its own transaction; returns its id."""
    server = document.get("server")
    game_id = document.get("game_id")
    row = {
        "saved_ms": saved_ms,
        "server": server if isinstance(server, str) else "",
        "fair_game_id": game_id if type(game_id) is int else None,
        "verdict": verdict,
        "document": dumps_value(document, ensure_ascii=True),
    }
    with store.transaction() as connection:
        result = connection.execute(fair_evidence.insert().values(**row))
        key = result.inserted_primary_key
        assert key is not None
        return int(key[0])


def list_evidence(store: Store, limit: int) -> list[EvidenceInfo]:
    """The newest ``limit`` reports, newest first, each with its document's verdict code."""
    query = select(fair_evidence).order_by(fair_evidence.c.id.desc()).limit(limit)
    with store.reading() as connection:
        rows = connection.execute(query).all()
    return [
        EvidenceInfo(
            int(row.id),
            int(row.saved_ms),
            str(row.server),
            None if row.fair_game_id is None else int(row.fair_game_id),
            str(row.verdict),
            _verdict_code(_parsed(str(row.document))),
        )
        for row in rows
    ]


def _parsed(document: str) -> Any:
    """The stored document, or None when it is damaged."""
    try:
        return json.loads(document)
    except (ValueError, RecursionError):
        return None


def _verdict_code(document: Any) -> Any:
    """The document's ``verdict_code`` (an object), or None."""
    if isinstance(document, dict):
        code = document.get("verdict_code")
        if isinstance(code, dict):
            return code
    return None


def load_evidence(store: Store, report_id: int) -> tuple[EvidenceInfo, Any] | None:
    """One report and its document (parsed JSON), or None if there is no such report."""
    query = select(fair_evidence).where(fair_evidence.c.id == report_id)
    with store.reading() as connection:
        row = connection.execute(query).first()
    if row is None:
        return None
    document = _parsed(str(row.document))  # None when damaged: the caller says so
    info = EvidenceInfo(
        int(row.id),
        int(row.saved_ms),
        str(row.server),
        None if row.fair_game_id is None else int(row.fair_game_id),
        str(row.verdict),
        _verdict_code(document),
    )
    return info, document
