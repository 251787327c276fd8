"""Where output goes: data on stdout, messages and progress on stderr.

Every line leaves through these functions, and each escapes control
characters (:mod:`twenty48_replay.text`): messages embed file names and
record fields, so escaping here is the one place that catches them all.
Commands still escape a field where they put it into a line (so that a
newline in a name cannot start a line of its own); escaping twice is
harmless.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from twenty48_replay.i18n import _
from twenty48_replay.text import json_text, printable, printable_lines


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


def warn(message: str) -> None:
    """One line of human-facing message on stderr."""
    sys.stderr.write(printable(message) + "\n")


def fail(message: str) -> None:
    """An error line on stderr, prefixed the same way everywhere."""
    sys.stderr.write(_("twenty48: error: {message}").format(message=printable(message)) + "\n")
