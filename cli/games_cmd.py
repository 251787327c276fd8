"""Looking at stored games: ``list``, ``show``, ``stats``, ``where`` and ``check``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Final, Literal

import typer
from rich.cells import cell_len

from twenty48_replay.core.errors import EXIT_FAILED, GameNotFoundError, Twenty48Error
from twenty48_replay.core.i18n import N_, _, decimal, ngettext
from twenty48_replay.core.text import printable
from twenty48_replay.core.timestamps import record_times

from .columns import Column, Step, Table, fit, terminal_width
from .common import DbOption, JsonOption, checked_player, local_time, open_store
from .limits import MAX_GAME_ID, MAX_LIST
from .output import emit, emit_json, warn
from .render import board_text, summary_line

#: The words of a game's state (GameInfo.state_label, also in JSON as they are),
#: marked here for translation where they are shown to people.
STATE_WORDS = (N_("playing"), N_("won"), N_("over"), N_("damaged"), N_("ended"))

if TYPE_CHECKING:
    from twenty48_replay.store import GameInfo, Store


def shown_state(info: GameInfo) -> str:
    """The state as people read it: a signed record ended before game over is "ended".

    JSON keeps ``state_label`` ("playing") and adds ``sealed``, as it always has; but
    "playing" would tell a person the game can go on, and a sealed game takes no move.
    """
    if info.sealed and info.state_label == "playing":
        return "ended"
    return info.state_label


def origin_text(info: GameInfo, urls: dict[str, str]) -> str | None:
    """A kept fair game's server and its id there, for people; None for other games.

    The server is its URL where ``play --server`` remembered it, else its signing key.
    """
    from twenty48_replay.store.servers import fair_origin

    origin = fair_origin(info.extra)
    if origin is None:
        return None
    game = printable(str(origin.game_id))
    url = urls.get(origin.key_id)
    if url is None:
        return _("server game {game}, signing key {key}").format(game=game, key=origin.key_id)
    return _("server game {game} on {server}").format(game=game, server=printable(url))


def origin_json(info: GameInfo, urls: dict[str, str]) -> dict[str, object] | None:
    """``list --json``'s ``server_game``: the id on the server, its key id and URL (or null)."""
    from twenty48_replay.store.servers import fair_origin

    origin = fair_origin(info.extra)
    if origin is None:
        return None
    return {"id": origin.game_id, "key_id": origin.key_id, "server": urls.get(origin.key_id)}


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
        urls = store.server_urls() if any(g.sealed for g in games) else {}
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
                    "server_game": origin_json(g, urls),
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
    for line in fit(games_table(games, urls), terminal_width(), NARROWING):
        emit(line)


def games_table(games: list[GameInfo], urls: dict[str, str]) -> Table:
    """The games as ``list`` shows them, every column there (the widest form)."""
    heading = {
        key: _(key)
        for key in (
            N_("id"),
            N_("played"),
            N_("player"),
            N_("score"),
            N_("max"),
            N_("moves"),
            N_("server game"),
            N_("state"),
        )
    }
    states = [
        _(shown_state(g))
        + "".join(
            f" ({_(flag)})"
            for flag, on in ((N_("assisted"), g.assisted), (N_("signed"), g.sealed))
            if on
        )
        for g in games
    ]
    columns = [
        Column("id", heading["id"], [str(g.id) for g in games], right=True, minimum=5),
        Column("played", heading["played"], [local_time(g.updated_ms) for g in games], minimum=16),
        Column(
            "player",
            heading["player"],
            [printable(g.player) if g.player else "-" for g in games],
            limit=PLAYER_WIDTH,
        ),
        Column("score", heading["score"], [str(g.score) for g in games], right=True, minimum=8),
        Column("max", heading["max"], [str(g.max_tile) for g in games], right=True, minimum=6),
        Column(
            "moves", heading["moves"], [str(g.move_count) for g in games], right=True, minimum=6
        ),
    ]
    # A fair game's id on its server, as 'show' takes it: only when one is listed.
    servers = [server_reference(g, urls) or "-" for g in games]
    if any(reference != "-" for reference in servers):
        columns.append(Column("server", heading["server game"], servers))
    columns.append(Column("state", heading["state"], states))
    return Table(columns)


