"""Records and file names that carry terminal control sequences, for the escaping tests.

Every string here is something a record may legally hold (SPEC 6.3 allows
any JSON string in metadata; a seed may hold any character) or a file name
may be, and each would act on a terminal if written raw: OSC 52 writes the
clipboard, OSC 0 sets the window title, ``ESC[2J`` and the one-character C1
CSI ``U+009B`` clear the screen.  ``[bold]`` checks that nothing parses
record text as Rich markup.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from twenty48_replay.core.board import Direction
from twenty48_replay.core.errors import NullMoveError
from twenty48_replay.core.game import GameState

OSC52: Final = "\x1b]52;c;aGVsbG8=\x07"
OSC0: Final = "\x1b]0;pwned\x07"
CLEAR: Final = "\x1b[2J"
C1_CSI: Final = "\u009b2J"
#: All four, plus DEL, a bidi override and Rich markup.
HOSTILE: Final = OSC52 + OSC0 + CLEAR + C1_CSI + "\x7f\u202e[bold]x[/bold]"
#: The same bytes as a file name (no '/' or NUL, which a name cannot hold).
HOSTILE_NAME: Final = "h" + OSC0 + CLEAR + C1_CSI + "\x07.json"


def hostile_record(moves: int = 40, seed: str = "seed" + HOSTILE) -> dict[str, Any]:
    """A valid record whose seed, player, notes and an unknown key carry HOSTILE."""
    state = GameState.new(seed)
    letters = ""
    for _ in range(moves):
        for letter in "LDRU":
            try:
                state, _gained, _spawn = state.play(Direction(letter))
            except NullMoveError:
                continue
            letters += letter
            break
    return {
        "format": "twenty48-record",
        "version": 1,
        "seed": seed,
        "moves": letters,
        "score": state.score,
        "max_tile": state.max_tile,
        "final_board": state.board.to_rows(),
        "player": "player" + HOSTILE,
        "notes": "notes" + HOSTILE,
        "x-" + HOSTILE: ["unknown" + HOSTILE, {"k": HOSTILE}],
    }


def write_hostile(folder: Path, name: str = HOSTILE_NAME, **changes: Any) -> Path:
    """The hostile record in ``folder/name`` (``changes`` override fields, e.g. score)."""
    path = folder / name
    path.write_text(json.dumps({**hostile_record(), **changes}), encoding="utf-8")
    return path


def raw_controls(text: str, keep: str = "\n") -> list[str]:
    """The control characters (C0 but ``keep``, DEL, C1) and lone surrogates in ``text``."""
    return [
        ch
        for ch in text
        if (ord(ch) < 0x20 and ch not in keep)
        or 0x7F <= ord(ch) <= 0x9F
        or 0xD800 <= ord(ch) <= 0xDFFF
    ]
