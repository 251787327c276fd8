"""Looking at stored games: ``list``, ``show``, ``stats``, ``where`` and ``check``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import typer

from twenty48_replay.errors import EXIT_FAILED
from twenty48_replay.i18n import N_, _, decimal, ngettext
from twenty48_replay.text import printable
from twenty48_replay.timestamps import record_times

from .common import DbOption, JsonOption, checked_player, local_time, open_store
from .limits import MAX_GAME_ID, MAX_LIST
from .output import emit, emit_json, warn
from .render import board_text, summary_line

#: The words of a game's state (GameInfo.state_label, also in JSON as they are),
#: marked here for translation where they are shown to people.
STATE_WORDS = (N_("playing"), N_("won"), N_("over"), N_("damaged"), N_("ended"))

if TYPE_CHECKING:
    from twenty48_replay.store import GameInfo


def shown_state(info: GameInfo) -> str:
    """The state as people read it: a signed record ended before game over is "ended".

    JSON keeps ``state_label`` ("playing") and adds ``sealed``, as it always has; but
    "playing" would tell a person the game can go on, and a sealed game takes no move.
    """
    if info.sealed and info.state_label == "playing":
        return "ended"
    return info.state_label


StateFilter = Literal["all", "unfinished", "over", "won"]
#: The widest player name ``list`` shows in full (longer names end in "...").
PLAYER_WIDTH = 16

PlayerFilter = Annotated[str | None, typer.Option("--player", help=N_("Only this player's games."))]


def list_command(
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=MAX_LIST, help=N_("How many games."))
    ] = 20,
    state: Annotated[
        StateFilter, typer.Option("--state", help=N_("Only games in this state."))
    ] = "all",
    player: PlayerFilter = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Recent games: id, date, player, score, max tile, moves and state."""
    player = checked_player(player)
    with open_store(db) as store:
        games = store.list_games(limit=limit, state=state, player=player)
    if as_json:
        for g in games:
            emit_json(
                {
                    "id": g.id,
                    "seed": g.seed,
                    "player": g.player,
                    "created": local_time(g.created_ms),
                    "updated": local_time(g.updated_ms),
                    "score": g.score,
                    "max_tile": g.max_tile,
                    "moves": g.move_count,
                    "won": g.won,
                    "over": g.over,
                    "assisted": g.assisted,
                    "sealed": g.sealed,
                }
            )
        return
    if not games:
        filters = ([] if state == "all" else [f"--state {state}"]) + (
            [] if player is None else [f"--player {printable(repr(player))}"]
        )
        if filters:
            warn(_("no game matches {filters}").format(filters=" ".join(filters)))
        else:
            warn(_("no games yet: start one with 'twenty48 play'"))
        return
    players = [printable(g.player) if g.player else "-" for g in games]
    heading = {
        key: _(key)
        for key in (N_("id"), N_("played"), N_("player"), N_("score"), N_("max"), N_("moves"))
    }
    width = min(max(len(heading["player"]), *(len(name) for name in players)), PLAYER_WIDTH)
    emit(
        f"{heading['id']:>5}  {heading['played']:16}  {heading['player']:{width}}  "
        f"{heading['score']:>8}  {heading['max']:>6}  {heading['moves']:>6}  " + _("state")
    )
    for g, name in zip(games, players, strict=True):
        label = _(shown_state(g)) + "".join(
            f" ({_(flag)})"
            for flag, on in ((N_("assisted"), g.assisted), (N_("signed"), g.sealed))
            if on
        )
        shown = name if len(name) <= width else name[: width - 3] + "..."
        emit(
            f"{g.id:>5}  {local_time(g.updated_ms):16}  {shown:{width}}  {g.score:>8}  "
            f"{g.max_tile:>6}  {g.move_count:>6}  {label}"
        )


def show_command(
    game_id: Annotated[
        int,
        typer.Argument(
            min=1,
            max=MAX_GAME_ID,
            metavar="ID",
            help=N_("Game id (see 'twenty48 list')."),
        ),
    ],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """One game: board, score and a summary of its record."""
    with open_store(db) as store:
        info, record = store.game_info_and_record(game_id)
    if as_json:
        emit_json(
            {"id": info.id, "state": info.state_label, "sealed": info.sealed, **record.to_dict()}
        )
        return
    flags = [shown_state(info)] + ([N_("assisted")] if info.assisted else [])
    if info.sealed:
        flags.append(N_("signed fair-play record"))
    player = printable(info.player) if info.player else "-"
    emit(
        _("game {id}  seed {seed}  player {player}").format(
            id=info.id, seed=printable(repr(info.seed)), player=player
        )
    )
    emit(dates_line(info))
    emit(summary_line(info.score, info.move_count, info.max_tile, flags))
    emit(board_text(info.board))
    tail = record.moves[-60:]
    emit(_("moves: {moves}").format(moves=("..." if len(record.moves) > 60 else "") + tail))


def dates_line(info: GameInfo) -> str:
    """When a game was played: an imported one by its record's own start and end."""
    if info.extra is not None and record_times(info.extra) == (None, None):
        return _("imported {time} (its record gives no start or end time)").format(
            time=local_time(info.created_ms)
        )
    if info.over:
        text = _("started {start}  finished {end}")
    else:
        text = _("started {start}  last move {end}")
    return text.format(start=local_time(info.created_ms), end=local_time(info.updated_ms))


def stats_command(
    player: PlayerFilter = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Best score, games, wins, average score and highest-tile distribution."""
    player = checked_player(player)
    with open_store(db) as store:
        stats = store.stats(player)
    if as_json:
        emit_json(stats.to_json())
        return
    rows = [
        (
            _("games"),
            _("{games} ({finished} finished)").format(games=stats.games, finished=stats.finished),
        ),
        (_("wins"), str(stats.wins)),
        (_("best score"), str(stats.best_score)),
        (_("average"), decimal(stats.average_score)),
        (_("moves"), str(stats.total_moves)),
    ]
    for name, value in rows:
        emit(f"{name:12} {value}")
    if stats.max_tiles:
        emit(_("highest tile"))
        top = max(stats.max_tiles.values())
        for tile, count in sorted(stats.max_tiles.items(), reverse=True):
            bar = "#" * max(1, round(30 * count / top))
            emit(f"  {tile:>6}  {count:>5}  {bar}")


def where_command(db: DbOption = None) -> None:
    """Print where the database is (creating it if needed)."""
    with open_store(db) as store:
        emit(printable(store.name))


def check_command(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Compare the schema with ours, re-derive every game, run the integrity check.

    Opens the database read-only and without requiring its schema to match,
    so a damaged or altered database of ours can be inspected (and nothing
    in it changes).
    """
    with open_store(db, read_only=True) as store:
        report = store.check()
    if as_json:
        emit_json(
            {
                "healthy": report.healthy,
                "games": report.games,
                "moves": report.moves,
                "problems": list(report.problems),
            }
        )
    else:
        for problem in report.problems:
            emit(printable(problem))
        if report.healthy:
            verdict = _("healthy")
        else:
            count = len(report.problems)
            verdict = ngettext("{count} problem", "{count} problems", count).format(count=count)
        warn(
            _("checked {games} games, {moves} moves: {verdict}").format(
                games=report.games, moves=report.moves, verdict=verdict
            )
        )
    if not report.healthy:
        raise typer.Exit(EXIT_FAILED)
