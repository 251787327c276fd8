"""``twenty48 admin``'s moderation commands (the group is in :mod:`admin_cmd`), on ``--db``.

``hide GAME`` / ``unhide GAME`` take a fair game off the leaderboard and
back; ``ban PLAYER`` / ``unban PLAYER`` do the same for every game of a
name (and of every name that looks the same), and refuse it new games and
registration.  Each action is one append-only row of the moderation log
(who, when, what, why: ``admin log``); the leaderboard reads the log on
every request, so an action counts from the server's next answer, while it
runs, on SQLite or PostgreSQL.  Records stay downloadable and verifiable.
``admin suspects`` lists the leaderboard's games by bot signal.
"""

from __future__ import annotations

import getpass
import os
from typing import Annotated, Final

import typer

from twenty48_replay.core.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.text import printable

from .common import DbOption, local_time, open_server_store
from .limits import MAX_GAME_ID, MAX_LIST, MAX_TOP
from .output import emit, emit_json, warn

#: The longest reason and actor name kept.
MAX_REASON: Final = 2000
MAX_ACTOR: Final = 200
MAX_PLAYER: Final = 200


class ModerationError(Twenty48Error):
    """The action changes nothing or names no game (exit 1)."""


class ModerationUsageError(Twenty48Error):
    """An unusable reason, actor or name (exit 2)."""

    exit_code = EXIT_UNUSABLE


ReasonOption = Annotated[
    str, typer.Option("--reason", "-r", help=N_("Why: kept in the moderation log."))
]
OptionalReason = Annotated[
    str, typer.Option("--reason", "-r", help=N_("Why: kept in the moderation log."))
]
ByOption = Annotated[
    str | None,
    typer.Option(
        "--by", help=N_("Who acts, for the moderation log (default: the operating system user).")
    ),
]
GameArgument = Annotated[
    int,
    typer.Argument(
        metavar="GAME",
        min=1,
        max=MAX_GAME_ID,
        help=N_("The fair game's id (the leaderboard's and /games/ID's)."),
    ),
]
PlayerArgument = Annotated[str, typer.Argument(metavar="PLAYER", help=N_("The player's name."))]
JsonOption = Annotated[bool, typer.Option("--json", help=N_("One JSON object per line."))]


def _text(value: str, what: str, limit: int, *, empty_ok: bool = False) -> str:
    """An operator's text: bounded, no control characters (exit 2 otherwise)."""
    value = value.strip()
    if not value and not empty_ok:
        raise ModerationUsageError(_("{what} is empty").format(what=what))
    if len(value) > limit:
        raise ModerationUsageError(
            _("{what} is longer than {limit} characters").format(what=what, limit=limit)
        )
    if printable(value) != value:
        raise ModerationUsageError(_("{what} holds control characters").format(what=what))
    return value


def _actor(by: str | None) -> str:
    if by is None:
        try:
            by = os.fsencode(getpass.getuser()).decode("utf-8", "replace")
        except Exception:
            by = ""
        if not by:
            raise ModerationUsageError(_("who acts is unknown here: say it with --by NAME"))
    return _text(by, "--by", MAX_ACTOR)


def _moderate(
    action: str,
    db: str | None,
    by: str | None,
    reason: str,
    *,
    game: int | None = None,
    player: str | None = None,
) -> None:
    from twenty48_replay.core.timestamps import now_ms
    from twenty48_replay.store import players as player_store

    actor = _actor(by)
    why = _text(reason, "--reason", MAX_REASON, empty_ok=action in ("unhide", "unban"))
    if player is not None:
        player = _text(player, _("the player's name"), MAX_PLAYER)
    with open_server_store(db) as store:
        done = player_store.moderate(
            store,
            action,
            actor=actor,
            reason=why,
            now_ms=now_ms(),
            fair_id=game,
            player=player,
        )
    if done.outcome == player_store.NO_SUCH_GAME:
        raise ModerationError(_("no fair game {id} in this database").format(id=game))
    shown = str(game) if player is None else printable(player)
    if done.outcome == player_store.UNCHANGED:
        raise ModerationError(
            {
                "hide": _("game {target} is hidden already"),
                "unhide": _("game {target} is not hidden"),
                "ban": _("{target} is banned already"),
                "unban": _("{target} is not banned"),
            }[action].format(target=shown)
        )
    emit(
        {
            "hide": _("game {target} hidden (log entry {entry})"),
            "unhide": _("game {target} shown again (log entry {entry})"),
            "ban": _("{target} banned (log entry {entry})"),
            "unban": _("{target} no longer banned (log entry {entry})"),
        }[action].format(target=shown, entry=done.action_id)
    )


