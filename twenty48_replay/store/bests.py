"""Each player's best ranked game (``player_bests``), kept with every write that changes it.

The leaderboard ranks each player once, by their best visible ranked game:
finished, not abandoned, not hidden (and, for the registered-only board,
played with a registered name's secret).  Finding that best at read time
costs a walk of every game above the page; keeping it in a table of its own,
indexed in the leaderboard's order, makes any page one range of that index.
It is derived data, so every write that can change a player's best changes
it in the same transaction:

* a fair game finishing (:func:`note_finished`): an upsert that replaces
  the row only if the new game ranks before it, so two server processes
  finishing games of one player at once both land, whichever commits first;
* a game hidden or unhidden (:func:`hold_game`, then :func:`recompute`,
  from :func:`twenty48_replay.store.players.act`): the game's row and the
  player's rows are locked, then their best is computed again from the games;
* a game marked abandoned (:func:`forget_abandoned`): the player's best is
  computed again if it was that game.

Bans are not kept here: the leaderboard leaves banned names out as it reads
(a ban covers every game of a name, so it never changes which game is a
player's best).  :func:`rebuild` computes the whole table from the games
(the upgrade to schema 6, ``twenty48 admin rebuild-bests``) and
:func:`differences` compares it with them (``twenty48 check``).  The
moderation log and the games stay the source of truth: nothing here is
written by a trigger or kept in a log.  Every function here runs inside a
transaction its caller owns.
"""

from __future__ import annotations

from typing import Any, Final

