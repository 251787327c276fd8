"""A message on a terminal breaks between words, not inside one (issue 20 walkthrough).

After ``twenty48 play --server URL`` in Danish at 80x24 the terminal broke
the summary inside words (``findes p`` / ``å``, ``kontrol`` / ``leret``).
Messages on stderr are now wrapped at spaces to the terminal's width; piped,
they stay one line each.  The command runs on a real pseudo-terminal of each
size here.
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from support.common import run_cli

SEED_MOVES = ("play", "--seed", "hello", "--moves", "LLLL")


def on_a_terminal(columns: int, *args: str) -> str:
    """What ``twenty48 ARGS`` writes to stderr when stderr is a terminal ``columns`` wide."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    exe = Path(sys.executable).with_name("twenty48")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    try:
        subprocess.run(
            [str(exe), *args],
            stdout=subprocess.DEVNULL,
            stderr=side,
            stdin=subprocess.DEVNULL,
            env=env,
            timeout=60,
            check=False,
        )
        os.close(side)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.parametrize("lang", ["en", "da"])
@pytest.mark.parametrize("columns", [80, 60, 40])
def test_messages_wrap_between_words_on_a_terminal(tmp_path: Path, columns: int, lang: str) -> None:
    piped = run_cli("--lang", lang, *SEED_MOVES, "--db", str(tmp_path / "piped.sqlite3"))
    assert piped.returncode == 1
    one_line_each = piped.stderr.splitlines()
    assert max(len(line) for line in one_line_each) > 80, one_line_each  # long enough to wrap
    shown = on_a_terminal(
        columns, "--lang", lang, *SEED_MOVES, "--db", str(tmp_path / "tty.sqlite3")
    ).splitlines()
    assert all(len(line) <= columns for line in shown), shown
    assert " ".join(shown).split() == " ".join(one_line_each).split(), shown
    words = set(" ".join(one_line_each).split())
    assert all(line.split()[-1] in words for line in shown if line.strip()), shown
