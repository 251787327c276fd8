"""Where output goes: data on stdout, messages and progress on stderr.

Every line leaves through these functions, and each escapes control
characters (:mod:`twenty48_replay.core.text`): messages embed file names and
record fields, so escaping here is the one place that catches them all.
Commands still escape a field where they put it into a line (so that a
newline in a name cannot start a line of its own); escaping twice is
harmless.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from typing import Any, TextIO

from twenty48_replay.core.i18n import _
from twenty48_replay.core.text import json_text, printable, printable_lines


def emit(line: str = "") -> None:
    """Data on stdout (several lines allowed: boards), control characters escaped."""
    sys.stdout.write(printable_lines(line) + "\n")


def emit_json(obj: Any) -> None:
    """One JSON object on one line of stdout (JSON Lines), still valid JSON.

    C1 controls, DEL, the line separators and lone surrogates are written as
    ``\\uXXXX`` (the encoder leaves them raw with ``ensure_ascii=False``, and
    a lone surrogate cannot even be written to a UTF-8 stream).
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write(json_text(text) + "\n")


#: Below this many columns a message is left to the terminal's own wrapping.
_NARROWEST = 20


def _fitted(line: str, stream: TextIO) -> str:
    """``line`` wrapped at spaces to the width of the terminal ``stream`` is, if it is one.

    A terminal breaks a long line at its last column, inside a word
    (``findes p`` / ``å``); a person reading a message in a terminal gets it
    broken between words instead.  Piped or redirected, a message stays one
    line, as scripts and tests read it.
    """
    try:
        if not stream.isatty():
            return line
        width = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return line
    if width < _NARROWEST or len(line) <= width:
        return line
    return textwrap.fill(line, width, break_on_hyphens=False)


def warn(message: str) -> None:
    """One human-facing message on stderr (one line; wrapped at spaces on a terminal)."""
    sys.stderr.write(_fitted(printable(message), sys.stderr) + "\n")


def fail(message: str) -> None:
    """An error line on stderr, prefixed the same way everywhere (wrapped as :func:`warn`)."""
    line = _("twenty48: error: {message}").format(message=printable(message))
    sys.stderr.write(_fitted(line, sys.stderr) + "\n")
