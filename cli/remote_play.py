"""``twenty48 play --server URL``: a fair game on a score server, every spawn from the server.

The finished, signed record is checked against what the client was
promised (its commitment, its client seed, its moves, the server's key)
and kept in the local store as well.
"""

from __future__ import annotations

from typing import Any

import typer

from twenty48_replay.client import Client, MoveRefusedError, RemoteGame, ServerError
from twenty48_replay.errors import EXIT_FAILED, Twenty48Error

from .common import open_store
from .output import emit, fail, warn
from .render import board_text, summary_line


def trusted_key(client: Client) -> Any:
    """The server's public key, as served (trust on first use)."""
    from twenty48_replay.signing import TrustedKey

    return TrustedKey.from_well_known(client.key())


def keep_record(db: str | None, game: RemoteGame, record: dict[str, Any]) -> int:
    """Check the signed record and store it locally; returns the local game id."""
    from twenty48_replay.record import Record

    problems = game.check_record(record, trusted_key(game.client))
    if problems:
        raise Twenty48Error(f"the server's record of game {game.id} is not fair: {problems[0]}")
    with open_store(db) as store:
        return store.import_record(Record.from_dict(record)).game_id


def scripted_remote_play(
    url: str, moves: str, *, player: str, db: str | None, client_seed: str | None
) -> None:
    """Play a move string on the server, finish the game, keep its record; exit 1 if refused."""
    letters = "".join(moves.split()).upper()
    bad = next((i for i, ch in enumerate(letters) if ch not in "UDLR"), None)
    if bad is not None:
        raise typer.BadParameter(
            f"--moves: letter {letters[bad]!r} at position {bad + 1} is not U, D, L or R"
        )
    client = Client(url)
    try:
        game = RemoteGame(client, player, client_seed)
        refused: str | None = None
        for index, letter in enumerate(letters, 1):
            if game.finished:
                refused = f"letter {index} of --moves ({letter}) refused: the game is over"
                break
            try:
                game.play(letter)
            except MoveRefusedError as exc:
                refused = f"letter {index} of --moves ({letter}) refused: {exc.reason}"
                break
        record = game.finish()
        local = keep_record(db, game, record)
    except ServerError as exc:
        raise Twenty48Error(str(exc)) from None
    finally:
        client.close()
    state = game.state
    flags = ["won"] if state.won else []
    if state.over:
        flags.append("over")
    emit(f"game {game.id} on {url}  commitment {game.commitment}")
    emit(summary_line(state.score, state.moves, state.max_tile, flags))
    emit(board_text(state.board))
    warn(
        f"finished and signed; record at {url}/api/games/{game.id}/record, "
        f"kept locally as game {local}"
    )
    if refused is not None:
        fail(refused)
        raise typer.Exit(EXIT_FAILED)


def remote_ui_play(url: str, *, player: str, db: str | None, client_seed: str | None) -> None:
    """The game UI on the server; on quit the game is finished and its record kept."""
    from .tui.remote_app import RemoteSession, run_remote_app

    client = Client(url)
    try:
        game = RemoteGame(client, player, client_seed)
        with open_store(db) as store:
            run_remote_app(store, RemoteSession(game))
        record = game.finish()
        local = keep_record(db, game, record)
    except ServerError as exc:
        raise Twenty48Error(str(exc)) from None
    finally:
        client.close()
    state = game.state
    warn(
        f"fair game {game.id}: score {state.score}, {state.moves} moves, finished and signed; "
        f"record at {url}/api/games/{game.id}/record, kept locally as game {local}"
    )
