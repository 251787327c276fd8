"""The four directions as a person reads them: one arrow and one name per move letter.

The one table of them for every command and both full-screen apps; names
are translated where shown (``_(NAMES[letter])``), arrows never are.
"""

from __future__ import annotations

from typing import Final

from twenty48_replay.core.i18n import N_, _

#: The arrow of each move letter.
ARROWS: Final = {"U": "↑", "D": "↓", "L": "←", "R": "→"}

#: The name of each move letter (an ``N_`` message id: translate it where shown).
NAMES: Final = {"U": N_("up"), "D": N_("down"), "L": N_("left"), "R": N_("right")}


def arrow_and_name(letter: str) -> str:
    """Arrow and translated name, e.g. ``"↑ up"`` (``"↑ op"`` in Danish)."""
    return f"{ARROWS[letter]} {_(NAMES[letter])}"