def _dates_only(table: Table, _excess: int) -> None:
    played = table.column("played")
    if played is not None:
        played.cells = [cell[:10] for cell in played.cells]
        played.minimum = 0


def _tight_numbers(table: Table, _excess: int) -> None:
    for key in ("id", "score", "max", "moves"):
        column = table.column(key)
        if column is not None:
            column.minimum = 0


def _dropping(key: str) -> Step:
    def drop(table: Table, _excess: int) -> None:
        table.drop(key)

    return drop


def _narrower(key: str, floor: int) -> Step:
    def narrow(table: Table, excess: int) -> None:
        column = table.column(key)
        if column is not None:
            least = max(floor, cell_len(column.heading))
            column.limit = max(least, column.width() - excess)

    return narrow


#: How ``list`` narrows itself for a narrow terminal, in order: the time of day, the room
#: kept for big numbers, the max tile, long names, the move count, the date, the server
#: game, and last a long state (its flags) cut with an ellipsis.
NARROWING: Final[tuple[Step, ...]] = (
    _dates_only,
    _tight_numbers,
    _dropping("max"),
    _narrower("player", 10),
    _dropping("moves"),
    _dropping("played"),
    _narrower("player", 4),
    _dropping("server"),
    _narrower("state", 4),
)


def server_reference(info: GameInfo, urls: dict[str, str]) -> str | None:
    """``SERVER#ID`` of a kept fair game, as ``show`` takes it (SERVER: URL, else key id)."""
    from twenty48_replay.store.servers import fair_origin

    origin = fair_origin(info.extra)
    if origin is None:
        return None
    server = urls.get(origin.key_id, origin.key_id)
    return printable(f"{server}#{origin.game_id}")


