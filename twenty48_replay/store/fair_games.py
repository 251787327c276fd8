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
from collections.abc import Sequence
from typing import Any

import attrs
from sqlalchemy import and_, case, delete, func, or_, select, update
from sqlalchemy.engine import Connection

from twenty48_replay.board import Board
from twenty48_replay.fair import FairInfo
from twenty48_replay.game import GameState
from twenty48_replay.names import name_key
from twenty48_replay.record import Record, dumps_value
from twenty48_replay.replay import VerifyResult
from twenty48_replay.store import expiry, players, quotas, reads, writes
from twenty48_replay.store.reads import GameInfo

# The key history (issue 18, section 5): its SQL is store.server_keys', reached from here.
from twenty48_replay.store.server_keys import CURRENT as CURRENT
from twenty48_replay.store.server_keys import REVOKED as REVOKED
from twenty48_replay.store.server_keys import KeyEvent as KeyEvent
from twenty48_replay.store.server_keys import KeyHistory as KeyHistory
from twenty48_replay.store.server_keys import KeyUse as KeyUse
from twenty48_replay.store.server_keys import append_key_event as append_key_event
from twenty48_replay.store.server_keys import current_key_id as current_key_id
from twenty48_replay.store.server_keys import has_signed_records as has_signed_records
from twenty48_replay.store.server_keys import key_history as key_history
from twenty48_replay.store.server_keys import signed_keys as signed_keys
from twenty48_replay.store.tables import (
    CLIENT,
    abandoned_games,
    bot_signals,
    fair_games,
    game_players,
    games,
    moves,
    submitted_records,
)
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


@attrs.frozen(slots=True)
class BoardEntry:
    """One line of the leaderboard (``position``: its rank, 1 for the best), with its
    bot signals (None until analysed)."""

    fair_id: int
    player: str
    score: int
    moves: int
    max_tile: int
    finished_ms: int
    engine_matches: int | None
    engine_checked: int | None
    median_interval_ms: int | None
    #: The detail of the signals (``bot_signals``), None before the game is analysed.
    detail: SignalDetail | None = None
    #: Played with the secret of a registered name.
    registered: bool = False
    #: Its rank (1 for the best); 0 where no rank is shown.
    position: int = 0

    def with_position(self, position: int) -> BoardEntry:
        """This entry at rank ``position``."""
        return attrs.evolve(self, position=position)

    @property
    def key(self) -> BoardKey:
        """Where this entry sorts (a page's cursor is its last entry's key)."""
        return BoardKey(self.score, self.moves, self.finished_ms, self.fair_id)


@attrs.frozen(slots=True)
class BoardKey:
    """A place in the leaderboard's order: score, then fewer moves, then earlier end, then id."""

    score: int
    moves: int
    finished_ms: int
    fair_id: int


def leaderboard(
    connection: Connection,
    limit: int,
    after: BoardKey | None = None,
    *,
    registered_only: bool = False,
) -> list[BoardEntry]:
    """Finished fair games, best per player: score, then fewer moves, then earlier end.

    Abandoned games are never ranked.  Hidden games and banned names are
    left out (read from the moderation log by this same query, so an action
    counts from the next request); ``registered_only`` leaves out games not
    played under a registered name.  ``after``: the page that follows the
    entry with this key (keyset paging: stable while games finish).
    """
    visible = [
        fair_games.c.finished_ms.is_not(None),
        expiry.not_abandoned(),
        fair_games.c.id.not_in(players.hidden_games()),
        or_(
            game_players.c.name_key.is_(None), game_players.c.name_key.not_in(players.banned_keys())
        ),
    ]
    if registered_only:
        visible.append(game_players.c.registered.is_(True))
    order = (
        games.c.score.desc(),
        games.c.move_count.asc(),
        fair_games.c.finished_ms.asc(),
        fair_games.c.id.asc(),
    )
    best = (
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
            func.coalesce(game_players.c.registered, False).label("registered"),
            func.row_number().over(partition_by=fair_games.c.player, order_by=order).label("rank"),
        )
        .join(games, games.c.id == fair_games.c.game_id)
        .outerjoin(game_players, game_players.c.fair_id == fair_games.c.id)
        .where(*visible)
        .subquery()
    )
    board_order = (
        best.c.score.desc(),
        best.c.move_count.asc(),
        best.c.finished_ms.asc(),
        best.c.id.asc(),
    )
    ranked = (
        select(
            *(c for c in best.c if c.name != "rank"),
            func.row_number().over(order_by=board_order).label("position"),
        )
        .where(best.c.rank == 1)
        .subquery()
    )
    query = select(
        *(c for c in ranked.c if c.name not in ("registered", "position")),
        *_DETAIL_COLUMNS,
        ranked.c.registered,
        ranked.c.position,
    ).outerjoin(bot_signals, bot_signals.c.fair_id == ranked.c.id)
    if after is not None:
        query = query.where(
            _after(
                (ranked.c.score, after.score, False),
                (ranked.c.move_count, after.moves, True),
                (ranked.c.finished_ms, after.finished_ms, True),
                (ranked.c.id, after.fair_id, True),
            )
        )
    query = query.order_by(ranked.c.position).limit(limit)
    return [
        BoardEntry(
            *row[:9],
            detail=_detail(row[9:-2]),
            registered=bool(row[-2]),
            position=int(row[-1]),
        )
        for row in connection.execute(query).all()
    ]


