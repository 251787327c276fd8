"""The C expectimax (``twenty48_replay._solver``) behind the NumPy solver's interface.

The extension is optional and chosen with the rest of the native core
(:mod:`twenty48_replay.core.native`: ``TWENTY48_ENGINE=python`` forces the NumPy
search).  It searches the same tree as :mod:`~twenty48_replay.solver.expectimax`
(same tables, spawns, probability cut and depth rule), depth first with a
transposition table instead of breadth first with per-level merging:

* **Depth.** :func:`~twenty48_replay.solver.settings.plies_for` picks the
  plies as for NumPy (nneonneo's ``max(3, distinct tiles - 2)`` plus the
  move being chosen, within ``min_plies``/``max_plies``).
* **Budget.** With ``max_nodes``, the search deepens one ply at a time from
  ``min_plies`` (always completed) and keeps the deepest search that fits:
  a step the growth so far says cannot fit is not started, one that runs
  over is abandoned.  ``max_nodes=None`` searches to the full depth at once.
  The budget is :meth:`SearchSettings.budget_for` the board: the
  crowded-board rule (``crowded_max_nodes``) applies here as in NumPy.
  The NumPy search spends a budget differently (it cuts the least likely
  afterstates of the last level), so the two agree only where no budget
  binds; the tests compare them there exactly and elsewhere by agreement.
* **Transpositions.** A position met again is answered from the table when
  it was searched at least as deep (nneonneo's rule, ``reuse_deeper``); the
  NumPy search merges repeats within one level only.  With ``cutoff=0`` and
  ``reuse_deeper=False`` both compute plain expectimax, value for value.
  The four root moves share one table unless ``table_per_move`` gives each
  its own (nneonneo's way; see :class:`SearchSettings`).
* ``time_limit`` is not used: the C search is bounded by nodes only, so a
  position always gets the same answer.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from twenty48_replay.core import native
from twenty48_replay.core.board import Board
from twenty48_replay.solver.settings import SearchResult, SearchSettings, plies_for

#: Transposition table sizes (entries, as powers of two; 16 bytes each): 2**20
#: (16 MB) serves a budget of a few million nodes; 2**21 (32 MB) a search without
#: a budget (tens of millions of nodes in crowded positions; measured, a larger
#: table saves under 0.01% of the nodes there).
TABLE_BITS: Final = 20
UNBOUNDED_TABLE_BITS: Final = 21


@functools.cache
def solver_module() -> Any | None:
    """The extension, or None when the engine is pure Python or it is not built.

    Raises :class:`twenty48_replay.core.native.EngineUnavailableError` when
    ``TWENTY48_ENGINE=native`` and the solver was not built.
    """
    return native.module("_solver")


def available() -> bool:
    """Whether searches run in C."""
    return solver_module() is not None


def search(
    board: Board,
    settings: SearchSettings,
    module: Any,
    *,
    reuse_deeper: bool = True,
    network: Any = None,
) -> SearchResult:
    """Expected value of every valid direction from ``board``, searched in C by ``module``.

    With ``network`` (a :class:`~twenty48_replay.solver.network.Network`), its
    leaves are scored by the n-tuple network, else by the heuristic.
    """
    plies = plies_for(board, settings)
    min_plies = max(1, min(settings.min_plies, plies))
    max_nodes = settings.budget_for(board)
    budget = 0 if max_nodes is None else max(1, max_nodes)
    bits = UNBOUNDED_TABLE_BITS if max_nodes is None else TABLE_BITS
    values, depth, nodes, _moves, _hits, _wide = module.search(
        board.packed,
        plies - 1,
        min_plies - 1,
        settings.cutoff,
        budget,
        int(reuse_deeper),
        bits,
        int(settings.table_per_move),
        None if network is None else network.search_handle(),
    )
    found = {code: value for code, value in enumerate(values) if value is not None}
    return SearchResult(found, depth + 1 if found else 0, nodes if found else 0)
