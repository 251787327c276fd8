"""``twenty48 play --server URL``: a fair game on a score server, every spawn from the server.

Nothing the server sends is trusted (:mod:`twenty48_replay.fairplay.witness`): each
answer is checked against the rules as it arrives, and at the end the
signed record is replayed and compared with everything shown and played,
then checked against the commitment, the client seed and the server's key.
A broken rule stops the game at once with one line naming the rule and the
move; the evidence (every answer received, in order) is kept in the local
store (``twenty48 evidence``) and the command exits 1.  An answer of the
wrong shape, or one not whole within the deadline, is exit 2.  A fair
record that passes is kept in the local store as well.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

import typer

from twenty48_replay.core.errors import EXIT_FAILED, Twenty48Error
from twenty48_replay.core.i18n import N_, _, ngettext, number
from twenty48_replay.core.text import printable
from twenty48_replay.fairplay.client import Client, MoveRefusedError, RemoteGame
from twenty48_replay.fairplay.witness import UnfairServerError

from .common import checked_moves, open_store
from .output import emit, fail, warn
from .render import state_text

if TYPE_CHECKING:
    from twenty48_replay.store import Store

    from .tui.remote_app import RemoteSession


def trusted_key(client: Client) -> Any:
    """The server's public key, as served (trust on first use)."""
    from twenty48_replay.fairplay.signing import TrustedKey

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
    """Check the signed record against everything shown and store it; the local game id.

    The store is opened by the caller before the game is created on the
    server, so a local database that cannot be used stops the command
    before anything is played (a fair game cannot be replayed later).
    Raises :class:`UnfairServerError` (exit 1, with the evidence) when the
    record is not the game that was shown and played.
    """
    checked = game.check(record, trusted_key(game.client))
    local = store.import_record(checked).game_id
    # The record names its server's key, not its URL: keep the URL for list and show.
    store.remember_server(str(record["fair"]["key_id"]), game.client.url)
    return local


KEPT = N_("evidence kept in the local store: twenty48 evidence {report}")
NOT_KEPT = N_("the evidence could not be kept: {note}")


class EvidenceKeptError(Twenty48Error):
    """A broken rule, its evidence kept in the local store as report ``report`` (exit 1)."""

    exit_code: ClassVar[int] = EXIT_FAILED

    def __init__(self, unfair: UnfairServerError, report: int | None, note: str = "") -> None:
        self.unfair = unfair
        self.report = report
        self.note = note
        super().__init__(self._text(english=True))

    def _text(self, *, english: bool) -> str:
        line = str(self.unfair) if english else self.unfair.translated()
        tr: Callable[[str], str] = str if english else _
        if self.report is None:
            return line + "; " + tr(NOT_KEPT).format(note=self.note)
        return line + "; " + tr(KEPT).format(report=self.report)

    def translated(self) -> str:
        return self._text(english=False)


@contextmanager
def evidence_kept(store: Store) -> Iterator[None]:
    """Turn a broken rule into one line and exit 1, its evidence kept in ``store``."""
    try:
        yield
    except UnfairServerError as exc:
        from twenty48_replay.core.timestamps import now_ms
        from twenty48_replay.store import save_evidence

        try:
            report = save_evidence(store, now_ms(), str(exc), exc.evidence)
        except Twenty48Error as failure:
            raise EvidenceKeptError(exc, None, failure.translated()) from None
        raise EvidenceKeptError(exc, report) from None


class NameTakenError(Twenty48Error):
    """The name is registered on the server and no secret for it is kept here (exit 1)."""