def show_command(
    game: Annotated[
        str,
        typer.Argument(
            metavar="ID",
            help=N_(
                "Game id (see 'twenty48 list'), or SERVER#ID: a fair game by its id on its "
                "server (SERVER: its URL or signing key id, as 'list' shows them)."
            ),
            show_default=False,
        ),
    ],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """One game: board, score and a summary of its record."""
    with open_store(db) as store:
        game_id = resolve_game(store, game)
        try:
            info, record = store.game_info_and_record(game_id)
        except GameNotFoundError:
            held = store.games_from_server(game_id)
            if not held:
                raise
            urls = store.server_urls()
            first = store.game_info(held[0])
            raise Twenty48Error(
                _(
                    "no game {id} here; server game {id} ({server}) is local game {local}: "
                    "twenty48 show {local}"
                ).format(id=game_id, server=server_name(first, urls), local=held[0])
            ) from None
        urls = store.server_urls() if info.sealed else {}
        others = (
            [local for local in store.games_from_server(game_id) if local != game_id]
            if game.isdigit()
            else []
        )
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
    origin = origin_text(info, urls)
    if origin is not None:
        emit(
            _("{origin} (twenty48 show {reference})").format(
                origin=origin, reference=server_reference(info, urls)
            )
        )
    for local in others:
        warn(
            _("note: server game {id} is local game {local}: twenty48 show {local}").format(
                id=game_id, local=local
            )
        )


def server_name(info: GameInfo, urls: dict[str, str]) -> str:
    """A kept fair game's server: its URL where known, else its signing key."""
    from twenty48_replay.store.servers import fair_origin

    origin = fair_origin(info.extra)
    if origin is None:
        return "-"
    url = urls.get(origin.key_id)
    if url is None:
        return _("signing key {key}").format(key=origin.key_id)
    return printable(url)


def resolve_game(store: Store, text: str) -> int:
    """The local id ``show`` means: a number, or ``SERVER_URL#ID`` (a fair game's server id)."""
    from twenty48_replay.fairplay.client import ServerUrlError, server_url

    if text.isascii() and text.isdigit():
        number = int(text)
        if not 1 <= number <= MAX_GAME_ID:
            raise typer.BadParameter(
                _("game id {id} is out of range (1 to {most})").format(
                    id=printable(text), most=MAX_GAME_ID
                )
            )
        return number
    where, sep, ident = text.rpartition("#")
    if not sep or not where or not ident:
        raise typer.BadParameter(
            _(
                "{text} is not a game id: give a number from 'twenty48 list', or "
                "SERVER#ID for a fair game by its id on its server"
            ).format(text=printable(repr(text)))
        )
    server_id = server_game_id(ident)
    if KEY_ID.fullmatch(where):  # a signing key's id, as 'list' shows an imported record's
        keys, url = [where], where
    else:
        try:
            url = server_url(where)
        except ServerUrlError as exc:
            raise typer.BadParameter(exc.translated_reason()) from None
        keys = [key for key, known in store.server_urls().items() if known == url]
    if not keys:
        raise Twenty48Error(
            _("no fair game from {url} is kept here (twenty48 play --server {url})").format(
                url=printable(url)
            )
        )
    held = [local for key in keys for local in store.games_from_server(server_id, key)]
    if not held:
        raise Twenty48Error(
            _("no game here holds {url}#{id}").format(url=printable(url), id=printable(ident))
        )
    return min(held)


KEY_ID = re.compile(r"[0-9a-f]{16}")


def server_game_id(text: str) -> int | str:
    """A server's game id as its records write it: a number up to 2^53, or text."""
    if text.isascii() and text.isdigit() and int(text) <= 2**53:
        return int(text)
    if len(text) > 128:
        raise typer.BadParameter(_("a server game id has at most 128 characters"))
    return text


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


def _heads(values: list[str] | None) -> list[str]:
    """``--head`` checked now: ``LOG:ROWS:HEAD`` as check, backup and /readyz print them."""
    from twenty48_replay.store.log_chain import parse_head

    for value in values or []:
        if parse_head(value) is None:
            raise typer.BadParameter(
                _(
                    "--head {value} is not LOG:ROWS:HEAD (LOG key_events or moderation_log, "
                    "HEAD 64 hexadecimal digits), as check prints it"
                ).format(value=printable(repr(value)))
            )
    return values or []


def check_command(
    head: Annotated[
        list[str] | None,
        typer.Option(
            "--head",
            callback=_heads,
            metavar="LOG:ROWS:HEAD",
            help=N_(
                "A log head written down earlier (after a backup, from /readyz): the log must "
                "still pass through it (repeatable)."
            ),
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compare the schema with ours, re-derive every game, run the integrity check.

    Opens the database read-only and without requiring its schema to match,
    so a damaged or altered database of ours can be inspected (and nothing
    in it changes).  A score server's database also has its moderation log
    and key history followed along their hash chains; their heads are
    printed, to compare with heads written down earlier.
    """
    from twenty48_replay.store.log_chain import parse_head

    written = [found for text in head or [] if (found := parse_head(text)) is not None]
    with open_store(db, read_only=True) as store:
        report = store.check(written)
    if as_json:
        emit_json(
            {
                "healthy": report.healthy,
                "games": report.games,
                "moves": report.moves,
                "problems": list(report.problems),
                "chains": None if report.chains is None else report.chains.as_json(),
            }
        )
    else:
        for problem in report.problems:
            emit(printable(problem))
        for found in () if report.chains is None else report.chains.heads:
            emit(
                ngettext(
                    "{log}: {count} row; to compare later: --head {text}",
                    "{log}: {count} rows; to compare later: --head {text}",
                    found.length,
                ).format(log=found.log, count=found.length, text=printable(found.text()))
            )
        if report.healthy:
            verdict = _("healthy")
        else:
            count = len(report.problems)
            verdict = ngettext("{count} problem", "{count} problems", count).format(count=count)
        emit(  # the verdict is the result: stdout, as the problems and heads above
            _("checked {games} games, {moves} moves: {verdict}").format(
                games=report.games, moves=report.moves, verdict=verdict
            )
        )
    if not report.healthy:
        raise typer.Exit(EXIT_FAILED)