def _after(*keys: tuple[Any, int, bool]) -> Any:
    """Rows after a place in a many-column order: (column, value, ascending) per column."""
    (column, value, ascending), *rest = keys
    beyond = column > value if ascending else column < value
    if not rest:
        return beyond
    return or_(beyond, and_(column == value, _after(*rest)))


# ============================================================== bot signals
# Issue 18, section 8.  A finished game waits for its bot signals in
# ``fair_games.analysis``: "pending" -> "running" (claimed; ``analysis_ms``
# is the claim's time) -> "done" (or "failed").  The queue is the table
# itself, so nothing waits in a server's memory, and every read of it is one
# bounded query.  The summary of the signals is in ``fair_games``
# (``engine_matches``/``engine_checked``: the search the game agrees with
# most; ``median_interval_ms``), the detail in ``bot_signals``.

#: The longest ``bot_signals.rungs`` text read back (a few rungs take ~200 bytes).
MAX_RUNGS_TEXT = 4096
#: The most rungs read back from one row.
MAX_RUNGS = 32


@attrs.frozen(slots=True)
class RungFigure:
    """How many of the positions searched at one rung had its choice played."""

    name: str
    matches: int
    checked: int


@attrs.frozen(slots=True)
class SignalDetail:
    """The detail of one game's bot signals (fractions in thousandths)."""

    #: The rung the game agrees with most (its figures are the summary's).
    best_rung: str | None
    rungs: tuple[RungFigure, ...]
    #: Moves replayed and how many were real choices (more than one valid move).
    moves: int
    choices: int
    #: Timed intervals between moves, and their shape.
    intervals: int
    dispersion_milli: int | None
    variation_milli: int | None
    autocorrelation_milli: int | None


_DETAIL_COLUMNS = (
    bot_signals.c.best_rung,
    case(
        (func.length(bot_signals.c.rungs) <= MAX_RUNGS_TEXT, bot_signals.c.rungs), else_=None
    ).label("rungs"),
    bot_signals.c.moves,
    bot_signals.c.choices,
    bot_signals.c.intervals,
    bot_signals.c.dispersion_milli,
    bot_signals.c.variation_milli,
    bot_signals.c.autocorrelation_milli,
)


def _detail(row: Sequence[Any]) -> SignalDetail | None:
    """The detail from the columns of :data:`_DETAIL_COLUMNS` (None: no row)."""
    best_rung, rungs, moves_, choices, intervals, dispersion, variation, autocorrelation = row
    if moves_ is None:
        return None
    return SignalDetail(
        best_rung=best_rung,
        rungs=_rung_figures(rungs),
        moves=moves_,
        choices=choices,
        intervals=intervals,
        dispersion_milli=dispersion,
        variation_milli=variation,
        autocorrelation_milli=autocorrelation,
    )


def _rung_figures(text: Any) -> tuple[RungFigure, ...]:
    """The rungs' figures from their stored JSON; whatever is not well formed is left out."""
    try:
        items = json.loads(text) if isinstance(text, str) else []
    except ValueError:
        return ()
    if not isinstance(items, list):
        return ()
    figures = []
    for item in items[:MAX_RUNGS]:
        if (
            isinstance(item, list)
            and len(item) == 3
            and isinstance(item[0], str)
            and len(item[0]) <= 16
            and all(type(n) is int and n >= 0 for n in item[1:])
        ):
            figures.append(RungFigure(item[0], item[1], item[2]))
    return tuple(figures)