def player_secret(client: Client, name: str, *, register: bool) -> str | None:
    """The secret to play ``name`` with on this server: kept, newly registered, or None.

    A kept secret (see :mod:`twenty48_replay.fairplay.player_secrets`) is used as it
    is; ``register`` registers the name when none is kept and keeps the
    secret (0600).  The secret is never shown.
    """
    from twenty48_replay.fairplay import player_secrets
    from twenty48_replay.fairplay.client import ServerError
    from twenty48_replay.store import Store

    folder = Store.data_folder()
    kept = player_secrets.load(folder, client.url, name)
    if kept is not None or not register:
        return kept
    try:
        answer = client.register(name)
    except ServerError as exc:
        if exc.status == 409:
            raise NameTakenError(
                _("{name} (or a name that looks the same) is registered on {url} already").format(
                    name=printable(name), url=client.url
                )
            ) from None
        raise
    secret = answer.get("secret") if isinstance(answer, dict) else None
    if not player_secrets.valid_secret(secret):
        raise NameTakenError(_("the server's answer to the registration holds no secret"))
    assert isinstance(secret, str)
    path = player_secrets.save(folder, client.url, name, secret)
    warn(
        _("registered {name} on {url}; its secret is kept in {path} (only you can read it)").format(
            name=printable(name), url=client.url, path=printable(str(path))
        )
    )
    return secret


def offer_registration(client: Client, name: str, secret: str | None) -> None:
    """After a game under an unregistered name: say how to make it yours."""
    if secret is None:
        warn(
            _(
                "played as {name}, a name anyone may use on {url}; to make it yours there, "
                "play with --register"
            ).format(name=printable(name), url=client.url)
        )


def start_game(
    client: Client, name: str, client_seed: str | None, secret: str | None
) -> RemoteGame:
    """A new fair game as ``name``; a registered name without its secret says what to do."""
    from twenty48_replay.fairplay.client import ServerError

    try:
        return RemoteGame(client, name, client_seed, secret=secret)
    except ServerError as exc:
        if exc.status == 401:
            raise NameTakenError(
                _(
                    "{name} is registered on {url}, and its secret is not kept here: "
                    "choose another --player (or play from where you registered it)"
                ).format(name=printable(name), url=client.url)
            ) from None
        raise


def scripted_remote_play(
    url: str,
    moves: str,
    *,
    player: str,
    db: str | None,
    client_seed: str | None,
    register: bool = False,
) -> None:
    """Play a move string on the server, finish the game, keep its record; exit 1 if refused.

    A refused letter ends the game: it is finished and signed as it stands.
    """
    letters = checked_moves(moves)
    client = Client(url)
    try:
        with open_store(db) as store, evidence_kept(store):
            secret = player_secret(client, player, register=register)
            game = start_game(client, player, client_seed, secret)
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
                        position=index, letter=letter, reason=exc.translated_reason()
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
    offer_registration(client, player, secret)
    if refused is not None:
        fail(refused)
        raise typer.Exit(EXIT_FAILED)


def run_remote_ui(store: Store, session: RemoteSession) -> None:
    """Run the game UI until the player quits or the server breaks a rule."""
    from .tui.remote_app import run_remote_app

    run_remote_app(store, session)


def remote_ui_play(
    url: str,
    *,
    player: str,
    db: str | None,
    client_seed: str | None,
    client: Client | None = None,
    run: Callable[[Store, RemoteSession], None] = run_remote_ui,
    register: bool = False,
) -> None:
    """The game UI on the server; on quit the game is finished and its record checked and kept.

    ``client`` and ``run`` let tests drive the same path headless (Textual's
    ``run_test``) against a server of their choosing.  When the server broke
    a rule or sent an unusable answer during play, the UI has closed at once
    and that error is raised here (exit 1 with the evidence kept, or exit 2).
    """
    from .tui.remote_app import RemoteSession

    client = client or Client(url)
    try:
        with open_store(db) as store, evidence_kept(store):
            secret = player_secret(client, player, register=register)
            game = start_game(client, player, client_seed, secret)
            session = RemoteSession(game)
            run(store, session)
            if session.stopped is not None:
                raise session.stopped
            record = game.finish()
            local = keep_record(store, game, record)
    finally:
        client.close()
    warn(signed_line(game, client.record_url(game.id), local))
    warn(revealed(game, record))
    offer_registration(client, player, secret)


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
