"""A fair game's rows: made, started, appended to, finished and signed, read back.

A fair game is two rows: a ``fair_games`` row made when the player asks
for a game (server seed, commitment, token hash) and, from ``start`` on,
an ordinary ``games`` row whose seed is the derived game seed, so its moves
go into the same append-only ``moves`` log and every existing command
(list, show, export, replay, check) works on it.

Finishing writes the signed record's metadata into ``games.extra`` (so
``twenty48 export`` gives the signed record); appends are refused once it
is set, and both appends and finishing compare-and-set the projection row,
so several server processes can share one database: whichever writes
second finds the row changed and reloads.  Every function here runs inside
a transaction its caller owns.  The append itself, and the import of a
verified record, are the local store's (:mod:`twenty48_replay.store.writes`):
one compare-and-set and one import for every game.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from twenty48_replay.core.board import Board
from twenty48_replay.core.fair import FairInfo
from twenty48_replay.core.game import GameState
from twenty48_replay.core.record import Record, dumps_value
from twenty48_replay.core.timestamps import iso_ms
from twenty48_replay.fairplay.names import name_key
from twenty48_replay.store import bests, players, reads, writes
from twenty48_replay.store.reads import GameInfo
from twenty48_replay.store.tables import (
    CLIENT,
    abandoned_games,
    fair_games,
    games,
    moves,
)
from twenty48_replay.store.writes import Append


@attrs.frozen(slots=True)
class FairRow:
    """One ``fair_games`` row (secrets included: never send it as it is)."""

    id: int
    player: str
    token_hash: str
    server_seed: str
    commitment: str
    key_id: str
    client_seed: str | None
    game_id: int | None
    created_ms: int
    started_ms: int | None
    finished_ms: int | None
    record: str | None
    #: Finished by the server because no move came for too long (never ranked).
    abandoned: bool = False


def create(
    connection: Connection,
    *,
    player: str,
    token_hash: str,
    server_seed: str,
    commitment: str,
    key_id: str,
    now_ms: int,
    registered: bool = False,
) -> int:
    """Insert a new, unstarted fair game; returns its id.

    ``registered``: the game was created with the secret of the registered
    name ``player`` (the leaderboard marks it).
    """
    result = connection.execute(
        fair_games.insert().values(
            player=player,
            token_hash=token_hash,
            server_seed=server_seed,
            commitment=commitment,
            key_id=key_id,
            created_ms=now_ms,
        )
    )
    key = result.inserted_primary_key
    assert key is not None
    fair_id = int(key[0])
    players.note_game_player(connection, fair_id, name_key(player), is_registered=registered)
    return fair_id


def load(connection: Connection, fair_id: int) -> FairRow | None:
    """The fair game with this id, or None."""
    row = connection.execute(
        select(
            fair_games.c.id,
            fair_games.c.player,
            fair_games.c.token_hash,
            fair_games.c.server_seed,
            fair_games.c.commitment,
            fair_games.c.key_id,
            fair_games.c.client_seed,
            fair_games.c.game_id,
            fair_games.c.created_ms,
            fair_games.c.started_ms,
            fair_games.c.finished_ms,
            fair_games.c.record,
            abandoned_games.c.fair_id.is_not(None).label("abandoned"),
        )
        .outerjoin(abandoned_games, abandoned_games.c.fair_id == fair_games.c.id)
        .where(fair_games.c.id == fair_id)
    ).first()
    return None if row is None else FairRow(**row._mapping)


@attrs.frozen(slots=True)
class Projection:
    """A game's state after its last committed move, as its ``games`` row keeps it.

    ``damage`` lists what is wrong with the row (see :class:`GameInfo`).
    """

    board: Board
    score: int
    moves: int
    max_tile: int
    won: bool
    over: bool
    damage: tuple[str, ...] = ()


def public_game(connection: Connection, fair_id: int) -> tuple[FairRow, Projection | None] | None:
    """A fair game as it stands, from its rows alone (no log is read or replayed).

    The projection is None for a game not started yet.
    """
    row = load(connection, fair_id)
    if row is None:
        return None
    if row.game_id is None:
        return row, None
    info = reads.get_game(connection, row.game_id)
    projection = Projection(
        info.board, info.score, info.move_count, info.max_tile, info.won, info.over, info.damage
    )
    return row, projection


def game_log_since(connection: Connection, game_id: int, after: int) -> tuple[GameInfo, str]:
    """A game's row and the moves after the first ``after`` (the log only grows).

    A row that is not U, D, L or R reads as ``?`` (which no replay takes).
    """
    directions = connection.execute(
        select(moves.c.direction)
        .where(moves.c.game_id == game_id, moves.c.seq > after)
        .order_by(moves.c.seq)
    ).scalars()
    letters = "".join(
        d if type(d) is str and d in ("U", "D", "L", "R") else "?" for d in directions
    )
    return reads.get_game(connection, game_id), letters


def start(
    connection: Connection, fair_id: int, client_seed: str, state: GameState, now_ms: int
) -> int | None:
    """Claim the start of a game and create its ``games`` row; None if already started.

    The claim comes first (compare-and-set on ``client_seed IS NULL``), so a
    second start, in this process or another, writes nothing.
    """
    claimed = connection.execute(
        update(fair_games)
        .where(fair_games.c.id == fair_id, fair_games.c.client_seed.is_(None))
        .values(client_seed=client_seed, started_ms=now_ms)
    ).rowcount
    if claimed != 1:
        return None
    player = connection.execute(
        select(fair_games.c.player).where(fair_games.c.id == fair_id)
    ).scalar_one()
    game_id = writes.create_game(
        connection, state, player=player, now_ms=now_ms, digest=reads.log_digest("")
    )
    connection.execute(update(fair_games).where(fair_games.c.id == fair_id).values(game_id=game_id))
    return game_id


def move_append(
    game_id: int,
    letters: str,
    letter: str,
    after: GameState,
    now_ms: int,
    *,
    max_tile: int,
    won: bool,
    over: bool,
) -> Append:
    """The append of ``letter`` to the log ``letters``, leaving the game at ``after``.

    Builds the row and both log digests; ``max_tile``, ``won`` and ``over``
    are ``after``'s, computed once by the caller.
    """
    digests = (reads.log_digest(letters), reads.log_digest(letters + letter))
    return Append.of(game_id, letter, after, now_ms, digests, max_tile=max_tile, won=won, over=over)


def append_moves(connection: Connection, appends: list[Append]) -> bool:
    """Append moves of distinct fair games; False if any game moved on (the caller rolls back).

    The local store's compare-and-set (:func:`twenty48_replay.store.writes.append_moves`),
    plus: a finished game (``extra`` set) takes no more moves.  One game or a
    whole batch, in three statements.
    """
    return writes.append_moves(connection, appends, unfinished_only=True) is None


def finish(
    connection: Connection,
    fair_id: int,
    game_id: int,
    expected_moves: int,
    record: dict[str, Any],
    extra: dict[str, Any],
    now_ms: int,
    *,
    abandoned: bool = False,
) -> bool:
    """Store the signed record and close the game; False if the game changed meanwhile.

    A game finished by its player becomes their best on the leaderboard if
    it is better (:func:`twenty48_replay.store.bests.note_finished`, in this
    transaction); one the server finishes as ``abandoned`` is never ranked.
    """
    changed = connection.execute(
        update(games)
        .where(
            games.c.id == game_id,
            games.c.move_count == expected_moves,
            games.c.extra.is_(None),
        )
        .values(extra=dumps_value(extra, ensure_ascii=True), updated_ms=now_ms)
    ).rowcount
    if changed != 1:
        return False
    connection.execute(
        update(fair_games)
        .where(fair_games.c.id == fair_id)
        .values(
            finished_ms=now_ms,
            record=json.dumps(record, ensure_ascii=False, separators=(",", ":")),
            analysis="pending",
        )
    )
    if not abandoned:
        bests.note_finished(connection, fair_id)
    return True


def fair_record(row: FairRow, state: GameState, letters: str, key_id: str, now_ms: int) -> Record:
    """The record of a fair game that ends now, with its ``fair`` object, not yet signed.

    ``row`` must be started (client seed and start time set).
    """
    assert row.client_seed is not None
    assert row.started_ms is not None
    started, ended = _iso(row.started_ms), _iso(now_ms)
    info = FairInfo(
        commitment=row.commitment,
        server_seed=row.server_seed,
        client_seed=row.client_seed,
        key_id=key_id,
        game_id=row.id,
        started=started,
        ended=ended,
    )
    return Record(
        seed=state.seed,
        moves=letters,
        score=state.score,
        max_tile=state.max_tile,
        final_board=tuple(tuple(r) for r in state.board.to_rows()),  # type: ignore[misc]
        extra={
            "player": row.player,
            "started": started,
            "finished": ended,
            "client": CLIENT,
            "fair": info.to_dict(),
        },
    )


def _iso(ms: int) -> str:
    """A server clock reading as RFC 3339 (always within a datetime's range)."""
    text = iso_ms(ms)
    assert text is not None
    return text


def game_log(connection: Connection, game_id: int) -> tuple[GameInfo, str]:
    """A game's row and its move string."""
    return reads.get_game(connection, game_id), reads.move_letters(connection, game_id)


def move_times(connection: Connection, game_id: int, limit: int | None = None) -> list[int | None]:
    """When each move of a game was committed (ms), in order (the first ``limit``)."""
    return list(
        connection.execute(
            select(moves.c.played_ms)
            .where(moves.c.game_id == game_id)
            .order_by(moves.c.seq)
            .limit(limit)
        ).scalars()
    )


def idle_game_state(connection: Connection, fair_id: int) -> tuple[FairRow, GameState, str] | None:
    """A started, unfinished game as its rows have it: (row, state, log); None if unusable.

    The state is the projection's (board, score, moves), not a replay: the
    sweeper finishes idle games without replaying them.  The log must match
    the projection (move count and digest); a game that does not is left
    for ``twenty48 check`` to report (None).
    """
    row = load(connection, fair_id)
    if row is None or row.game_id is None or row.finished_ms is not None:
        return None
    info, letters = game_log(connection, row.game_id)
    if (
        info.damage
        or info.extra is not None
        or len(letters) != info.move_count
        or reads.stored_digest(connection, row.game_id) != reads.log_digest(letters)
    ):
        return None
    return row, GameState(info.seed, info.board, info.score, info.move_count), letters


def open_games(connection: Connection) -> tuple[int, int]:
    """Fair games not finished: (not started yet, started)."""
    query = (
        select(fair_games.c.started_ms.is_(None), func.count())
        .where(fair_games.c.finished_ms.is_(None))
        .group_by(fair_games.c.started_ms.is_(None))
    )
    counts = {bool(unstarted): int(count) for unstarted, count in connection.execute(query)}
    return counts.get(True, 0), counts.get(False, 0)
