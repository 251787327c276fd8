"""How hard the solver searches: the settings behind ``--strength``.

What follows is about the hand-tuned evaluation's settings (``--evaluation
heuristic``, and every NumPy search).  With the n-tuple network, the default
evaluation of the C search when its weights are installed, the two strengths
are :data:`NETWORK_DEFAULT` and :data:`NETWORK_DEEP` below.

* ``default``: what ``hint``, ``autoplay``, ``analyze`` and ``play``'s hint
  use.  Sized per engine: the NumPy search spends a budget of 250,000 nodes
  (20-30 moves/s); the C search, about ten times faster per node and
  without NumPy's per-call overhead, a larger budget that still answers a
  hint well under 100 ms and plays more than 100 moves/s.  The C default
  also cuts branches at a path probability of 5e-4 rather than nneonneo's
  1e-4: measured against nneonneo's uncapped search
  (tests/bench/bench_solver_budget.py), the coarser cut buys depth where
  the board is crowded for fewer nodes than a larger budget does.  Its
  depth is capped at 11 plies, not 9 (the cap before): in the late game
  the depth rule asks for 10 to 12 plies, and a crowded board (one or two
  empty cells, few moves) reaches them within the budget; those are the
  positions where games were lost while building 16384 with the cap at 9
  (docs/performance/solver.md).  The
  cap costs nothing elsewhere: the budget, not the cap, stops the search
  on open boards.  The NumPy default
  keeps 1e-4 and 8 plies (its budget is spent differently and its speed was
  measured so; not re-tuned).
* ``deep``: nneonneo/2048-ai's search: its depth rule (``max(3, distinct
  tiles - 2)`` plies after the move, with no cap: 10 to 13 plies once
  16384 is on the board), its probability cut-off (1e-4) and no node
  budget.  Capped at 8 plies (the "max search depth of 8" of nneonneo's
  early description) it reached 32768 in 0 of 8 bench seeds, seven of them
  lost while building 32768, where the rule asks for more than 8 plies
  (docs/performance/solver.md).
  ``max_plies=16`` is the rule's largest answer (17 distinct tiles up to
  131072).  Each root move is searched with a transposition table of its
  own (``table_per_move``), as nneonneo's search does: with one table for
  the four, a move's value depended on the moves searched before it, and
  the search chose nneonneo's move less often (docs/performance/solver.md;
  on the twenty bench seeds: 16384 in 17 of 20, against 16 of 20 with one
  table).  A move
  can take a second or more late in a game; the NumPy engine gets there
  too, much more slowly (it keeps no table across levels).
"""

from __future__ import annotations

import enum
from typing import Final

from twenty48_replay.solver.settings import NETWORK, SearchSettings


class Strength(enum.Enum):
    """A named search strength (the value is the command-line spelling)."""

    DEFAULT = "default"
    DEEP = "deep"


#: The NumPy search's default.
NUMPY_DEFAULT: Final = SearchSettings()
#: The C search's default: see the module docstring and docs/performance/solver.md.  No
#: crowded-board rule: measured, twice the budget at <= 1 empty cell survived no better and
#: cost 28% more nodes a move.  No late-game rule either: 8,000,000 nodes at >= 12 distinct
#: tiles lost 3 of 30 drills where this default lost 1.
NATIVE_DEFAULT: Final = SearchSettings(max_nodes=2_500_000, cutoff=5e-4, max_plies=11)
#: nneonneo's depth rule (uncapped: 16 plies is its largest answer) and cut-off, no budget,
#: a transposition table for each root move.
DEEP: Final = SearchSettings(max_nodes=None, min_plies=2, max_plies=16, table_per_move=True)


#: With the n-tuple network (C search only): a node costs about 6 times a heuristic's
#: (32 table lookups a leaf, half of them saved by the search's table of leaf values), and
#: the network's values need less depth.  Chosen on the shipped network on tuning seeds
#: (docs/performance/solver.md, "The shipped network"): 4 plies lost 2 of 10 games before
#: 16384; 5 and 6 plies reach about the same nodes a move (the cut-off stops most paths at
#: 5) and 16384 in 10 of 10; on 200 unseen seeds 6 plies reach 16384 in 190 at about 300
#: moves per CPU second.  The budget is only a bound on one search (a hint stays well under
#: 100 ms); the depth cap, not the budget, stops it.
NETWORK_DEFAULT_BUDGET: Final = 250_000
NETWORK_DEFAULT: Final = SearchSettings(
    max_nodes=NETWORK_DEFAULT_BUDGET, cutoff=1e-4, min_plies=2, max_plies=6, evaluation=NETWORK
)
#: Deeper than the default: twice its budget and up to 8 plies, which the budget lets it
#: reach where the board is crowded.  Without a budget 8 plies cost about 5.4 M nodes a
#: move (3 moves per CPU second), too slow to play a game to 32768.
NETWORK_DEEP: Final = SearchSettings(
    max_nodes=500_000, cutoff=1e-4, min_plies=2, max_plies=8, evaluation=NETWORK
)


def settings_for(strength: Strength, *, native: bool, network: bool = False) -> SearchSettings:
    """The settings of ``strength`` for the C search (``native``) or the NumPy one;
    with ``network`` (C only: a network is loaded), those that search with it."""
    if native and network:
        return NETWORK_DEEP if strength is Strength.DEEP else NETWORK_DEFAULT
    if strength is Strength.DEEP:
        return DEEP
    return NATIVE_DEFAULT if native else NUMPY_DEFAULT


def heuristic_settings(settings: SearchSettings, *, native: bool) -> SearchSettings:
    """The hand-tuned search standing in for ``settings`` when no network can be used:
    the same settings if they are the heuristic's, else the strength they stand for."""
    if settings.evaluation != NETWORK:
        return settings
    deeper = settings.max_nodes is None or settings.max_nodes > NETWORK_DEFAULT_BUDGET
    strength = Strength.DEEP if deeper else Strength.DEFAULT
    return settings_for(strength, native=native)
