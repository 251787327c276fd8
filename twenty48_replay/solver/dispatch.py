"""Which search runs: the C expectimax when it is built, else the NumPy one.

The choice follows the native core's (:mod:`twenty48_replay.core.native`):
``TWENTY48_ENGINE=python`` forces NumPy, ``TWENTY48_ENGINE=native`` insists
on C.  Both take the same :class:`SearchSettings` and return the same
:class:`SearchResult`; without settings each uses its own default strength.
"""

from __future__ import annotations

from twenty48_replay.core.board import Board
from twenty48_replay.solver import native_search
from twenty48_replay.solver.settings import SearchResult, SearchSettings
from twenty48_replay.solver.strength import Strength, settings_for


def engine_name() -> str:
    """``"native"`` when searches run in C, else ``"python"`` (NumPy)."""
    return "native" if native_search.available() else "python"


def default_settings(strength: Strength = Strength.DEFAULT) -> SearchSettings:
    """The settings of ``strength`` for the search that runs here."""
    return settings_for(strength, native=native_search.available())


def search(board: Board, settings: SearchSettings | None = None) -> SearchResult:
    """Expected value of every valid direction from ``board``, by the engine in use."""
    module = native_search.solver_module()
    if settings is None:
        settings = settings_for(Strength.DEFAULT, native=module is not None)
    if module is None:
        from twenty48_replay.solver import expectimax  # NumPy: only when it searches

        return expectimax.search(board, settings)
    return native_search.search(board, settings, module)