import attrs
from sqlalchemy import (
    Select,
    and_,
    delete,
    exists,
    func,
    insert,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement

from twenty48_replay.store.tables import (
    abandoned_games,
    fair_games,
    game_players,
    games,
    moderation_log,
    player_bests,
)

#: The moderation log's action that hides a game (its latest hide/unhide row decides).
HIDE: Final = "hide"
#: The two boards: every game (False), and games played under a registered name (True).
BOARDS: Final = (False, True)


@attrs.frozen(slots=True)
class Best:
    """A player's best game on one board, with what the leaderboard sorts it by."""

    player: str
    fair_id: int
    score: int
    moves: int
    finished_ms: int


# ---------------------------------------------------------- what is ranked


def hidden_games() -> Any:
    """A subquery of the fair ids whose latest hide/unhide action is ``hide``."""
    latest = (
        select(func.max(moderation_log.c.id))
        .where(moderation_log.c.fair_id.is_not(None))
        .group_by(moderation_log.c.fair_id)
    )
    return select(moderation_log.c.fair_id).where(
        moderation_log.c.id.in_(latest), moderation_log.c.action == HIDE
    )


def is_hidden(connection: Connection, fair_id: int) -> bool:
    """Whether the fair game is hidden now: its latest hide/unhide row (``moderation_by_game``)."""
    latest = connection.execute(
        select(moderation_log.c.action)
        .where(moderation_log.c.fair_id == fair_id)
        .order_by(moderation_log.c.id.desc())
        .limit(1)
    ).scalar()
    return latest == HIDE


def not_abandoned(fair: Any = fair_games) -> ColumnElement[bool]:
    """A condition on ``fair`` (``fair_games`` or an alias): the game was not abandoned."""
    return ~exists(select(abandoned_games.c.fair_id).where(abandoned_games.c.fair_id == fair.c.id))


def ranked_games(registered_only: bool) -> Select[Any]:
    """Every ranked game (finished, not abandoned, not hidden) of a board, bans aside:
    player, fair id, score, moves, end."""
    query = (
        select(
            fair_games.c.player,
            fair_games.c.id,
            games.c.score,
            games.c.move_count,
            fair_games.c.finished_ms,
        )
        .join(games, games.c.id == fair_games.c.game_id)
        .where(
            fair_games.c.finished_ms.is_not(None),
            not_abandoned(),
            fair_games.c.id.not_in(hidden_games()),
        )
    )
    if registered_only:
        query = query.join(game_players, game_players.c.fair_id == fair_games.c.id).where(
            game_players.c.registered.is_(True)
        )
    return query


#: The leaderboard's order of games: score, then fewer moves, then earlier end, then id.
RANK_ORDER: Final = (
    games.c.score.desc(),
    games.c.move_count.asc(),
    fair_games.c.finished_ms.asc(),
    fair_games.c.id.asc(),
)


def ranks_before(new: Any, old: Any) -> ColumnElement[bool]:
    """Whether the row ``new`` ranks before ``old`` (both with score, moves, finished_ms,
    fair_id columns)."""
    return or_(
        new.score > old.score,
        and_(
            new.score == old.score,
            or_(
                new.moves < old.moves,
                and_(
                    new.moves == old.moves,
                    or_(
                        new.finished_ms < old.finished_ms,
                        and_(new.finished_ms == old.finished_ms, new.fair_id < old.fair_id),
                    ),
                ),
            ),
        ),
    )


# ------------------------------------------------------------ keeping it


def _row(registered_only: bool, player: str) -> ColumnElement[bool]:
    return and_(player_bests.c.registered_only == registered_only, player_bests.c.player == player)


def _offer(connection: Connection, registered_only: bool, best: Best) -> None:
    """Make ``best`` the player's row on this board, unless the row ranks before it.

    One statement (INSERT ... ON CONFLICT DO UPDATE ... WHERE): on PostgreSQL
    the conflict takes the row's lock and the WHERE is judged against its
    newest committed version, so of two games finished at once by two
    processes, the better one is kept whichever commits last.
    """
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(player_bests).values(
        registered_only=registered_only,
        player=best.player,
        fair_id=best.fair_id,
        score=best.score,
        moves=best.moves,
        finished_ms=best.finished_ms,
    )
    new = statement.excluded
    connection.execute(
        statement.on_conflict_do_update(
            index_elements=[player_bests.c.registered_only, player_bests.c.player],
            set_={
                "fair_id": new.fair_id,
                "score": new.score,
                "moves": new.moves,
                "finished_ms": new.finished_ms,
            },
            where=ranks_before(new, player_bests.c),
        )
    )


def note_finished(connection: Connection, fair_id: int) -> None:
    """A fair game has just finished (not abandoned): it becomes its player's best where better.

    Nothing for a game that is not ranked: abandoned, or hidden before it
    finished (an operator may hide a game in play).
    """
    row = connection.execute(
        select(
            fair_games.c.player,
            games.c.score,
            games.c.move_count,
            fair_games.c.finished_ms,
            func.coalesce(game_players.c.registered, False),
        )
        .join(games, games.c.id == fair_games.c.game_id)
        .outerjoin(game_players, game_players.c.fair_id == fair_games.c.id)
        .where(fair_games.c.id == fair_id, fair_games.c.finished_ms.is_not(None), not_abandoned())
    ).first()
    if row is None or is_hidden(connection, fair_id):
        return
    best = Best(str(row[0]), fair_id, int(row[1]), int(row[2]), int(row[3]))
    _offer(connection, False, best)
    if row[4]:
        _offer(connection, True, best)


def computed_best(connection: Connection, player: str, registered_only: bool) -> Best | None:
    """The player's best ranked game on a board, from the games (``fair_games_by_player``)."""
    row = connection.execute(
        ranked_games(registered_only)
        .where(fair_games.c.player == player)
        .order_by(*RANK_ORDER)
        .limit(1)
    ).first()
    return (
        None
        if row is None
        else Best(str(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]))
    )


def recompute(connection: Connection, player: str) -> None:
    """Compute the player's best again on both boards, from the games.

    Each row is locked first (PostgreSQL; SQLite's write transaction is the
    lock), so a game of this player finishing meanwhile in another process
    waits, then compares itself with the row written here: its game, not yet
    committed, is not among the games read here, and is not lost.  A player
    without a row yet has nothing to lock; the best found is then offered
    like a finished game (:func:`_offer`), which keeps a better row another
    process wrote meanwhile.
    """
    for registered_only in BOARDS:
        where = _row(registered_only, player)
        held = connection.execute(
            select(player_bests.c.fair_id).where(where).with_for_update()
        ).first()
        best = computed_best(connection, player, registered_only)
        if held is None:
            if best is not None:
                _offer(connection, registered_only, best)
        elif best is None:
            connection.execute(delete(player_bests).where(where))
        else:
            connection.execute(
                update(player_bests)
                .where(where)
                .values(
                    fair_id=best.fair_id,
                    score=best.score,
                    moves=best.moves,
                    finished_ms=best.finished_ms,
                )
            )