@attrs.frozen(slots=True)
class DueGame:
    """A finished game waiting for its bot signals (or whose analysis was abandoned)."""

    fair_id: int
    status: str
    claimed_ms: int | None
    player: str
    score: int
    moves: int
    finished_ms: int


def _due(now_ms: int, stale_ms: int) -> Any:
    return (fair_games.c.analysis == "pending") | (
        (fair_games.c.analysis == "running") & (fair_games.c.analysis_ms < now_ms - stale_ms)
    )


def due_games(connection: Connection, now_ms: int, stale_ms: int, limit: int) -> list[DueGame]:
    """Up to ``limit`` games waiting for their bot signals, highest score first.

    The order is the leaderboard's (score, then fewer moves, then earlier
    end), never the order of finish: a flood of cheap games cannot hold
    back a game that would enter the leaderboard.  A read; claim with
    :func:`claim_analysis`.
    """
    rows = connection.execute(
        select(
            fair_games.c.id,
            fair_games.c.analysis,
            fair_games.c.analysis_ms,
            fair_games.c.player,
            games.c.score,
            games.c.move_count,
            fair_games.c.finished_ms,
        )
        .join(games, games.c.id == fair_games.c.game_id)
        .where(_due(now_ms, stale_ms), fair_games.c.finished_ms.is_not(None))
        .order_by(
            games.c.score.desc(),
            games.c.move_count.asc(),
            fair_games.c.finished_ms.asc(),
            fair_games.c.id.asc(),
        )
        .limit(limit)
    ).all()
    return [DueGame(*row) for row in rows]


def is_players_best(connection: Connection, game: DueGame) -> bool:
    """Whether ``game`` is its player's best finished game: the one the leaderboard shows."""
    better = (
        (games.c.score > game.score)
        | ((games.c.score == game.score) & (games.c.move_count < game.moves))
        | (
            (games.c.score == game.score)
            & (games.c.move_count == game.moves)
            & (
                (fair_games.c.finished_ms < game.finished_ms)
                | (
                    (fair_games.c.finished_ms == game.finished_ms)
                    & (fair_games.c.id < game.fair_id)
                )
            )
        )
    )
    found = connection.execute(
        select(fair_games.c.id)
        .join(games, games.c.id == fair_games.c.game_id)
        .where(
            fair_games.c.player == game.player,
            fair_games.c.finished_ms.is_not(None),
            better,
        )
        .limit(1)
    ).first()
    return found is None


def claim_analysis(connection: Connection, game: DueGame, now_ms: int) -> FairRow | None:
    """Take ``game`` for analysis (compare-and-set on its status and claim time).

    None if another process took it first.  A stale claim is taken over
    by exactly one process, as the compare includes the old claim's time.
    """
    same_claim = (
        fair_games.c.analysis_ms.is_(None)
        if game.claimed_ms is None
        else fair_games.c.analysis_ms == game.claimed_ms
    )
    claimed = connection.execute(
        update(fair_games)
        .where(fair_games.c.id == game.fair_id, fair_games.c.analysis == game.status, same_claim)
        .values(analysis="running", analysis_ms=now_ms)
    ).rowcount
    return load(connection, game.fair_id) if claimed == 1 else None


def short_games_due(connection: Connection, min_moves: int, limit: int) -> list[int]:
    """Up to ``limit`` pending games with fewer than ``min_moves`` moves (a read)."""
    return list(
        connection.execute(
            select(fair_games.c.id)
            .join(games, games.c.id == fair_games.c.game_id)
            .where(fair_games.c.analysis == "pending", games.c.move_count < min_moves)
            .limit(limit)
        ).scalars()
    )


def settle_short_games(connection: Connection, fair_ids: list[int], now_ms: int) -> int:
    """Mark games too short to judge as analysed, without searching (still pending only).

    Their signals stay empty (0 positions checked): no verdict is given
    on a game shorter than the operator's minimum.  Returns how many.
    """
    if not fair_ids:
        return 0
    return int(
        connection.execute(
            update(fair_games)
            .where(fair_games.c.id.in_(fair_ids), fair_games.c.analysis == "pending")
            .values(analysis="done", analysis_ms=now_ms, engine_matches=0, engine_checked=0)
        ).rowcount
    )


