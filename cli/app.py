"""The ``twenty48`` Typer application and its error boundary.

Commands live one group per module; this module wires them up and turns
every library error into one line on stderr and its documented exit code
(0 ok, 1 verification failed or domain error, 2 unusable input or usage).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any, Final

import typer

from twenty48_replay import __version__
from twenty48_replay.core import i18n, native
from twenty48_replay.core.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.core.i18n import N_, _

from .admin_cmd import admin_app, keys_command, rebuild_bests_command, revoke_key_command
from .backup_cmd import backup_command
from .evidence_cmd import evidence_command
from .games_cmd import check_command, list_command, show_command, stats_command, where_command
from .helptext import ROOT_EXAMPLES, examples
from .moderation_cmd import (
    ban_command,
    hide_command,
    log_command,
    suspects_command,
    unban_command,
    unhide_command,
)
from .output import fail
from .play_cmd import play_command
from .player_cmd import player_secret_command
from .records_cmd import export_command, import_command
from .replay_cmd import replay_command
from .serve_cmd import serve_command
from .solver_cmd import analyze_command, autoplay_command, hint_command
from .solver_train_cmd import export_command as solver_export_command
from .solver_train_cmd import solver_app
from .solver_train_cmd import train_command as solver_train_command
from .solver_train_cmd import weights_command as solver_weights_command
from .typer_help import Group, register
from .usage import usage_message
from .verify_cmd import verify_command

app = typer.Typer(
    name="twenty48",
    cls=Group,
    help=N_("2048 as a replayable, verifiable record: play, replay and verify games."),
    epilog=examples(ROOT_EXAMPLES),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"twenty48-replay {__version__} (engine: {native.describe()})")
        raise typer.Exit()


def _language(value: str | None) -> str | None:
    """``--lang`` / ``TWENTY48_LANG``: use that language from here on (None: the locale's).

    Anything but a listed language is a usage error (exit 2) naming the
    choices, whether it came from the option or the environment.
    """
    if value is None:
        return None
    if value not in i18n.LANGUAGES:
        choices = ", ".join(i18n.LANGUAGES)
        raise typer.BadParameter(
            _("{value} is not a language here; choose one of {choices}").format(
                value=repr(value), choices=choices
            )
        )
    i18n.set_language(value)
    return value


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help=N_("Show the version and exit.")
        ),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            envvar=i18n.ENV_VAR,
            metavar="en|da",
            callback=_language,
            is_eager=True,
            help=N_(
                "Language of messages and screens: en or da (default: from the locale). "
                "JSON, records and exit codes are the same in every language."
            ),
            show_default=False,
        ),
    ] = None,
) -> None:
    """2048 as a replayable, verifiable record."""


register(app, "play", play_command)
register(app, "replay", replay_command)
register(app, "list", list_command)
register(app, "show", show_command)
register(app, "stats", stats_command)
register(app, "export", export_command)
register(app, "import", import_command)
register(app, "verify", verify_command)
register(app, "hint", hint_command)
register(app, "autoplay", autoplay_command)
register(app, "analyze", analyze_command)
register(app, "check", check_command)
register(app, "where", where_command)
register(app, "evidence", evidence_command)
register(app, "player-secret", player_secret_command)
register(app, "serve", serve_command)
register(app, "backup", backup_command)
for _name, _function in (
    ("hide", hide_command),
    ("unhide", unhide_command),
    ("ban", ban_command),
    ("unban", unban_command),
    ("log", log_command),
    ("suspects", suspects_command),
    ("keys", keys_command),
    ("revoke-key", revoke_key_command),
    ("rebuild-bests", rebuild_bests_command),
):
    register(admin_app, _name, _function, group="admin")
app.add_typer(admin_app, name="admin")
_SOLVER_COMMANDS: tuple[tuple[str, Any], ...] = (
    ("train", solver_train_command),
    ("export", solver_export_command),
    ("weights", solver_weights_command),
)
for _solver_name, _solver_function in _SOLVER_COMMANDS:
    register(solver_app, _solver_name, _solver_function, group="solver")
app.add_typer(solver_app, name="solver")


# Typer re-exports only BadParameter from the click it uses (vendored in newer
# releases), so the base of all click errors is found through it.
_ClickException: type[Exception] = next(
    base for base in typer.BadParameter.__mro__ if base.__name__ == "ClickException"
)


def _usage_error_line(exc: Exception) -> str:
    """A click usage error as one line: the problem, then where to get help.

    Typer's default is a Rich panel that wraps long messages (a file path is
    enough) over several lines; scripts and people both read one line better.
    """
    message = " ".join(usage_message(exc).split())
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else _command_in_argv()
    return _("{message} (see '{command} -h')").format(message=message, command=command)


def _command_in_argv() -> str:
    """``twenty48 COMMAND`` for the command on the command line, else ``twenty48``.

    Some usage errors carry no context (click's parser raises "Option '-j'
    requires an argument." without one); the help to point to is still the
    command's own, not the list of commands.
    """
    names = {command.name for command in app.registered_commands}
    words = sys.argv[1:]
    if "--lang" in words[:-1]:  # its value is no command
        del words[words.index("--lang") + 1]
    word = next((arg for arg in words if not arg.startswith("-")), None)
    return f"twenty48 {word}" if word in names else "twenty48"


def _tolerant_streams() -> None:
    """Characters a stream's encoding lacks come out as backslash escapes, not a traceback.

    Record text is escaped before it is written (:mod:`.output`), but the
    output has its own characters too (arrows, the middle dot), and a
    stream may be ASCII (``PYTHONIOENCODING=ascii``) or strict UTF-8.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


#: The widest and tallest terminal believed from ``COLUMNS`` / ``LINES``.
MAX_TERMINAL_CELLS: Final = 1_000


def _sane_terminal_size() -> None:
    """Drop a ``COLUMNS`` or ``LINES`` that is not a number from 1 to 1000.

    Rich (Typer's help, progress bars) trusts them and pads every line to
    the width: ``COLUMNS=999999999 twenty48 --help`` grew to 19.8 GB and
    ran for 400 s before the kernel killed it (``COLUMNS=99999999999``: a
    MemoryError traceback).  Without them the real terminal size is used.
    """
    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name)
        if value is None:
            continue
        text = value.strip()
        if not (text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_TERMINAL_CELLS):
            del os.environ[name]


def main() -> None:
    """Console entry point: run the app, map errors to one line and an exit code."""
    _tolerant_streams()
    _sane_terminal_size()
    try:
        native.require()  # TWENTY48_ENGINE asking for an engine that cannot run: exit 2
        status = app(standalone_mode=False)
    except Twenty48Error as exc:
        fail(exc.translated())
        sys.exit(exc.exit_code)
    except typer.Abort:
        fail(_("aborted"))
        sys.exit(1)
    except _ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            # Bare 'twenty48': Typer has printed the help already (Rich help
            # prints as it renders); plain click only formats it.
            help_text = str(getattr(exc, "format_message", exc.__str__)())
            if help_text.strip():
                typer.echo(help_text)
        else:
            fail(_usage_error_line(exc))
        sys.exit(int(getattr(exc, "exit_code", EXIT_UNUSABLE)))
    except KeyboardInterrupt:
        fail(_("interrupted"))
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(EXIT_UNUSABLE)
    # Without standalone mode click returns typer.Exit's code instead of exiting.
    sys.exit(status if isinstance(status, int) else 0)
