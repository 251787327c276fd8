"""``twenty48 player-secret``: a registered name's kept secret, to give it to the play page.

``play --server URL --player NAME --register`` keeps the name's secret in
the user data folder (:mod:`twenty48_replay.fairplay.player_secrets`);
this prints it on standard output, alone on its line, so that the player
can paste it into the play page's "I have this name's secret" field (the
page keeps it in the browser from then on).  It is never put in a URL.
"""

from __future__ import annotations

from typing import Annotated

import typer

from twenty48_replay.core.errors import Twenty48Error
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.text import printable

from .output import warn


class NoSecretKeptError(Twenty48Error):
    """No secret of this name on this server is kept here (exit 1)."""


def player_secret_command(
    server: Annotated[
        str,
        typer.Option("--server", help=N_("The score server the name is registered on (its URL).")),
    ],
    player: Annotated[str, typer.Option("--player", help=N_("The registered name."))],
) -> None:
    """Print a registered name's secret kept here, to play the name in a browser."""
    from twenty48_replay.fairplay import player_secrets
    from twenty48_replay.fairplay.client import ServerUrlError, server_url
    from twenty48_replay.store import Store

    try:
        url = server_url(server)
    except ServerUrlError as exc:
        raise typer.BadParameter(
            _("--server: {reason}").format(reason=exc.translated_reason())
        ) from None
    name = player.strip()
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