def hide_command(
    game: GameArgument, reason: ReasonOption, by: ByOption = None, db: DbOption = None
) -> None:
    """Take a fair game off the leaderboard (its record stays downloadable)."""
    _moderate("hide", db, by, reason, game=game)


def unhide_command(
    game: GameArgument, reason: OptionalReason = "", by: ByOption = None, db: DbOption = None
) -> None:
    """Put a hidden game back on the leaderboard."""
    _moderate("unhide", db, by, reason, game=game)


def ban_command(
    player: PlayerArgument, reason: ReasonOption, by: ByOption = None, db: DbOption = None
) -> None:
    """Take every game of a name (and its look-alikes) off the leaderboard; refuse it new games."""
    _moderate("ban", db, by, reason, player=player)


def unban_command(
    player: PlayerArgument, reason: OptionalReason = "", by: ByOption = None, db: DbOption = None
) -> None:
    """Lift a ban."""
    _moderate("unban", db, by, reason, player=player)


def log_command(
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=MAX_LIST, help=N_("How many actions."))
    ] = 50,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """The moderation log, newest first: when, who, what, why."""
    from twenty48_replay.core.timestamps import iso_ms
    from twenty48_replay.store import players as player_store

    with open_server_store(db) as store:
        actions = player_store.read_log(store, limit)
    if not actions and not as_json:
        warn(_("the moderation log is empty"))
    for action in actions:
        target = str(action.fair_id) if action.player is None else action.player
        if as_json:
            emit_json(
                {
                    "id": action.id,
                    "at": iso_ms(action.acted_ms),
                    "by": action.actor,
                    "action": action.action,
                    "game": action.fair_id,
                    "player": action.player,
                    "reason": action.reason,
                }
            )
            continue
        emit(
            _("{id}  {when}  {by}  {action} {target}  {reason}").format(
                id=action.id,
                when=local_time(action.acted_ms),
                by=printable(action.actor),
                action=action.action,
                target=printable(target),
                reason=printable(action.reason),
            )
        )


def suspects_command(
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=MAX_TOP, help=N_("How many games."))
    ] = 20,
    registered_only: Annotated[
        bool,
        typer.Option("--registered-only", help=N_("Only games played under a registered name.")),
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Leaderboard games by bot signal, suspected ones first (the server's default thresholds)."""
    from twenty48_replay.server import ServerConfig, signal_fields, suspects

    config = ServerConfig(db=db, registered_only=registered_only)
    with open_server_store(db) as store:
        judged = suspects(store, config, limit)
    if not judged and not as_json:
        warn(_("no finished fair game on the leaderboard"))
    for entry, verdict in judged:
        rate = (
            None
            if entry.engine_matches is None or not entry.engine_checked
            else entry.engine_matches / entry.engine_checked
        )
        if as_json:
            emit_json(
                {
                    "id": entry.fair_id,
                    "player": entry.player,
                    "registered": entry.registered,
                    "score": entry.score,
                    "moves": entry.moves,
                    **signal_fields(config, entry),
                }
            )
            continue
        if verdict.suspected is None:
            judgement = _("not analysed yet")
        elif verdict.suspected:
            judgement = _("suspected: {reasons}").format(reasons=", ".join(verdict.reasons))
        else:
            judgement = _("not suspected")
        emit(
            _(
                "game {id}  {player}  score {score}  engine match {rate}  "
                "median {interval}  {judgement}"
            ).format(
                id=entry.fair_id,
                player=printable(entry.player),
                score=entry.score,
                rate="?" if rate is None else f"{rate:.2f}",
                interval="?"
                if entry.median_interval_ms is None
                else f"{entry.median_interval_ms} ms",
                judgement=judgement,
            )
        )
