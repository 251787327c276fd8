"""Where output goes: data on stdout, messages and progress on stderr."""

from __future__ import annotations

import json
import sys
from typing import Any


def emit(line: str = "") -> None:
    """One line of data on stdout."""
    sys.stdout.write(line + "\n")


def emit_json(obj: Any) -> None:
    """One JSON object on one line of stdout (JSON Lines)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")


def warn(message: str) -> None:
    """One line of human-facing message on stderr."""
    sys.stderr.write(message + "\n")


def fail(message: str) -> None:
    """An error line on stderr, prefixed the same way everywhere."""
    sys.stderr.write(f"twenty48: error: {message}\n")
