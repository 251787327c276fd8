"""The score server's key history: which keys it signed with, when, and which are revoked.

All the SQL of table ``key_events`` (append-only: the database's triggers
refuse UPDATE and DELETE; each row is chained, :mod:`.log_chain`).  A key's
period of use runs from its ``current`` event to the next key's; a ``revoked`` event marks a key
withdrawn, with the operator's reason.  The rules (when a key may be made
current, what may be revoked) are the server's
(:mod:`twenty48_replay.server.key_rules`); this module only reads and
appends, inside transactions its caller owns.  The server reaches these
functions through :mod:`twenty48_replay.store.fair_games`.
"""

from __future__ import annotations

from typing import Final

import attrs
from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from twenty48_replay.store import log_chain
from twenty48_replay.store.tables import fair_games, key_events

CURRENT: Final = "current"
REVOKED: Final = "revoked"


@attrs.frozen(slots=True)
class KeyEvent:
    """One row of the key history."""

    seq: int
    at_ms: int
    event: str
    key_id: str
    public_key: str | None
    reason: str | None
    actor: str


@attrs.frozen(slots=True)
class KeyUse:
    """A key and the time it was in use (``until_ms`` None: the key in use now)."""

    key_id: str
    public_key: str
    since_ms: int
    until_ms: int | None
    revoked: KeyEvent | None


@attrs.frozen(slots=True)
class KeyHistory:
    """Every event, oldest first, and what follows from them."""

    events: tuple[KeyEvent, ...]

    @property
    def current(self) -> KeyEvent | None:
        """The ``current`` event of the key in use (the latest one), or None."""
        return next((e for e in reversed(self.events) if e.event == CURRENT), None)

    def uses(self) -> list[KeyUse]:
        """Each key that was ever current, with its period and revocation, oldest first."""
        made = [e for e in self.events if e.event == CURRENT]
        revoked = {e.key_id: e for e in self.events if e.event == REVOKED}
        return [
            KeyUse(
                event.key_id,
                event.public_key or "",
                event.at_ms,
                made[index + 1].at_ms if index + 1 < len(made) else None,
                revoked.get(event.key_id),
            )
            for index, event in enumerate(made)
        ]

    def use_of(self, key_id: str) -> KeyUse | None:
        """The period of ``key_id``, or None if it never was current."""
        return next((use for use in self.uses() if use.key_id == key_id), None)

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else 0


def key_history(connection: Connection) -> KeyHistory:
    """The whole key history (a few rows: one per rotation or revocation)."""
    rows = connection.execute(select(key_events).order_by(key_events.c.seq)).all()
    return KeyHistory(
        tuple(
            KeyEvent(
                int(row.seq),
                int(row.at_ms),
                str(row.event),
                str(row.key_id),
                None if row.public_key is None else str(row.public_key),
                None if row.reason is None else str(row.reason),
                str(row.actor),
            )
            for row in rows
        )
    )


def current_key_id(connection: Connection) -> str | None:
    """The id of the key in use, or None before the first key was recorded (one row read)."""
    query = (
        select(key_events.c.key_id)
        .where(key_events.c.event == CURRENT)
        .order_by(key_events.c.seq.desc())
        .limit(1)
    )
    value = connection.execute(query).scalar()
    return None if value is None else str(value)


def signed_keys(connection: Connection) -> dict[str, int]:
    """Each key id the stored signed records name, with the creation of its first game (ms).

    ``fair_games.key_id`` is the key the game was created under, which the
    server also signed it with unless the key was rotated in between (a
    rotation recorded in this history).
    """
    query = (
        select(fair_games.c.key_id, func.min(fair_games.c.created_ms))
        .where(fair_games.c.record.is_not(None))
        .group_by(fair_games.c.key_id)
    )
    return {str(key_id): int(first) for key_id, first in connection.execute(query).all()}


def has_signed_records(connection: Connection) -> bool:
    """Whether any finished fair game holds a signed record."""
    query = select(fair_games.c.id).where(fair_games.c.record.is_not(None)).limit(1)
    return connection.execute(query).first() is not None


def append_key_event(
    connection: Connection,
    after_seq: int,
    *,
    at_ms: int,
    event: str,
    key_id: str,
    public_key: str | None = None,
    reason: str | None = None,
    actor: str,
) -> None:
    """Append one event numbered ``after_seq + 1``.

    If another process appended meanwhile, the primary key refuses the row
    (the caller's transaction fails; it reads the history again and decides
    again), so two processes never both make a key current.
    """
    log_chain.append(
        connection,
        log_chain.KEY_HISTORY,
        {
            "seq": after_seq + 1,
            "at_ms": at_ms,
            "event": event,
            "key_id": key_id,
            "public_key": public_key,
            "reason": reason,
            "actor": actor,
        },
    )
