"""Writing to the store: new games, the compare-and-set append, imports of verified records.

Every write updates the game's projection (score, max tile, board, flags)
in the same transaction as the log rows, from a state the engine computed,
so the projection is always a replay of the log (``twenty48 check``
re-derives it to prove that).  The projection includes the SHA-256 of the
move string (``log_digests``); an append carries the digest it expects to
replace, so a projection changed behind the store's back is not extended.

:func:`append_moves` is the one append: local play appends one move at a
time through :func:`append_move`, the score server many games' moves at
once through :mod:`twenty48_replay.store.fair_games`.  Every function here
runs inside a transaction its caller owns.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import attrs
from sqlalchemy import select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from twenty48_replay.core.errors import ConflictError, DamagedGameError, GameNotFoundError
from twenty48_replay.core.game import GameState
from twenty48_replay.core.record import VERSION, Record, dumps_value
from twenty48_replay.core.replay import VerifyResult
from twenty48_replay.core.timestamps import record_times
from twenty48_replay.store import dialects, reads
from twenty48_replay.store.tables import board_text, games, log_digests


def projection(state: GameState) -> dict[str, Any]:
    """The projection columns of a game state."""
    return {
        "move_count": state.moves,
        "score": state.score,
        "max_tile": state.max_tile,
        "board": board_text(state.board),
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


def import_verified(
    connection: Connection, record: Record, result: VerifyResult, now_ms: int
) -> tuple[int, bool]:
    """Store a record that verified as ``result``: (its new game id, False).

    An exact duplicate (same seed and moves, found by the log digest) is
    not stored again: (the stored game's id, True).  The one import of a
    record, used by ``Store.import_record`` and the server's submitted
    records alike; the caller has checked that ``result`` is valid.
    """
    duplicate = reads.find_duplicate(connection, record.seed, record.moves)
    if duplicate is not None:
        return duplicate, True
    state = GameState(record.seed, result.board, result.score, result.moves)
    extra = record.extra
    started, finished = record_times(extra)
    game_id = create_game(
        connection,
        state,
        player=record.player,
        now_ms=now_ms,
        created_ms=started,
        updated_ms=finished,
        assisted=extra.get("assisted") is True,
        extra=extra,
        digest=reads.log_digest(record.moves),
    )
    insert_moves(connection, game_id, record.moves)
    return game_id, False


def insert_moves(connection: Connection, game_id: int, letters: str) -> None:
    """Bulk-insert a whole move string for a new game (imports)."""
    rows = [(game_id, seq, letter, None) for seq, letter in enumerate(letters, 1)]
    if rows:
        dialects.bulk_insert_moves(connection, rows)


def mark_assisted(connection: Connection, game_id: int) -> None:
    """Record that hints were used in a game."""
    connection.execute(update(games).where(games.c.id == game_id).values(assisted=True))


# ------------------------------------------------------------------ appends


@attrs.frozen(slots=True)
class Append:
    """One move to append: the game, the move count it expects, the move, the projection."""

    game_id: int
    expected_moves: int
    letter: str
    moves: int
    score: int
    max_tile: int
    board: str
    won: bool
    over: bool
    now_ms: int
    #: The log digest this append expects, and the one it leaves.
    digest_before: str
    digest_after: str

    @classmethod
    def of(
        cls,
        game_id: int,
        letter: str,
        after: GameState,
        now_ms: int,
        digests: tuple[str, str],
        *,
        max_tile: int | None = None,
        won: bool | None = None,
        over: bool | None = None,
    ) -> Append:
        """The append that takes a game to ``after`` with ``letter``.

        ``digests``: the log digest before and after this move.  ``max_tile``,
        ``won`` and ``over`` are ``after``'s, given when the caller has them
        already (``over`` tries all four slides).
        """
        return cls(
            game_id=game_id,
            expected_moves=after.moves - 1,
            letter=letter,
            moves=after.moves,
            score=after.score,
            max_tile=after.max_tile if max_tile is None else max_tile,
            board=board_text(after.board),
            won=after.won if won is None else won,
            over=after.over if over is None else over,
            now_ms=now_ms,
            digest_before=digests[0],
            digest_after=digests[1],
        )


class Refused(enum.Enum):
    """Why :func:`append_moves` wrote nothing that counts (the caller rolls back)."""

    #: A game's projection row is not at the move count the append expects (or is
    #: finished, with ``unfinished_only``): another writer got there first.
    MOVED_ON = "moved on"
    #: A game's log digest is not the one the append expects: changed outside the store.
    DIGEST_CHANGED = "digest changed"


def append_moves(
    connection: Connection, appends: Sequence[Append], *, unfinished_only: bool = False
) -> Refused | None:
    """Append one move to each of several distinct games; None if every append held.

    The compare-and-set: each game's projection row is updated only where
    its move count is still the one the append expects, and its log digest
    only where it is still the digest the append read; the sequence trigger
    and the primary key of ``moves`` back this up inside the database.
    ``unfinished_only``: also only where ``extra`` is NULL (a fair game
    whose signed record is stored takes no more moves).

    Three statements whatever the number of games: one (multi-row) UPDATE
    of the projections (from a VALUES list), one of the digests, one
    (multi-row) INSERT of the moves, run as plain SQL on the driver's cursor.  Building
    the same statements with SQLAlchemy Core costs ~0.3 ms of CPU per move,
    which at thousands of moves per second is most of a core (measured
    with cProfile), and every driver call releases and re-takes Python's
    interpreter lock.  On a refusal some rows may have been updated: the
    caller must roll back.
    """
    if not appends:
        return None
    mark = dialects.param_mark(connection)
    postgres = connection.dialect.name == "postgresql"
    unfinished = " AND games.extra IS NULL" if unfinished_only else ""
    if len(appends) == 1:  # plain statements: the path of every local move, on any SQLite
        (a,) = appends
        update_sql = (
            f"UPDATE games SET move_count = {mark}, score = {mark}, max_tile = {mark}, "
            f'board = {mark}, won = {mark}, "over" = {mark}, updated_ms = {mark} '
            f"WHERE games.id = {mark} AND games.move_count = {mark}{unfinished}"
        )
        params: list[Any] = [
            a.moves,
            a.score,
            a.max_tile,
            a.board,
            a.won,
            a.over,
            a.now_ms,
            a.game_id,
            a.expected_moves,
        ]
        digest_sql = (
            f"UPDATE log_digests SET digest = {mark} "
            f"WHERE log_digests.game_id = {mark} AND log_digests.digest = {mark}"
        )
        digests: list[Any] = [a.digest_after, a.game_id, a.digest_before]
    else:  # UPDATE ... FROM (VALUES ...): SQLite 3.33 or later
        row = "(" + ", ".join([mark] * 9) + ")"
        if postgres:  # VALUES columns get their types from the first row; state them
            row = (
                f"({mark}::integer, {mark}::integer, {mark}::integer, {mark}::bigint, "
                f"{mark}::integer, {mark}::varchar, {mark}::boolean, {mark}::boolean, "
                f"{mark}::bigint)"
            )
        update_sql = (
            "UPDATE games SET move_count = v.column3, score = v.column4, max_tile = v.column5, "
            'board = v.column6, won = v.column7, "over" = v.column8, updated_ms = v.column9 '
            f"FROM (VALUES {', '.join([row] * len(appends))}) AS v "
            f"WHERE games.id = v.column1 AND games.move_count = v.column2{unfinished}"
        )
        params = []
        for a in appends:
            params.extend(
                (
                    a.game_id,
                    a.expected_moves,
                    a.moves,
                    a.score,
                    a.max_tile,
                    a.board,
                    a.won,
                    a.over,
                    a.now_ms,
                )
            )
        digest_row = (
            f"({mark}::integer, {mark}, {mark})" if postgres else f"({mark}, {mark}, {mark})"
        )
        digest_sql = (
            "UPDATE log_digests SET digest = v.column3 "
            f"FROM (VALUES {', '.join([digest_row] * len(appends))}) AS v "
            "WHERE log_digests.game_id = v.column1 AND log_digests.digest = v.column2"
        )
        digests = []
        for a in appends:
            digests.extend((a.game_id, a.digest_before, a.digest_after))
    insert_row = "(" + ", ".join([mark] * 4) + ")"
    insert_sql = "INSERT INTO moves (game_id, seq, direction, played_ms) VALUES " + ", ".join(
        [insert_row] * len(appends)
    )
    inserts: list[Any] = []
    for a in appends:
        inserts.extend((a.game_id, a.expected_moves + 1, a.letter, a.now_ms))
    cursor = connection.connection.cursor()
    try:
        cursor.execute(update_sql, params)
        if cursor.rowcount != len(appends):
            return Refused.MOVED_ON
        cursor.execute(digest_sql, digests)
        if cursor.rowcount != len(appends):
            return Refused.DIGEST_CHANGED
        cursor.execute(insert_sql, inserts)
    finally:
        cursor.close()
    return None


def append_move(
    connection: Connection,
    game_id: int,
    letter: str,
    after: GameState,
    now_ms: int,
    *,
    digests: tuple[str, str],
    assisted: bool = False,
) -> None:
    """Append move ``after.moves`` of a local game and its projection, or raise.

    :class:`ConflictError` when another process appended first,
    :class:`GameNotFoundError` when the game is gone, :class:`DamagedGameError`
    when its log digest is not ``digests[0]`` (the projection was changed
    outside the store).  Driver errors leave as SQLAlchemy's, like those of
    every other statement, so the store reports them in one line.
    """
    append = Append.of(game_id, letter, after, now_ms, digests)
    dbapi = connection.dialect.loaded_dbapi
    try:
        refused = append_moves(connection, [append])
    except dbapi.Error as exc:
        raise DBAPIError.instance(
            "append_moves", None, exc, dbapi.Error, dialect=connection.dialect
        ) from exc
    if refused is Refused.DIGEST_CHANGED:
        raise DamagedGameError(game_id, ["its log digest changed outside the store"])
    if refused is Refused.MOVED_ON:
        actual = connection.execute(
            select(games.c.move_count).where(games.c.id == game_id)
        ).scalar_one_or_none()
        if actual is None:
            raise GameNotFoundError(game_id)
        raise ConflictError(game_id, append.expected_moves, actual)
    if assisted:
        mark_assisted(connection, game_id)
