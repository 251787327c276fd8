"""How Typer prints our help: usage lines that name the arguments, and the current language.

Typer 0.28 writes a required argument as ``{target}`` in the usage line;
:class:`Command` names each argument by its metavar (``ID|FILE``) or its
name in capitals, ``[...]`` around an optional one.  Every command's help
ends with its examples (Typer's epilog, from :mod:`.helptext`).

Typer reads the help texts at import time, before ``--lang`` is parsed,
but prints them only after the options before the command name
(``--lang`` among them) have been handled; so :class:`Group` and
:class:`Command` translate a command's help, epilog and parameter help
(and Typer's own panel titles) just before printing it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import typer
from typer.core import TyperCommand, TyperGroup

from twenty48_replay.core import i18n
from twenty48_replay.core.i18n import N_, _

from .helptext import EXAMPLES, HELP, HELP_OPTION_HELP, examples, translated

#: Typer's own words in a help screen (its panel titles and option notes).
_TYPER_WORDS: Final = {
    "ARGUMENTS_PANEL_TITLE": N_("Arguments"),
    "OPTIONS_PANEL_TITLE": N_("Options"),
    "COMMANDS_PANEL_TITLE": N_("Commands"),
    "DEFAULT_STRING": N_("[default: {}]"),
    "REQUIRED_LONG_STRING": N_("[required]"),
    "ENVVAR_STRING": N_("[env var: {}]"),
}


def _translated_epilog(epilog: str) -> str:
    """The examples epilog with its heading and each example's purpose translated.

    Command lines (indented four spaces) stay as they are.
    """
    lines = []
    for line in epilog.split("\n"):
        if line == "Examples:":
            line = _("Examples:")
        elif line.startswith("  ") and not line.startswith("    ") and line.endswith(":"):
            line = f"  {_(line[2:-1])}:"
        lines.append(line)
    return "\n".join(lines)


def translate_command(command: Any) -> None:
    """Put ``command``'s help, epilog and parameter help into the current language.

    In place, once: Typer builds the click commands anew for each run.
    """
    if getattr(command, "_twenty48_translated", False) or i18n.current_language() == i18n.ENGLISH:
        return
    command._twenty48_translated = True
    if command.help:
        command.help = translated(command.help)
    if command.short_help:
        command.short_help = translated(command.short_help)
    if command.epilog:
        command.epilog = _translated_epilog(command.epilog)
    for param in command.params:
        if getattr(param, "help", None):
            param.help = translated(param.help)


def reflowed(text: str) -> str:
    """``text`` with each paragraph on one line, for Rich to wrap at the terminal's width.

    Typer joins the lines of a help's first paragraph but keeps the line
    breaks of the others, so a paragraph wrapped at 80 columns in the source
    left one or two words alone on every other line at 60 columns, and in
    Danish (longer words) at any width.  Paragraphs are separated by a blank
    line; one that starts with ``\b`` keeps its lines, as in Click.
    """
    return "\n\n".join(
        paragraph if paragraph.startswith("\b") else " ".join(paragraph.split("\n"))
        for paragraph in text.split("\n\n")
    )


def _reflow_command(command: Any) -> None:
    if command.help:
        command.help = reflowed(command.help)


@contextmanager
def _typer_words() -> Iterator[None]:
    """Typer's panel titles and notes in the current language while a help is printed."""
    from typer import rich_utils

    saved = {name: getattr(rich_utils, name) for name in _TYPER_WORDS}
    try:
        for name, english in _TYPER_WORDS.items():
            setattr(rich_utils, name, _(english))
        yield
    finally:
        for name, value in saved.items():
            setattr(rich_utils, name, value)


def _translated_help_option(option: Any) -> Any:
    if option is not None and option.help:
        option.help = translated(HELP_OPTION_HELP)
    return option


def _early_language(args: list[str]) -> None:
    """Use the ``--lang`` among the group's own options now, before any ``--help`` is printed.

    Click handles eager options in command-line order, so ``twenty48 --help
    --lang da`` would print the help before ``--lang`` is seen.  Only a valid
    value is used here; anything else is left to the option's own check.
    """
    for index, arg in enumerate(args):
        if not arg.startswith("-"):
            return
        value = None
        if arg == "--lang" and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        if value in i18n.LANGUAGES:
            i18n.set_language(value)


class Group(TyperGroup):
    """The ``twenty48`` group: its help, and its list of commands, in the current language."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _early_language(args)
        result: list[str] = super().parse_args(ctx, args)
        return result

    def get_help_option(self, ctx: Any) -> Any:
        return _translated_help_option(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        translate_command(self)
        _reflow_command(self)
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None:
                translate_command(command)
        with _typer_words():
            super().format_help(ctx, formatter)


class Command(TyperCommand):
    """A Typer command whose usage line names its arguments: ``twenty48 show [OPTIONS] ID``.

    Its help is printed in the current language.
    """

    def get_help_option(self, ctx: Any) -> Any:
        return _translated_help_option(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        translate_command(self)
        _reflow_command(self)
        with _typer_words():
            super().format_help(ctx, formatter)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                continue
            name = param.metavar or (param.name or "").upper()
            if param.nargs != 1:
                name += "..."
            pieces.append(name if param.required else f"[{name}]")
        return pieces


def register(app: typer.Typer, name: str, function: Any, group: str = "") -> None:
    """Add a command with its help, the usage line and the examples above.

    ``group``: the command group it belongs to (``admin``), whose name
    prefixes its entries in :data:`HELP` and :data:`EXAMPLES`.
    """
    key = f"{group} {name}" if group else name
    app.command(name, cls=Command, help=HELP[key], epilog=examples(EXAMPLES[key]))(function)
