"""Showing untrusted text safely: control characters made visible.

Seeds, player names, metadata, file names and database contents come from
whoever wrote them.  Written to a terminal as they are, a string such as
``"\\x1b]52;c;...\\x07"`` (OSC 52) writes the clipboard, ``"\\x1b]0;..."``
retitles the window and ``"\\x1b[2J"`` or the one-character C1 CSI
``"\\x9b2J"`` clears the screen.  :func:`printable` turns every such
character into a visible escape (``\\x1b``, ``\\x9b``, ``\\udcff``), so the
reader sees what is there and the terminal obeys nothing.

Escaped: C0 controls (including tab and newline: one field stays one line),
DEL, C1 controls, lone surrogates (what Python makes of bytes that are not
UTF-8 in file names and arguments, which a strict UTF-8 stream cannot even
write), the line and paragraph separators and the bidirectional controls
(which can make a name read backwards).  Everything else, accents and
emoji included, is left as it is.  Backslashes are not doubled, so text
that is already safe is unchanged and escaping twice is harmless.

:func:`json_text` does the same for serialised JSON: JSON's encoder escapes
C0 but, with ``ensure_ascii=False``, leaves the rest raw.
"""

from __future__ import annotations

import re
from typing import Final

#: Bidirectional embedding, override and isolate controls (Unicode Bidi_Control,
#: without the marks LRM/RLM/ALM, which only nudge neutral characters).
_BIDI: Final = "\u202a-\u202e\u2066-\u2069"
#: Everything :func:`printable` escapes.
_UNSAFE: Final = re.compile(f"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029{_BIDI}]")
#: The same, keeping newlines (for multi-line output such as boards).
_UNSAFE_KEEP_LINES: Final = re.compile(
    f"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029{_BIDI}]"
)
#: What JSON text may still carry raw after ``json.dumps(..., ensure_ascii=False)``.
_UNSAFE_IN_JSON: Final = re.compile(f"[\x7f-\x9f\ud800-\udfff\u2028\u2029{_BIDI}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable(text: str) -> str:
    """``text`` with every control character escaped visibly (see the module docstring)."""
    return _UNSAFE.sub(_escape, text)


def printable_lines(text: str) -> str:
    """Like :func:`printable`, but newlines stay newlines (for text of several lines)."""
    return _UNSAFE_KEEP_LINES.sub(_escape, text)


def json_text(text: str) -> str:
    """Serialised JSON with the characters its encoder left raw written as ``\\uXXXX``.

    Outside strings JSON text is plain ASCII, so every such character is
    inside a string, where ``\\uXXXX`` means the same character: the value
    read back is identical, only its spelling changes.
    """
    return _UNSAFE_IN_JSON.sub(_json_escape, text)


__all__ = ["json_text", "printable", "printable_lines"]
