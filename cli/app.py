"""The ``twenty48`` Typer application and its error boundary.

Commands live one group per module; this module wires them up and turns
every library error into one line on stderr and its documented exit code
(0 ok, 1 verification failed or domain error, 2 unusable input or usage).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from twenty48_replay import __version__
from twenty48_replay.errors import EXIT_UNUSABLE, Twenty48Error

from .games_cmd import check_command, list_command, show_command, stats_command, where_command
from .output import fail
from .play_cmd import play_command
from .records_cmd import export_command, import_command
from .replay_cmd import replay_command
from .solver_cmd import analyze_command, autoplay_command, hint_command
from .verify_cmd import verify_command

app = typer.Typer(
    name="twenty48",
    help="2048 as a replayable, verifiable record: play, replay and verify games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"twenty48-replay {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """2048 as a replayable, verifiable record."""


app.command("play")(play_command)
app.command("replay")(replay_command)
app.command("list")(list_command)
app.command("show")(show_command)
app.command("stats")(stats_command)
app.command("export")(export_command)
app.command("import")(import_command)
app.command("verify")(verify_command)
app.command("hint")(hint_command)
app.command("autoplay")(autoplay_command)
app.command("analyze")(analyze_command)
app.command("check")(check_command)
app.command("where")(where_command)


def main() -> None:
    """Console entry point: run the app, map errors to one line and an exit code."""
    try:
        app()
    except Twenty48Error as exc:
        fail(str(exc))
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        fail("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(EXIT_UNUSABLE)
