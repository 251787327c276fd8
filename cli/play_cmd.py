"""``twenty48 play``: the terminal UI, or scripted moves with ``--moves``.

Which game: ``--game ID`` that game; ``--new`` or ``--seed S`` a new one;
otherwise the current player's latest unfinished game (as the browser
original resumes), or a new one when there is none.  The current player is
``--player``, else the OS user name.  A signed fair-play record kept locally is
sealed: never resumed, and ``--game ID`` on it is refused (exit 1).
"""

from __future__ import annotations

import getpass
import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from twenty48_replay.core.board import Direction
from twenty48_replay.core.errors import (
    EXIT_FAILED,
    NullMoveError,
    RecordError,
    SealedGameError,
    Twenty48Error,
)
from twenty48_replay.core.game import GameState
from twenty48_replay.core.i18n import N_, _, ngettext, number
from twenty48_replay.core.rng import seed_key

from .common import DbOption, checked_moves, checked_player, open_store
from .helptext import formatted
from .limits import MAX_GAME_ID, MAX_MOVES
from .output import emit, fail, warn
from .render import state_text

if TYPE_CHECKING:
    from twenty48_replay.store import GameSession, Store


def default_player() -> str | None:
    """The OS user name, as the player of new games (None if unknown).

    The name comes from LOGNAME and friends, which may hold bytes that are
    not UTF-8 (Python keeps them as lone surrogates, which no database
    accepts): those bytes become U+FFFD, so the rest of the name survives.
    """
    try:
        name = getpass.getuser()
    except Exception:
        return None
    return os.fsencode(name).decode("utf-8", "replace") or None


def choose_session(
    store: Store, *, game: int | None, new: bool, seed: str | None, player: str | None
) -> GameSession | None:
    """The stored game to play (rules in the module docstring), or None for a new one.

    Nothing is written here: a new game is stored only once the command is
    sure to play it, so a refused command leaves no empty game behind.
    Plain ``play`` resumes only ``player``'s own games (None: games without
    a player), never the solver's or an imported one of someone else.
    """
    if game is not None and (new or seed is not None):
        raise typer.BadParameter(_("--game cannot be combined with --new or --seed"))
    if seed is not None:
        try:
            seed_key(seed)
        except RecordError as exc:
            raise typer.BadParameter(
                _("--seed: {reason}").format(reason=exc.code.translated())
            ) from None
    if game is not None:
        session = store.open_game(game)
        if session.sealed:  # refused before the UI opens or a letter is read
            raise SealedGameError(game)
        return session
    if not new and seed is None:
        return store.resume_latest(player)
    return None