def analysis_backlog(connection: Connection) -> int:
    """How many finished games wait for their bot signals (for an operator's metrics)."""
    return int(
        connection.execute(
            select(func.count()).select_from(fair_games).where(fair_games.c.analysis == "pending")
        ).scalar_one()
    )


def store_analysis(
    connection: Connection,
    fair_id: int,
    *,
    matches: int | None,
    checked: int | None,
    median_interval_ms: int | None,
    now_ms: int,
    detail: SignalDetail | None = None,
) -> None:
    """Save a game's bot signals ("failed" when there are none) and their detail."""
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
    connection.execute(delete(bot_signals).where(bot_signals.c.fair_id == fair_id))
    if detail is None:
        return
    connection.execute(
        bot_signals.insert().values(
            fair_id=fair_id,
            analysed_ms=now_ms,
            moves=detail.moves,
            choices=detail.choices,
            best_rung=detail.best_rung,
            rungs=json.dumps([[r.name, r.matches, r.checked] for r in detail.rungs]),
            intervals=detail.intervals,
            dispersion_milli=detail.dispersion_milli,
            variation_milli=detail.variation_milli,
            autocorrelation_milli=detail.autocorrelation_milli,
        )
    )


def by_signal(
    connection: Connection, limit: int, *, within: int = 1000, registered_only: bool = False
) -> list[BoardEntry]:
    """The leaderboard's games (its first ``within``), strongest bot signal first.

    For ``twenty48 admin suspects`` and other reviews: the highest
    engine-match rate first, then the shortest median time between moves;
    games not analysed yet come last, in leaderboard order.  Whether a game
    is *suspected* depends on the operator's thresholds:
    :func:`twenty48_replay.server.bots.judge` decides it.
    """
    entries = leaderboard(connection, within, registered_only=registered_only)

    def strength(entry: BoardEntry) -> tuple[int, float, float]:
        if entry.engine_checked is None:
            return (1, 0.0, 0.0)
        matches = entry.engine_matches or 0
        rate = matches / entry.engine_checked if entry.engine_checked else 0.0
        interval = entry.median_interval_ms
        return (0, -rate, float("inf") if interval is None else interval)

    return sorted(entries, key=strength)[:limit]


# ========================================================= end of bot signals


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
    query = select(
        games.c.id,
        games.c.player,
        games.c.score,
        games.c.move_count,
        games.c.max_tile,
        games.c.seed,
    ).join(submitted_records, submitted_records.c.game_id == games.c.id)
    if after is not None:
        query = query.where(
            _after(
                (games.c.score, after.score, False),
                (games.c.move_count, after.moves, True),
                (games.c.id, after.game_id, True),
            )
        )
    query = query.order_by(games.c.score.desc(), games.c.move_count.asc(), games.c.id.asc()).limit(
        limit
    )
    return [SubmittedEntry(*row) for row in connection.execute(query).all()]


# ======================================================== quotas and expiry
# Issue 18, section 2.  Their SQL has modules of its own (store.quotas: rate
# limits; store.expiry: unstarted and idle games, the sweeper's lease); the
# server reaches it here, as it reaches all of its SQL.

Charge = quotas.Charge
Grant = quotas.Grant
take_rate_limits = quotas.take_rate_limits
sweep_rate_limits = quotas.sweep_rate_limits
IdleGame = expiry.IdleGame
claim_lease = expiry.claim_lease
release_lease = expiry.release_lease
expire_unstarted = expiry.expire_unstarted
idle_games = expiry.idle_games
mark_abandoned = expiry.mark_abandoned


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


# ================================================= end of quotas and expiry


# ---------------------------------------------------------------- operations
# (issue 18, section 6: what /metrics reports, counted at each scrape, so that
# every worker and every host reports the same database-wide figures)


def open_games(connection: Connection) -> tuple[int, int]:
    """Fair games not finished: (not started yet, started)."""
    query = (
        select(fair_games.c.started_ms.is_(None), func.count())
        .where(fair_games.c.finished_ms.is_(None))
        .group_by(fair_games.c.started_ms.is_(None))
    )
    counts = {bool(unstarted): int(count) for unstarted, count in connection.execute(query)}
    return counts.get(True, 0), counts.get(False, 0)
