"""``twenty48 player-secret``: carry a registered name between the terminal and a browser.

``play --server URL --player NAME --register`` keeps the name's secret in
the user data folder (:mod:`twenty48_replay.fairplay.player_secrets`);
this prints it on standard output, alone on its line, so that the player
can paste it into the play page's "I have this name's secret" field (the
page keeps it in the browser from then on).  With ``--keep`` it goes the
other way: a secret shown by the play page ("Show the secret kept here")
is read from standard input, never from the command line, where other
users of the machine could see it in the process list, and kept for
``play --server``.  It is never put in a URL.
"""

from __future__ import annotations

import sys
from typing import Annotated, Final

import typer

from twenty48_replay.core.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.text import printable

from .output import warn


class NoSecretKeptError(Twenty48Error):
    """No secret of this name on this server is kept here (exit 1)."""


class OtherSecretKeptError(Twenty48Error):
    """A different secret of this name is kept here; ``--replace`` is needed (exit 1)."""


class NotASecretError(Twenty48Error):
    """What was given on standard input cannot be a name's secret (exit 2)."""

    exit_code = EXIT_UNUSABLE


#: Bytes read from standard input at most: a secret is at most 256 characters.
MAX_SECRET_INPUT: Final = 1024


def player_secret_command(
    server: Annotated[
        str,
        typer.Option("--server", help=N_("The score server the name is registered on (its URL).")),
    ],
    player: Annotated[str, typer.Option("--player", help=N_("The registered name."))],
    keep: Annotated[
        bool,
        typer.Option(
            "--keep",
            help=N_(
                "Keep the secret given on standard input (as the play page shows it) for "
                "play --server, instead of printing the one kept here."
            ),
        ),
    ] = False,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace", help=N_("With --keep: replace a different secret kept for the name.")
        ),
    ] = False,
) -> None:
    """Print a registered name's secret kept here, to play the name in a browser."""
    from twenty48_replay.fairplay.client import ServerUrlError, server_url

    try:
        url = server_url(server)
    except ServerUrlError as exc:
        raise typer.BadParameter(
            _("--server: {reason}").format(reason=exc.translated_reason())
        ) from None
    if replace and not keep:
        raise typer.BadParameter(_("--replace goes with --keep"))
    name = player.strip()
    if keep:
        _keep(url, name, _given_secret(url, name), replace=replace)
    else:
        _print(url, name)


def _print(url: str, name: str) -> None:
    from twenty48_replay.fairplay import player_secrets
    from twenty48_replay.store import Store

    secret = player_secrets.load(Store.data_folder(), url, name)
    if secret is None:
        raise NoSecretKeptError(
            _(
                "no secret of {name} on {url} is kept here: register it with "
                "twenty48 play --server {url} --player NAME --register"
            ).format(name=printable(name), url=url)
        )
    warn(
        _(
            "the secret of {name} on {url}: whoever has it can play as {name}. Paste it into "
            "the play page's \"I have this name's secret\" field, never into a URL."
        ).format(name=printable(name), url=url)
    )
    typer.echo(secret)


def _given_secret(url: str, name: str) -> str:
    """The secret on standard input: typed unseen at a terminal, else its first line."""
    from twenty48_replay.fairplay import player_secrets

    if sys.stdin.isatty():
        typed = typer.prompt(
            _("The secret of {name} on {url} (not shown)").format(name=printable(name), url=url),
            hide_input=True,
            err=True,
        )
        given = str(typed)[:MAX_SECRET_INPUT]
    else:
        data = sys.stdin.buffer.read(MAX_SECRET_INPUT + 1)
        try:
            given = data.decode("ascii") if len(data) <= MAX_SECRET_INPUT else ""
        except UnicodeDecodeError:
            given = ""
    secret = given.strip()
    if not player_secrets.valid_secret(secret):
        raise NotASecretError(
            _(
                "standard input: not a name's secret (16 to 256 letters, digits, - and _, "
                "as the play page shows it)"
            )
        )
    return secret


def _keep(url: str, name: str, secret: str, *, replace: bool) -> None:
    from twenty48_replay.fairplay import player_secrets
    from twenty48_replay.store import Store

    folder = Store.data_folder()
    kept = player_secrets.load(folder, url, name)
    shown = printable(name)
    if kept == secret:
        warn(_("this secret of {name} on {url} was already kept here").format(name=shown, url=url))
        return
    if kept is not None and not replace:
        raise OtherSecretKeptError(
            _(
                "a different secret of {name} on {url} is kept here: give --replace to keep "
                "the new one instead (the old one is then lost)"
            ).format(name=shown, url=url)
        )
    player_secrets.save(folder, url, name, secret)
    warn(
        _(
            "kept the secret of {name} on {url}: twenty48 play --server {url} --player "
            "{name} plays as {name}"
        ).format(name=shown, url=url)
    )
