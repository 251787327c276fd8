"""Which search runs: the C expectimax when it is built, else the NumPy one.

The choice follows the native core's (:mod:`twenty48_replay.core.native`):
``TWENTY48_ENGINE=python`` forces NumPy, ``TWENTY48_ENGINE=native`` insists
on C.  Both take the same :class:`SearchSettings` and return the same
:class:`SearchResult`; without settings each uses its own default strength.

The evaluation: the C search scores its leaves with the n-tuple
network when one is there (:mod:`~twenty48_replay.solver.network`: the shipped
weights, ``TWENTY48_WEIGHTS``), else with the hand-tuned heuristic, which is
also what the NumPy search always uses.
"""

from __future__ import annotations

from twenty48_replay.core.board import Board
from twenty48_replay.solver import native_search, network
from twenty48_replay.solver.settings import NETWORK, SearchResult, SearchSettings
from twenty48_replay.solver.strength import Strength, heuristic_settings, settings_for


def engine_name() -> str:
    """``"native"`` when searches run in C, else ``"python"`` (NumPy)."""
    return "native" if native_search.available() else "python"


def current_network() -> network.Network | None:
    """The network the C search uses here (None: the heuristic, or no C search).

    Raises :class:`~twenty48_replay.solver.weights.WeightsError` when the weights
    chosen cannot be used.
    """
    module = native_search.solver_module()
    return None if module is None else network.network(module)


def default_settings(strength: Strength = Strength.DEFAULT) -> SearchSettings:
    """The settings of ``strength`` for the search that runs here."""
    native = native_search.available()
    return settings_for(strength, native=native, network=current_network() is not None)


def search(board: Board, settings: SearchSettings | None = None) -> SearchResult:
    """Expected value of every valid direction from ``board``, by the engine in use."""
    module = native_search.solver_module()
    if settings is None:
        settings = default_settings()
    net = current_network() if module is not None and settings.evaluation == NETWORK else None
    if net is None:
        settings = heuristic_settings(settings, native=module is not None)
    if module is None:
        from twenty48_replay.solver import expectimax  # NumPy: only when it searches

        return expectimax.search(board, settings)
    return native_search.search(board, settings, module, network=net)
