"""The score server's SQL: fair games (their secret row, appends, finishing, the leaderboard,
bot signals) and submitted self-seeded records.

The server reaches the database only through this module and
:class:`~twenty48_replay.store.Store`'s connections.

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

from twenty48_replay.fair import FairInfo
from twenty48_replay.game import GameState
from twenty48_replay.record import Record, dumps_value
from twenty48_replay.replay import VerifyResult
from twenty48_replay.store import reads, writes
from twenty48_replay.store.reads import GameInfo
from twenty48_replay.store.tables import CLIENT, fair_games, games, moves, submitted_records
from twenty48_replay.store.writes import Append as Append  # the server batches these
from twenty48_replay.timestamps import iso_ms


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


def create(
    connection: Connection,
    *,
    player: str,
    token_hash: str,
    server_seed: str,
    commitment: str,
    key_id: str,
    now_ms: int,
) -> int:
    """Insert a new, unstarted fair game; returns its id."""
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
    return int(key[0])


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
        ).where(fair_games.c.id == fair_id)
    ).first()
    return None if row is None else FairRow(**row._mapping)


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
) -> bool:
    """Store the signed record and close the game; False if the game changed meanwhile."""
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


def move_times(connection: Connection, game_id: int) -> list[int | None]:
    """When each move of a game was committed (ms), in order."""
    return list(
        connection.execute(
            select(moves.c.played_ms).where(moves.c.game_id == game_id).order_by(moves.c.seq)
        ).scalars()
    )


@attrs.frozen(slots=True)
class BoardEntry:
    """One line of the leaderboard."""

    fair_id: int
    player: str
    score: int
    moves: int
    max_tile: int
    finished_ms: int
    engine_matches: int | None
    engine_checked: int | None
    median_interval_ms: int | None


def leaderboard(connection: Connection, limit: int) -> list[BoardEntry]:
    """Finished fair games, best per player: score, then fewer moves, then earlier end."""
    order = (
        games.c.score.desc(),
        games.c.move_count.asc(),
        fair_games.c.finished_ms.asc(),
        fair_games.c.id.asc(),
    )
    ranked = (
        select(
            fair_games.c.id,
            fair_games.c.player,
            games.c.score,
            games.c.move_count,
            games.c.max_tile,
            fair_games.c.finished_ms,
            fair_games.c.engine_matches,
            fair_games.c.engine_checked,
            fair_games.c.median_interval_ms,
            func.row_number().over(partition_by=fair_games.c.player, order_by=order).label("rank"),
        )
        .join(games, games.c.id == fair_games.c.game_id)
        .where(fair_games.c.finished_ms.is_not(None))
        .subquery()
    )
    query = (
        select(*(c for c in ranked.c if c.name != "rank"))
        .where(ranked.c.rank == 1)
        .order_by(
            ranked.c.score.desc(),
            ranked.c.move_count.asc(),
            ranked.c.finished_ms.asc(),
            ranked.c.id.asc(),
        )
        .limit(limit)
    )
    return [BoardEntry(*row) for row in connection.execute(query)]


def _due(now_ms: int, stale_ms: int) -> Any:
    return (fair_games.c.analysis == "pending") | (
        (fair_games.c.analysis == "running") & (fair_games.c.analysis_ms < now_ms - stale_ms)
    )


def analysis_due(connection: Connection, now_ms: int, stale_ms: int) -> bool:
    """Whether any finished game waits for its bot signals (a read, no lock)."""
    return (
        connection.execute(select(fair_games.c.id).where(_due(now_ms, stale_ms)).limit(1)).first()
        is not None
    )


def claim_analysis(connection: Connection, now_ms: int, stale_ms: int) -> FairRow | None:
    """Take one finished game whose bot signals are due (or whose analysis was abandoned)."""
    candidates = connection.execute(
        select(fair_games.c.id, fair_games.c.analysis)
        .where(_due(now_ms, stale_ms))
        .order_by(fair_games.c.finished_ms)
        .limit(8)
    ).all()
    for fair_id, status in candidates:
        claimed = connection.execute(
            update(fair_games)
            .where(fair_games.c.id == fair_id, fair_games.c.analysis == status)
            .values(analysis="running", analysis_ms=now_ms)
        ).rowcount
        if claimed == 1:
            return load(connection, fair_id)
    return None


def store_analysis(
    connection: Connection,
    fair_id: int,
    *,
    matches: int | None,
    checked: int | None,
    median_interval_ms: int | None,
    now_ms: int,
) -> None:
    """Save a game's bot signals ("failed" when there are none)."""
    connection.execute(
        update(fair_games)
        .where(fair_games.c.id == fair_id)
        .values(
            analysis="done" if checked is not None else "failed",
            analysis_ms=now_ms,
            engine_matches=matches,
            engine_checked=checked,
            median_interval_ms=median_interval_ms,
        )
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


def submitted(connection: Connection, limit: int) -> list[GameInfo]:
    """Submitted self-seeded records, best score first."""
    ids = connection.execute(
        select(games.c.id)
        .join(submitted_records, submitted_records.c.game_id == games.c.id)
        .order_by(games.c.score.desc(), games.c.move_count.asc(), games.c.id.asc())
        .limit(limit)
    ).scalars()
    return [reads.get_game(connection, int(i)) for i in list(ids)]
