"""``twenty48 admin``: an operator's actions on a score server's database (same ``--db``).

The group, and the key commands: ``admin keys`` lists every key the
server has signed with, ``admin revoke-key`` marks a retired one revoked.
Each action is a row in the database's append-only key history, which the
server publishes at ``/.well-known/twenty48-key`` with its next answer.
``admin rebuild-bests`` computes the leaderboard's players' bests again
from the games (derived data: ``twenty48 check`` says when it disagrees).
The moderation commands live in :mod:`moderation_cmd`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Final

import typer

from twenty48_replay.core.i18n import N_, _, ngettext
from twenty48_replay.core.text import printable

from .common import DbOption, JsonOption, open_server_store
from .helptext import EXAMPLES, HELP, examples
from .output import emit, emit_json, warn
from .typer_help import Group

#: A revocation reason is published and shown to verifiers: 1-500 characters (SPEC 11.6).
MAX_REASON: Final = 500
_KEY_ID: Final = re.compile(r"[0-9a-f]{16}")

admin_app = typer.Typer(
    cls=Group,
    help=HELP["admin"],
    epilog=examples(EXAMPLES["admin"]),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _key_id(value: str) -> str:
    if _KEY_ID.fullmatch(value) is None:
        raise typer.BadParameter(
            _("{value} is not a key id (16 lowercase hexadecimal digits)").format(
                value=printable(repr(value))
            )
        )
    return value


def _reason(value: str) -> str:
    text = value.strip()
    if not 1 <= len(text) <= MAX_REASON:
        raise typer.BadParameter(
            _("--reason must be 1 to {limit} characters").format(limit=MAX_REASON)
        )
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise typer.BadParameter(_("--reason must be one line of text (no control characters)"))
    return text


def keys_command(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Every key the server has signed with: its period of use, and whether it is revoked."""
    from twenty48_replay.core.timestamps import iso_ms
    from twenty48_replay.server import key_history

    with open_server_store(db) as store:
        history = key_history(store)
    uses = history.uses()
    if as_json:
        emit_json(
            {
                "keys": [
                    {
                        "key_id": use.key_id,
                        "public_key": use.public_key,
                        "from": iso_ms(use.since_ms),
                        "until": None if use.until_ms is None else iso_ms(use.until_ms),
                        "revoked": use.revoked is not None,
                        "reason": None if use.revoked is None else use.revoked.reason,
                    }
                    for use in reversed(uses)
                ]
            }
        )
        return
    for use in reversed(uses):
        if use.until_ms is None:
            state = _("in use")
        elif use.revoked is None:
            state = _("retired")
        else:
            state = _("revoked: {reason}").format(reason=use.revoked.reason)
        until = "" if use.until_ms is None else iso_ms(use.until_ms) or ""
        emit(f"{use.key_id}  {iso_ms(use.since_ms)} .. {until:24}  " + printable(state))
    if not uses:
        warn(_("no key recorded yet: 'twenty48 serve' records its key when it starts"))


def revoke_key_command(
    key_id: Annotated[
        str, typer.Argument(metavar="KEY_ID", callback=_key_id, help=N_("The key to revoke."))
    ],
    reason: Annotated[
        str,
        typer.Option(
            "--reason",
            callback=_reason,
            help=N_("Why, published with the key (1 to 500 characters)."),
            show_default=False,
        ),
    ],
    db: DbOption = None,
) -> None:
    """Mark a retired key revoked: every record it signed is refused by verify --trust URL."""
    from twenty48_replay.server import revoke

    with open_server_store(db) as store:
        revoke(store, key_id, reason)
    warn(
        _(
            "key {key} revoked: {reason} (published at /.well-known/twenty48-key with the "
            "server's next answer; verify --trust URL now refuses its records)"
        ).format(key=key_id, reason=reason)
    )


def rebuild_bests_command(db: DbOption = None) -> None:
    """Compute every player's best game on the leaderboard again, from the games."""
    with open_server_store(db) as store:
        rows = store.rebuild_bests()
    warn(
        ngettext(
            "players' bests rebuilt from the games: {count} row",
            "players' bests rebuilt from the games: {count} rows",
            rows,
        ).format(count=rows)
    )
