"""Submitted self-seeded records: stored as verified imports, listed apart, best first."""

from __future__ import annotations

import attrs
from sqlalchemy import select
from sqlalchemy.engine import Connection

from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import VerifyResult
from twenty48_replay.store import writes
from twenty48_replay.store.fair_games.leaderboard import rows_after
from twenty48_replay.store.tables import (
    games,
    submitted_records,
)


def submit_record(
    connection: Connection, record: Record, result: VerifyResult, now_ms: int
) -> tuple[int, bool]:
    """Store a verified self-seeded record and list it apart: (game id, whether a duplicate).

    An exact duplicate of a stored game is not stored again, but listed
    (once); see :func:`twenty48_replay.store.writes.import_verified`.
    """
    game_id, duplicate = writes.import_verified(connection, record, result, now_ms)
    mark_submitted(connection, game_id, now_ms)
    return game_id, duplicate


def mark_submitted(connection: Connection, game_id: int, now_ms: int) -> bool:
    """List an imported game among submitted self-seeded records (False if it already is)."""
    exists = connection.execute(
        select(submitted_records.c.game_id).where(submitted_records.c.game_id == game_id)
    ).first()
    if exists is not None:
        return False
    connection.execute(submitted_records.insert().values(game_id=game_id, submitted_ms=now_ms))
    return True


@attrs.frozen(slots=True)
class SubmittedEntry:
    """One submitted self-seeded record as the list shows it (never its metadata)."""

    game_id: int
    player: str | None
    score: int
    moves: int
    max_tile: int
    seed: str

    @property
    def key(self) -> SubmittedKey:
        """Where this entry sorts (a page's cursor is its last entry's key)."""
        return SubmittedKey(self.score, self.moves, self.game_id)


@attrs.frozen(slots=True)
class SubmittedKey:
    """A place in the list of submitted records: score, then fewer moves, then id."""

    score: int
    moves: int
    game_id: int


def submitted(
    connection: Connection, limit: int, after: SubmittedKey | None = None
) -> list[SubmittedEntry]:
    """Submitted self-seeded records, best score first (``after``: the page after that key).

    Reads the listed columns only: a record's metadata (``games.extra``,
    up to the record's whole size) is never loaded for a list.
    """
    listed = select(submitted_records.c.game_id).where(submitted_records.c.game_id == games.c.id)
    # A condition, not a join: SQLite then reads games best first from ``games_by_score``
    # and stops after the page; with a join it read every submitted record and sorted them.
    query = select(
        games.c.id,
        games.c.player,
        games.c.score,
        games.c.move_count,
        games.c.max_tile,
        games.c.seed,
    ).where(listed.exists())
    if after is not None:
        query = query.where(
            rows_after(
                (games.c.score, after.score, False),
                (games.c.move_count, after.moves, True),
                (games.c.id, after.game_id, True),
            )
        )
    query = query.order_by(games.c.score.desc(), games.c.move_count.asc(), games.c.id.asc()).limit(
        limit
    )
    return [SubmittedEntry(*row) for row in connection.execute(query).all()]