def hold_game(connection: Connection, fair_id: int) -> None:
    """Lock fair game ``fair_id``'s row before hiding or unhiding it (PostgreSQL; SQLite's
    write transaction is the lock).

    Finishing a game updates that row, so a finish of this very game in
    another process either committed before (and is among the games
    :func:`recompute` reads after this) or waits for this transaction, then
    reads the game's new hide/unhide state in :func:`note_finished`.
    Without it, a game hidden while it finished could be offered as its
    player's best by a finish that read it as not hidden yet.
    """
    connection.execute(select(fair_games.c.id).where(fair_games.c.id == fair_id).with_for_update())


def recompute_for_game(connection: Connection, fair_id: int) -> None:
    """Compute again the best of the player of fair game ``fair_id`` (if it exists)."""
    player = connection.execute(
        select(fair_games.c.player).where(fair_games.c.id == fair_id)
    ).scalar()
    if player is not None:
        recompute(connection, str(player))


def forget_abandoned(connection: Connection, fair_id: int) -> None:
    """A game was marked abandoned: if it is its player's best on a board, compute it again.

    The server finishes an abandoned game without offering it
    (:func:`twenty48_replay.store.fair_games.finish` is told), so this only
    mends a caller that finished it as an ordinary game first.
    """
    player = connection.execute(
        select(fair_games.c.player).where(fair_games.c.id == fair_id)
    ).scalar()
    if player is None:
        return
    held = connection.execute(
        select(player_bests.c.fair_id).where(
            player_bests.c.player == player, player_bests.c.fair_id == fair_id
        )
    ).first()
    if held is not None:
        recompute(connection, str(player))


# ------------------------------------------------------- all of it at once


def _all_bests(registered_only: bool) -> Select[Any]:
    """Every player's best ranked game on a board (one read of the ranked games)."""
    ranked = ranked_games(registered_only).add_columns(
        func.row_number().over(partition_by=fair_games.c.player, order_by=RANK_ORDER).label("place")
    )
    inner = ranked.subquery()
    return select(
        inner.c.player, inner.c.id, inner.c.score, inner.c.move_count, inner.c.finished_ms
    ).where(inner.c.place == 1)


def rebuild(connection: Connection) -> None:
    """Replace the whole table with what the games say (one read of the ranked games a board)."""
    connection.execute(delete(player_bests))
    for registered_only in BOARDS:
        best = _all_bests(registered_only).subquery()
        connection.execute(
            insert(player_bests).from_select(
                ["registered_only", "player", "fair_id", "score", "moves", "finished_ms"],
                select(
                    literal(registered_only, player_bests.c.registered_only.type),
                    best.c.player,
                    best.c.id,
                    best.c.score,
                    best.c.move_count,
                    best.c.finished_ms,
                ),
            )
        )
    if connection.dialect.name == "postgresql":
        # The planner's figures for the new rows, or it reads the whole table for a page
        # until autovacuum comes by (a role that does not own the table gets a warning).
        connection.exec_driver_sql("ANALYZE player_bests")


def lock_table(connection: Connection) -> None:
    """PostgreSQL: hold the whole table until the transaction ends (for :func:`rebuild`).

    A game finishing in another process meanwhile waits, then offers itself to
    the rebuilt rows; without the lock its row could be read neither by the
    rebuild (not committed yet) nor kept (deleted by it).
    """
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql("LOCK TABLE player_bests IN EXCLUSIVE MODE")


def count(connection: Connection) -> int:
    """The rows of the table (both boards)."""
    return int(connection.execute(select(func.count()).select_from(player_bests)).scalar_one())


def differences(connection: Connection, shown: int = 3) -> list[str]:
    """How the table differs from the games: one line per board that differs, or none."""
    found: list[str] = []
    for registered_only in BOARDS:
        expected = {
            str(row[0]): tuple(int(v) for v in row[1:])
            for row in connection.execute(_all_bests(registered_only))
        }
        kept = {
            str(row[0]): tuple(int(v) for v in row[1:])
            for row in connection.execute(
                select(
                    player_bests.c.player,
                    player_bests.c.fair_id,
                    player_bests.c.score,
                    player_bests.c.moves,
                    player_bests.c.finished_ms,
                ).where(player_bests.c.registered_only == registered_only)
            )
        }
        wrong = sorted(
            name for name in expected.keys() | kept.keys() if expected.get(name) != kept.get(name)
        )
        if wrong:
            board = "registered-only board" if registered_only else "board"
            names = ", ".join(repr(name) for name in wrong[:shown])
            more = f" and {len(wrong) - shown} more" if len(wrong) > shown else ""
            found.append(
                f"players' bests ({board}): {len(wrong)} players differ from their games "
                f"({names}{more})"
            )
    return found
