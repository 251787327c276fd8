"""Bot signals of finished fair games: the queue of games to analyse, and what was found.

A finished game waits for its bot signals in ``fair_games.analysis``:
"pending" -> "running" (claimed; ``analysis_ms`` is the claim's time) ->
"done" (or "failed").  The queue is the table itself, so nothing waits in a
server's memory, and every read of it is one bounded query.  The summary of
the signals is in ``fair_games`` (``engine_matches``/``engine_checked``: the
search the game agrees with most; ``median_interval_ms``), the detail in
``bot_signals``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs
from sqlalchemy import case, delete, func, select, update
from sqlalchemy.engine import Connection

from twenty48_replay.store.fair_games.games import FairRow, load
from twenty48_replay.store.tables import (
    bot_signals,
    fair_games,
    games,
)

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


DETAIL_COLUMNS = (
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


def signal_detail(row: Sequence[Any]) -> SignalDetail | None:
    """The detail from the columns of :data:`DETAIL_COLUMNS` (None: no row)."""
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
