"""Click's own usage messages in the chosen language.

Typer's vendored click writes its messages ("No such option: --x", "0 is
not in the range 1<=x<=100.") as plain English f-strings, with no gettext
hook.  So the error boundary rebuilds each one here from the exception's
type and fields, or, where click keeps only the finished sentence, from
its known English forms.  Each message id is click's own English sentence,
so English output reads as click writes it (bar one fix: a real plural for
"unexpected extra argument(s)"), and Danish gets a translation.  A message
this module does not know (our own ``BadParameter`` texts, already
translated) passes through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from twenty48_replay.core.i18n import N_, _, ngettext

#: click's value-type names as its "is not a valid ..." sentence has them.
_NOT_VALID: Final = {
    "integer": N_("{value} is not a valid integer."),
    "int range": N_("{value} is not a valid integer."),
    "integer range": N_("{value} is not a valid integer."),
    "float": N_("{value} is not a valid number."),
    "float range": N_("{value} is not a valid number."),
    "text": N_("{value} is not valid text."),
}


def _extra_arguments(match: re.Match[str]) -> str:
    arguments = match["arguments"]
    count = len(arguments.split())
    return ngettext(
        "Got unexpected extra argument ({arguments})",
        "Got unexpected extra arguments ({arguments})",
        count,
    ).format(arguments=arguments)


def _not_valid(match: re.Match[str]) -> str:
    template = _NOT_VALID.get(match["kind"])
    if template is None:
        return match.string
    return _(template).format(value=match["value"])


def _simple(template: str) -> Callable[[re.Match[str]], str]:
    def translate(match: re.Match[str]) -> str:
        return _(template).format(**match.groupdict())

    return translate


#: click's finished sentences, as patterns, and how to say each in the chosen language.
_SENTENCES: Final[list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]]] = [
    (
        re.compile(r"(?P<value>.*) is not in the range (?P<range>\S+)\.", re.DOTALL),
        _simple(N_("{value} is not in the range {range}.")),
    ),
    (
        re.compile(r"(?P<value>.*) is not a valid (?P<kind>[a-z ]+)\.", re.DOTALL),
        _not_valid,
    ),
    (
        re.compile(r"(?P<value>.*) is not one of (?P<choices>.*)\.", re.DOTALL),
        _simple(N_("{value} is not one of {choices}.")),
    ),
    (
        re.compile(r"Option (?P<option>'.*') requires an argument\.", re.DOTALL),
        _simple(N_("Option {option} requires an argument.")),
    ),
    (
        re.compile(r"Option (?P<option>'.*') requires (?P<count>\d+) arguments\.", re.DOTALL),
        _simple(N_("Option {option} requires {count} arguments.")),
    ),
    (
        re.compile(r"Option (?P<option>'.*') does not take a value\.", re.DOTALL),
        _simple(N_("Option {option} does not take a value.")),
    ),
    (
        re.compile(r"Got unexpected extra argument\(s\) \((?P<arguments>.*)\)", re.DOTALL),
        _extra_arguments,
    ),
    (
        re.compile(r"No such command (?P<name>'.*')\. Did you mean (?P<names>.*)\?", re.DOTALL),
        _simple(N_("No such command {name}. Did you mean {names}?")),
    ),
    (
        re.compile(r"No such command (?P<name>'.*')\.", re.DOTALL),
        _simple(N_("No such command {name}.")),
    ),
    (re.compile(r"Missing command\."), _simple(N_("Missing command."))),
]

_MISSING: Final = {
    "argument": N_("Missing argument {name}."),
    "option": N_("Missing option {name}."),
}


def translate_sentence(message: str) -> str:
    """One of click's English sentences in the chosen language (unknown ones unchanged)."""
    for pattern, translate in _SENTENCES:
        match = pattern.fullmatch(message)
        if match is not None:
            return translate(match)
    return message


def _param_hint(exc: Exception) -> str | None:
    """The option or argument a click error names, as click quotes it (``'--limit' / '-n'``)."""
    hint = getattr(exc, "param_hint", None)
    param = getattr(exc, "param", None)
    if hint is None and param is not None:
        hint = param.get_error_hint(getattr(exc, "ctx", None))
    if isinstance(hint, (list, tuple)):
        return " / ".join(f"'{part}'" for part in hint)
    return hint if isinstance(hint, str) else None


def usage_message(exc: Exception) -> str:
    """A click usage error's message in the chosen language, without click's "Error:" frame."""
    kind = type(exc).__name__
    message = str(getattr(exc, "message", "") or "")
    if kind == "NoSuchOption":
        text = _("No such option: {option}").format(option=getattr(exc, "option_name", ""))
        possibilities = getattr(exc, "possibilities", None)
        if possibilities:
            text += " " + _("(Possible options: {options})").format(
                options=", ".join(sorted(possibilities))
            )
        return text
    if kind == "MissingParameter":
        name = _param_hint(exc) or ""
        param = getattr(exc, "param", None)
        param_type = str(
            getattr(exc, "param_type", None) or getattr(param, "param_type_name", "parameter")
        )
        template = _MISSING.get(param_type, N_("Missing parameter {name}."))
        return _(template).format(name=name).replace(" .", ".")
    if kind == "BadParameter":
        problem = translate_sentence(message)
        hint = _param_hint(exc)
        if hint is None:  # the boundary's line says "see ... -h" after it anyway
            return problem
        return _("Invalid value for {name}: {problem}").format(name=hint, problem=problem)
    return translate_sentence(message)
