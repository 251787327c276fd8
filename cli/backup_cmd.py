"""``twenty48 backup``: a consistent copy of a live SQLite database (the key file is separate)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from twenty48_replay.core.i18n import N_, _, ngettext, number
from twenty48_replay.core.text import printable

from .common import DbOption, open_store
from .output import emit, warn
from .writing import database_files

if TYPE_CHECKING:
    from twenty48_replay.store.backup import BackupReport
    from twenty48_replay.store.log_chain import ChainReport


def backup_command(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help=N_("The copy to write (needed; mode 0600; refused if it exists, unless --force)."),
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help=N_(
                "Replace an existing file (never the database itself, nor a live database: "
                "restoring is a separate step, with the server stopped)."
            ),
        ),
    ] = False,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help=N_(
                "The server's private key file (serve's --key): checked to hold the key the "
                "database signs with, and named as the file to keep with the copy."
            ),
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """A consistent copy of the SQLite database, made while it is in use (serve may run)."""
    from twenty48_replay.fairplay.signing import ServerKey
    from twenty48_replay.server import key_files_holding, key_history
    from twenty48_replay.store import Store
    from twenty48_replay.store.backup import refuse_live

    if output is None:
        raise typer.BadParameter(_("--output FILE is needed: where to write the copy"))
    shown = printable(str(output))
    if str(output) == "-" or output.is_dir():
        raise typer.BadParameter(
            _("--output {file} must name a file (the copy is a database)").format(file=shown)
        )
    live = Store.sqlite_file(db)
    for path in database_files(None if live is None else str(live)):
        if _same_file(output, path):
            raise typer.BadParameter(
                _(
                    "--output {file} is the database's own file ({path}); refusing to write over it"
                ).format(file=shown, path=printable(str(path)))
            )
    refuse_live(output)  # even with --force: restoring is a step of its own, server stopped
    if output.exists() and not force:
        raise typer.BadParameter(
            _("--output {file} exists; give a new name, or --force to replace it").format(
                file=shown
            )
        )
    with open_store(db) as store:
        current = key_history(store).current
        if key is not None:
            held = ServerKey.load(key).key_id  # unreadable, open to others: exit 2
            if current is not None and held != current.key_id:
                raise typer.BadParameter(
                    _(
                        "--key {file} holds key {held}, but the database signs with key "
                        "{key_id}: give the file serve's --key names (after a rotation, the "
                        "new one)"
                    ).format(file=printable(str(key)), held=held, key_id=current.key_id)
                )
        report = store.backup(output)
        name = store.name
    with Store(str(output), read_only=True) as copy:  # what the copy holds, as check reads it
        chains = copy.chains()
    emit(  # the result on stdout; the reminder about the key is a warning (stderr)
        _("backed up {db} to {file}: {games}{kinds}, {size} bytes").format(
            db=printable(name),
            file=shown,
            games=ngettext("{count} game", "{count} games", report.games).format(
                count=number(report.games)
            ),
            kinds=_kinds(report),
            size=number(report.bytes),
        )
    )
    if any(head.length for head in chains.heads):
        _report_heads(chains)
    if current is not None and live is not None:  # a database that served signs with a key
        files = [key] if key is not None else key_files_holding(live.parent, current.key_id)
        _remind_key(current.key_id, files, live.parent)


def _remind_key(key_id: str, files: list[Path], folder: Path) -> None:
    """The key file to keep with the copy: named when known, else how to find it."""
    if files:
        warn(
            _(
                "the server's signing key is not in the copy: keep a copy of the key file "
                "{key} (key {key_id}, the key this database signs with) with the backup, as "
                "safely as the key itself; a database restored without its key file cannot "
                "be served without --rotate-key"
            ).format(key=printable(", ".join(map(str, files))), key_id=printable(key_id))
        )
        return
    warn(
        _(
            "the server's signing key is not in the copy: keep a copy of the key file "
            "holding key {key_id}, the key this database signs with, with the backup, as "
            "safely as the key itself; no key file in {folder} holds it: it is the file "
            "serve's --key names (give backup the same --key to have it checked); a "
            "database restored without its key file cannot be served without --rotate-key"
        ).format(key_id=printable(key_id), folder=printable(str(folder)))
    )


def _report_heads(chains: ChainReport) -> None:
    """The copy's log heads: written down with the backup, they tell a later rewrite."""
    emit(
        _(
            "the copy's log heads (write them down with the backup; 'twenty48 check --head' "
            "on the live or a restored database says whether its logs still pass through them):"
        )
    )
    for head in chains.heads:
        emit(
            ngettext(
                "  {log}: {count} row: --head {text}",
                "  {log}: {count} rows: --head {text}",
                head.length,
            ).format(log=head.log, count=head.length, text=printable(head.text()))
        )
    if not chains.intact:
        warn(
            _("the copy's logs do not follow their hash chains: {problem}").format(
                problem=printable(chains.problems[0].describe())
            )
        )


def _kinds(report: BackupReport) -> str:
    """Which of the games are fair ones, each kind named: ``" (1 signed fair-play record ...)"``.

    The fair games this database served and the signed records kept from a
    server are different things; "0 fair" beside a kept signed game was wrong.
    """
    kinds = []
    if report.fair_games:
        kinds.append(
            ngettext(
                "{count} fair game served here",
                "{count} fair games served here",
                report.fair_games,
            ).format(count=number(report.fair_games))
        )
    if report.signed_records:
        kinds.append(
            ngettext(
                "{count} signed fair-play record from a server",
                "{count} signed fair-play records from servers",
                report.signed_records,
            ).format(count=number(report.signed_records))
        )
    return f" ({'; '.join(kinds)})" if kinds else ""


def _same_file(output: Path, path: Path) -> bool:
    import os

    try:
        return os.path.samefile(output, path)
    except OSError:  # either does not exist
        return os.path.realpath(output) == os.path.realpath(path)
