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


def evaluation_choice(evaluation: str | None = None) -> network.Choice:
    """What searches here evaluate with (:func:`~twenty48_replay.solver.network.choose`):
    ``evaluation`` ``"heuristic"``, ``"network"`` or None (the default's choice).

    Raises :class:`~twenty48_replay.solver.weights.WeightsError` when the file named
    by ``TWENTY48_WEIGHTS`` cannot be used.
    """
    return network.choose(native_search.solver_module(), evaluation)


def current_network() -> network.Network | None:
    """The network the C search uses here by default (None: the heuristic, or no C search)."""
    return evaluation_choice().network


def default_settings(
    strength: Strength = Strength.DEFAULT, evaluation: str | None = None
) -> SearchSettings:
    """The settings of ``strength`` for the search that runs here, with ``evaluation``
    (None: the default's choice; the heuristic when no network can be used)."""
    native = native_search.available()
    net = evaluation_choice(evaluation).network
    return settings_for(strength, native=native, network=net is not None)


def search(board: Board, settings: SearchSettings | None = None) -> SearchResult:
    """Expected value of every valid direction from ``board``, by the engine in use."""
    module = native_search.solver_module()
    if settings is None:
        settings = default_settings()
    net = None
    if module is not None and settings.evaluation == NETWORK:
        net = network.choose(module, NETWORK).network
    if net is None:
        settings = heuristic_settings(settings, native=module is not None)
    if module is None:
        from twenty48_replay.solver import expectimax  # NumPy: only when it searches

        return expectimax.search(board, settings)
    return native_search.search(board, settings, module, network=net)
