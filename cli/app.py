"""The ``twenty48`` Typer application and its error boundary.

Commands live one group per module; this module wires them up and turns
every library error into one line on stderr and its documented exit code
(0 ok, 1 verification failed or domain error, 2 unusable input or usage).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Annotated, Any, Final

import typer

from twenty48_replay import __version__
from twenty48_replay.core import i18n, native
from twenty48_replay.core.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.core.i18n import N_, _

from .helptext import ROOT_EXAMPLES, examples
from .output import fail
from .typer_help import Group, register
from .usage import usage_message


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


#: The top-level commands: name, module of this package, function.  A module is
#: imported only when its command is built: ``twenty48 verify`` builds and imports
#: verify alone (Typer builds every command it is given before parsing, about 2 ms
#: each, and the modules' imports cost more), which is most of a short run's start-up.
COMMANDS: Final[tuple[tuple[str, str, str], ...]] = (
    ("play", "play_cmd", "play_command"),
    ("replay", "replay_cmd", "replay_command"),
    ("list", "games_cmd", "list_command"),
    ("show", "games_cmd", "show_command"),
    ("stats", "games_cmd", "stats_command"),
    ("export", "records_cmd", "export_command"),
    ("import", "records_cmd", "import_command"),
    ("verify", "verify_cmd", "verify_command"),
    ("hint", "solver_cmd", "hint_command"),
    ("autoplay", "solver_cmd", "autoplay_command"),
    ("analyze", "solver_cmd", "analyze_command"),
    ("check", "games_cmd", "check_command"),
    ("where", "games_cmd", "where_command"),
    ("evidence", "evidence_cmd", "evidence_command"),
    ("player-secret", "player_cmd", "player_secret_command"),
    ("serve", "serve_cmd", "serve_command"),
    ("backup", "backup_cmd", "backup_command"),
)
#: The command groups: name, module and Typer app of the group, and its commands.
GROUPS: Final[tuple[tuple[str, str, str, tuple[tuple[str, str, str], ...]], ...]] = (
    (
        "admin",
        "admin_cmd",
        "admin_app",
        (
            ("hide", "moderation_cmd", "hide_command"),
            ("unhide", "moderation_cmd", "unhide_command"),
            ("ban", "moderation_cmd", "ban_command"),
            ("unban", "moderation_cmd", "unban_command"),
            ("log", "moderation_cmd", "log_command"),
            ("suspects", "moderation_cmd", "suspects_command"),
            ("keys", "admin_cmd", "keys_command"),
            ("revoke-key", "admin_cmd", "revoke_key_command"),
            ("rebuild-bests", "admin_cmd", "rebuild_bests_command"),
        ),
    ),
    (
        "solver",
        "solver_train_cmd",
        "solver_app",
        (
            ("train", "solver_train_cmd", "train_command"),
            ("export", "solver_train_cmd", "export_command"),
            ("weights", "solver_train_cmd", "weights_command"),
        ),
    ),
)


def _attribute(module: str, name: str) -> Any:
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


def build_app(only: str | None = None) -> typer.Typer:
    """The ``twenty48`` program: every command, or the top-level command ``only`` alone.

    With ``only`` the program parses and runs that command exactly as the
    whole one does (the same root options, help and errors), without
    importing or building the others.
    """
    program = typer.Typer(
        name="twenty48",
        cls=Group,
        help=N_("2048 as a replayable, verifiable record: play, replay and verify games."),
        epilog=examples(ROOT_EXAMPLES),
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    program.callback()(root)
    for name, module, function in COMMANDS:
        if only is None or name == only:
            register(program, name, _attribute(module, function))
    if only is None:
        for group, module, group_app, commands in GROUPS:
            sub: typer.Typer = _attribute(module, group_app)
            if not sub.registered_commands:  # one group app per process: fill it once
                for name, command_module, function in commands:
                    register(sub, name, _attribute(command_module, function), group=group)
            program.add_typer(sub, name=group)
    return program


#: The whole program, built on first use (``from twenty48_cli.app import app``).
app: typer.Typer


def __getattr__(name: str) -> Any:
    if name == "app":
        whole = build_app()
        globals()["app"] = whole
        return whole
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _invoked(words: list[str]) -> str | None:
    """The top-level command that ``words`` (the arguments) run, when nothing else is needed.

    Only ``[--lang VALUE] COMMAND ...`` qualifies: any other option before
    the command (``--help``, ``--version``) or a group needs the whole program.
    """
    if words[:1] == ["--lang"]:
        words = words[2:]
    elif words[:1] and words[0].startswith("--lang="):
        words = words[1:]
    names = {name for name, _module, _function in COMMANDS}
    return words[0] if words and words[0] in names else None


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
    names = {name for name, _module, _function in COMMANDS}
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
        only = _invoked(sys.argv[1:])
        program = build_app(only) if only is not None else __getattr__("app")
        status = program(standalone_mode=False)
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
