"""Writing to the store: new games, appends with optimistic concurrency, bulk imports.

Every write updates the game's projection (score, max tile, board, flags)
in the same transaction as the log rows, from a state the engine computed,
so the projection is always a replay of the log (``twenty48 check``
re-derives it to prove that).  The projection includes the SHA-256 of the
move string (``log_digests``); an append carries the digest it expects to
replace, so a projection changed behind the store's back is not extended.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from twenty48_replay.errors import ConflictError, DamagedGameError, GameNotFoundError
from twenty48_replay.game import GameState
from twenty48_replay.record import VERSION, dumps_value
from twenty48_replay.store import dialects
from twenty48_replay.store.tables import games, log_digests, moves


def projection(state: GameState) -> dict[str, Any]:
    """The projection columns of a game state."""
    return {
        "move_count": state.moves,
        "score": state.score,
        "max_tile": state.max_tile,
        "board": f"{state.board.packed:020x}",
        "won": state.won,
        "over": state.over,
    }


def create_game(
    connection: Connection,
    state: GameState,
    *,
    player: str | None,
    now_ms: int,
    created_ms: int | None = None,
    updated_ms: int | None = None,
    assisted: bool = False,
    extra: dict[str, Any] | None = None,
    digest: str,
) -> int:
    """Insert a game row for ``state`` and its log digest (moves bulk-inserted next, if any).

    ``created_ms`` / ``updated_ms`` default to ``now_ms``; an imported record
    gives its own start and end instead (see :func:`record_times`).

    ``extra`` is stored as ASCII JSON, so lone surrogates and NUL survive on
    every backend (``\\udXXX`` escapes read back to the same string).
    """
    result = connection.execute(
        games.insert().values(
            seed=state.seed,
            rules_version=VERSION,
            player=player,
            created_ms=now_ms if created_ms is None else created_ms,
            updated_ms=now_ms if updated_ms is None else updated_ms,
            assisted=assisted,
            extra=None if extra is None else dumps_value(extra, ensure_ascii=True),
            **projection(state),
        )
    )
    key = result.inserted_primary_key
    assert key is not None
    game_id = int(key[0])
    connection.execute(log_digests.insert().values(game_id=game_id, digest=digest))
    return game_id


def append_move(
    connection: Connection,
    game_id: int,
    expected_moves: int,
    letter: str,
    after: GameState,
    now_ms: int,
    *,
    digests: tuple[str, str],
    assisted: bool = False,
) -> None:
    """Append move ``expected_moves + 1`` and its projection, or raise a conflict.

    The projection row is updated only where its move count is still the one
    the caller read (compare-and-set); the sequence trigger and the primary
    key back this up inside the database.  ``digests`` is (the log digest
    the caller read, the digest with this move); a stored digest other than
    the first means the projection was changed outside the store.
    """
    values: dict[str, Any] = {**projection(after), "updated_ms": now_ms}
    if assisted:
        values["assisted"] = True
    changed = connection.execute(
        update(games)
        .where(games.c.id == game_id, games.c.move_count == expected_moves)
        .values(**values)
    ).rowcount
    if changed != 1:
        actual = connection.execute(
            select(games.c.move_count).where(games.c.id == game_id)
        ).scalar_one_or_none()
        if actual is None:
            raise GameNotFoundError(game_id)
        raise ConflictError(game_id, expected_moves, actual)
    before, after_digest = digests
    changed = connection.execute(
        update(log_digests)
        .where(log_digests.c.game_id == game_id, log_digests.c.digest == before)
        .values(digest=after_digest)
    ).rowcount
    if changed != 1:
        raise DamagedGameError(game_id, ["its log digest changed outside the store"])
    connection.execute(
        moves.insert().values(
            game_id=game_id, seq=expected_moves + 1, direction=letter, played_ms=now_ms
        )
    )


def mark_assisted(connection: Connection, game_id: int) -> None:
    """Record that hints were used in a game."""
    connection.execute(update(games).where(games.c.id == game_id).values(assisted=True))


def insert_moves(connection: Connection, game_id: int, letters: str) -> None:
    """Bulk-insert a whole move string for a new game (imports)."""
    rows = [(game_id, seq, letter, None) for seq, letter in enumerate(letters, 1)]
    if rows:
        dialects.bulk_insert_moves(connection, rows)


def count_moves(connection: Connection, game_id: int) -> int:
    """Rows in the log of one game."""
    return int(
        connection.execute(
            select(func.count()).select_from(moves).where(moves.c.game_id == game_id)
        ).scalar_one()
    )
