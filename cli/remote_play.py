"""``twenty48 play --server URL``: a fair game on a score server, every spawn from the server.

The finished, signed record is checked against what the client was
promised (its commitment, its client seed, its moves, the server's key)
and kept in the local store as well.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from twenty48_replay.client import Client, MoveRefusedError, RemoteGame
from twenty48_replay.errors import EXIT_FAILED, Twenty48Error
from twenty48_replay.i18n import _, ngettext, number
from twenty48_replay.text import printable

from .common import checked_moves, open_store
from .output import emit, fail, warn
from .render import state_text

if TYPE_CHECKING:
    from twenty48_replay.store import Store


def trusted_key(client: Client) -> Any:
    """The server's public key, as served (trust on first use)."""
    from twenty48_replay.signing import TrustedKey

    return TrustedKey.from_well_known(client.key())


def revealed(game: RemoteGame, record: dict[str, Any]) -> str:
    """What the checked record proves, for the player to see at the end."""
    fair = record.get("fair")
    seed = fair.get("server_seed") if isinstance(fair, dict) else None
    return _(
        "server seed revealed: {seed}; commitment checked: its SHA-256 is "
        "{commitment}, sent before the first move; signature checked"
    ).format(seed=seed, commitment=game.commitment)


def keep_record(store: Store, game: RemoteGame, record: dict[str, Any]) -> int:
    """Check the signed record and store it locally; returns the local game id.

    The store is opened by the caller before the game is created on the
    server, so a local database that cannot be used stops the command
    before anything is played (a fair game cannot be replayed later).
    """
    from twenty48_replay.record import Record

    problems = game.check_record(record, trusted_key(game.client))
    if problems:
        raise Twenty48Error(
            _("the server's record of game {id} is not fair: {problem}").format(
                id=game.id, problem=problems[0]
            )
        )
    local = store.import_record(Record.from_dict(record)).game_id
    # The record names its server's key, not its URL: keep the URL for list and show.
    store.remember_server(str(record["fair"]["key_id"]), game.client.url)
    return local


def scripted_remote_play(
    url: str, moves: str, *, player: str, db: str | None, client_seed: str | None
) -> None:
    """Play a move string on the server, finish the game, keep its record; exit 1 if refused.

    A refused letter ends the game: it is finished and signed as it stands.
    """
    letters = checked_moves(moves)
    client = Client(url)
    try:
        with open_store(db) as store:
            game = RemoteGame(client, player, client_seed)
            refused: str | None = None
            for index, letter in enumerate(letters, 1):
                if game.finished:
                    refused = _(
                        "letter {position} of --moves ({letter}) refused: the game is over"
                    ).format(position=index, letter=letter)
                    break
                try:
                    game.play(letter)
                except MoveRefusedError as exc:
                    refused = _("letter {position} of --moves ({letter}) refused: {reason}").format(
                        position=index, letter=letter, reason=exc.reason
                    )
                    break
            record = game.finish()
            local = keep_record(store, game, record)
    finally:
        client.close()
    state = game.state
    emit(
        _("game {id} on {url}  commitment {commitment}").format(
            id=game.id, url=client.url, commitment=game.commitment
        )
    )
    emit(state_text(state))
    warn(
        _("finished and signed; record at {url}, kept locally as game {local}").format(
            url=client.record_url(game.id), local=local
        )
    )
    warn(revealed(game, record))
    if refused is not None:
        fail(refused)
        raise typer.Exit(EXIT_FAILED)


def remote_ui_play(url: str, *, player: str, db: str | None, client_seed: str | None) -> None:
    """The game UI on the server; on quit the game is finished and its record kept."""
    from .tui.remote_app import RemoteSession, run_remote_app

    client = Client(url)
    try:
        with open_store(db) as store:
            game = RemoteGame(client, player, client_seed)
            session = RemoteSession(game)
            run_remote_app(store, session)
            record = game.finish()
            local = keep_record(store, game, record)
    finally:
        client.close()
    warn(signed_line(game, client.record_url(game.id), local))
    warn(revealed(game, record))


def signed_line(game: RemoteGame, record_url: str, local: int) -> str:
    """What was signed, said once the game is over: the game, its score, where its record is."""
    state = game.state
    return ngettext(
        "signed fair game {id}: score {score}, {moves} move, largest tile {tile}; "
        "record at {url}, kept locally as game {local}",
        "signed fair game {id}: score {score}, {moves} moves, largest tile {tile}; "
        "record at {url}, kept locally as game {local}",
        state.moves,
    ).format(
        id=game.id,
        score=number(state.score),
        moves=number(state.moves),
        tile=number(state.max_tile),
        url=printable(record_url),
        local=local,
    )