def play_command(
    game: Annotated[
        int | None,
        typer.Option("--game", "-g", min=1, max=MAX_GAME_ID, help=N_("Continue this game id.")),
    ] = None,
    new: Annotated[bool, typer.Option("--new", help=N_("Start a new game."))] = False,
    seed: Annotated[
        str | None, typer.Option("--seed", help=N_("Start a new game with this seed."))
    ] = None,
    moves: Annotated[
        str | None,
        typer.Option(
            "--moves",
            "-m",
            help=formatted(
                N_(
                    "Apply these moves (letters U D L R) without the UI, storing each; "
                    "at most {count} letters."
                ),
                count=MAX_MOVES,
            ),
        ),
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", help=N_("Player name for a new game."))
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            help=N_("Play a provably fair game on this score server (twenty48 serve URL)."),
            show_default=False,
        ),
    ] = None,
    client_seed: Annotated[
        str | None,
        typer.Option(
            "--client-seed",
            help=N_("Your half of a fair game's seed (default: random)."),
            show_default=False,
        ),
    ] = None,
    register: Annotated[
        bool,
        typer.Option(
            "--register",
            help=N_(
                "With --server: register the --player name there, so that only you can "
                "play it (its secret is kept in the user data folder, mode 0600)."
            ),
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Play 2048 in the terminal; every move is saved before the next key is read."""
    player = checked_player(player) or default_player()
    if moves is not None and len(moves) > 2 * MAX_MOVES:
        # Checked before the database is opened; the letter count after spaces
        # are dropped is checked by checked_moves.
        raise typer.BadParameter(
            _("--moves: more than {limit} letters").format(limit=number(MAX_MOVES))
        )
    if register and server is None:
        raise typer.BadParameter(_("--register registers a name on a score server: add --server"))
    if server is not None:
        play_on_server(
            server, db, moves, player, client_seed, game=game, new=new, seed=seed, register=register
        )
        return
    letters = None if moves is None else checked_moves(moves)
    with open_store(db) as store:
        session = choose_session(store, game=game, new=new, seed=seed, player=player)
        if letters is not None:
            scripted_play(store, session, letters, seed=seed, player=player)
            return
        if not sys.stdin.isatty() or not sys.stdout.isatty():
            fail(_("the game needs a terminal; use --moves LURD... to play without one"))
            raise typer.Exit(2)
        if session is None:
            session = store.new_game(seed, player=player)
        from .tui.play_app import run_play_app

        run_play_app(store, session)


def play_on_server(
    url: str,
    db: str | None,
    moves: str | None,
    player: str | None,
    client_seed: str | None,
    *,
    game: int | None,
    new: bool,
    seed: str | None,
    register: bool = False,
) -> None:
    """``--server``: a new fair game there (scripted with ``--moves``, else in the UI)."""
    if game is not None or seed is not None:
        raise typer.BadParameter(_("--server plays a new fair game: no --game or --seed"))
    from twenty48_replay.fairplay.client import ServerUrlError, server_url

    try:
        server_url(url)
    except ServerUrlError as exc:
        raise typer.BadParameter(
            _("--server: {reason}").format(reason=exc.translated_reason())
        ) from None
    if client_seed is not None:
        from twenty48_replay.core.fair import validate_client_seed

        try:
            validate_client_seed(client_seed)
        except RecordError as exc:
            raise typer.BadParameter(
                _("--client-seed: {reason}").format(reason=exc.code.translated())
            ) from None
    from .remote_play import remote_ui_play, scripted_remote_play

    name = (player or "anonymous").strip()
    if moves is not None:
        scripted_remote_play(
            url, moves, player=name, db=db, client_seed=client_seed, register=register
        )
        return
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        fail(_("the game needs a terminal; use --moves LURD... to play without one"))
        raise typer.Exit(2)
    remote_ui_play(url, player=name, db=db, client_seed=client_seed, register=register)


def scripted_play(
    store: Store,
    session: GameSession | None,
    letters: str,
    *,
    seed: str | None = None,
    player: str | None = None,
) -> None:
    """Apply checked letters, committing each move; stop at the first refused letter.

    ``session`` None starts a new game (``seed``, ``player``), stored only
    if its first letter is played: a move string refused at once leaves no
    empty game behind.
    """
    if session is None:
        opening = GameState.new(seed)
        first = letters[:1]
        if first and not opening.board.slide(Direction(first)).changed:
            fail(
                _(
                    "letter 1 of --moves ({letter}, which would be move 1) refused: "
                    "it does not change the board; no game was stored"
                ).format(letter=first)
            )
            raise typer.Exit(EXIT_FAILED)
        session = store.new_game(opening.seed, player=player)
    start = session.state.moves
    applied = 0
    error: Twenty48Error | None = None
    for letter in letters:
        try:
            session.play(Direction(letter))
        except NullMoveError:
            over = session.state.over
            why = _("the game is over") if over else _("it does not change the board")
            if applied == 0:
                kept = _("nothing was stored")
            else:
                kept = ngettext(
                    "the move before it is stored",
                    "the {count} moves before it are stored",
                    applied,
                ).format(count=applied)
            error = Twenty48Error(
                _(
                    "letter {position} of --moves ({letter}, which would be move "
                    "{number}) refused: {why}; {kept}"
                ).format(
                    position=applied + 1,
                    letter=letter,
                    number=session.state.moves + 1,
                    why=why,
                    kept=kept,
                )
            )
            break
        applied += 1
    state = session.state
    emit(_("game {id}  seed {seed}").format(id=session.id, seed=repr(state.seed)))
    emit(state_text(state))
    if applied == 0:
        warn(_("applied no move"))
    elif applied == 1:
        warn(_("applied 1 move (move {number})").format(number=state.moves))
    else:
        warn(
            _("applied {count} moves (moves {first}-{last})").format(
                count=applied, first=start + 1, last=state.moves
            )
        )
    if error is not None:
        fail(str(error))
        raise typer.Exit(EXIT_FAILED)
