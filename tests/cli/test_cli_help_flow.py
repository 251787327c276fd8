"""A command's ``--help`` reads as prose at any width and in both languages (issue 20 walkthrough).

``COLUMNS=60 twenty48 --lang da verify --help`` printed the second and third
paragraphs with the source's line breaks (wrapped at 80 columns in English),
so lines such as ``forpligtelse og`` and ``tillid: det,`` stood alone.  Each
paragraph now wraps at the terminal's width: no line ends where the next
line's first word would still have fitted.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from support.common import run_cli

#: Commands whose help has more than one paragraph.
COMMANDS = ["verify", "hint", "serve", "play", "import", "evidence"]


def description(out: str) -> list[list[str]]:
    """The help's paragraphs (lines between the usage line and the first panel)."""
    lines = out.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Usage:")) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("╭"))
    paragraphs: list[list[str]] = [[]]
    for line in lines[start:end]:
        if line.strip():
            paragraphs[-1].append(line.strip())
        elif paragraphs[-1]:
            paragraphs.append([])
    return [p for p in paragraphs if p]


@pytest.mark.parametrize("lang", ["en", "da"])
@pytest.mark.parametrize("columns", [60, 80])
@pytest.mark.parametrize("command", COMMANDS)
def test_help_paragraphs_wrap_at_the_terminals_width(command: str, columns: int, lang: str) -> None:
    result = run_cli("--lang", lang, command, "--help", env={"COLUMNS": str(columns)})
    assert result.returncode == 0, result.stderr
    width = columns - 2  # Typer's margin of one column each side
    for paragraph in description(result.stdout):
        for line, following in pairwise(paragraph):
            first_word = following.split()[0]
            assert len(line) + 1 + len(first_word) > width, (command, lang, line, following)
