"""What a search is asked and what it answers, shared by both searches.

Pure Python (no NumPy): the C search (:mod:`~twenty48_replay.solver.native_search`)
needs these and nothing of the NumPy search, so a hint with the C search never
pays for importing NumPy.
"""

from __future__ import annotations

from typing import Final

import attrs

from twenty48_replay.core.board import Board

#: The deepest search either engine accepts (the C search's recursion bound).
MAX_PLIES: Final = 25
#: The largest ``crowded_empty`` (a board awaiting a move has at most 15 empty cells).
MAX_CROWDED_EMPTY: Final = 15
#: The most distinct tile values a board can hold (2 ... 131072).
MAX_DISTINCT: Final = 17
#: What scores the leaves: the hand-tuned heuristic (both engines) or the n-tuple
#: network (the C search only, see :mod:`~twenty48_replay.solver.network`).
HEURISTIC: Final = "heuristic"
NETWORK: Final = "network"
EVALUATIONS: Final = (HEURISTIC, NETWORK)


@attrs.frozen
class SearchSettings:
    """Knobs of the search (both engines: NumPy and C).

    The default budget is sized for the NumPy search's speed goal (20 moves/s
    with two games in parallel on two cores); the other defaults are
    nneonneo's.  :mod:`~twenty48_replay.solver.strength` holds the settings
    each engine uses by default and for ``--strength deep``.

    ``max_nodes`` bounds the boards created per move (afterstates plus
    spawned states; None: no bound); ``cutoff`` is the probability below
    which a branch is scored by the heuristic; ``min_plies``/``max_plies``
    clamp the adaptive depth; ``time_limit`` (seconds, optional, NumPy
    search only) stops deepening once spent.

    The crowded-board rule: with ``crowded_max_nodes`` set, a board with at
    most ``crowded_empty`` empty cells is searched with that budget instead
    of ``max_nodes`` (None: the rule is off, every board gets ``max_nodes``).
    Crowded boards have few spawns and few moves, so the same nodes buy more
    depth there, and they are where late games are lost.  It depends on the
    board alone, so a search stays deterministic; :meth:`budget_for` is the
    one place both engines read it.  No default strength uses it: measured,
    it survived no better for its cost (docs/performance/solver.md).

    ``table_per_move`` (C search only): each of the root's moves is searched
    with a transposition table of its own, as nneonneo's search does.  With
    one table for all four, a move searched later reuses values its
    predecessors stored, computed along other paths with other
    probabilities (and so other cuts), and its value then depends on which
    moves were searched before it.  The NumPy search keeps no table across
    levels, so it ignores this.

    ``evaluation``: ``"heuristic"`` (the hand-tuned one) or ``"network"``
    (the n-tuple network: C search only).  With the network, values
    are the expected points still to come, each move's points included.
    """

    max_nodes: int | None = 250_000
    cutoff: float = 1e-4
    min_plies: int = 2
    max_plies: int = 8
    time_limit: float | None = None
    crowded_max_nodes: int | None = None
    crowded_empty: int = 1
    late_max_nodes: int | None = None
    late_distinct: int = 12
    table_per_move: bool = False
    evaluation: str = HEURISTIC

    def __attrs_post_init__(self) -> None:
        if self.evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation must be one of {EVALUATIONS}, not {self.evaluation!r}")
        if self.max_nodes is not None and self.max_nodes < 1:
            raise ValueError(f"max_nodes must be at least 1 or None, not {self.max_nodes}")
        if not 0.0 <= self.cutoff <= 1.0:
            raise ValueError(f"cutoff must be from 0 to 1, not {self.cutoff}")
        for name, plies in (("min_plies", self.min_plies), ("max_plies", self.max_plies)):
            if not 1 <= plies <= MAX_PLIES:
                raise ValueError(f"{name} must be from 1 to {MAX_PLIES}, not {plies}")
        if self.crowded_max_nodes is not None and self.crowded_max_nodes < 1:
            raise ValueError(
                f"crowded_max_nodes must be at least 1 or None, not {self.crowded_max_nodes}"
            )
        if not 0 <= self.crowded_empty <= MAX_CROWDED_EMPTY:
            raise ValueError(
                f"crowded_empty must be from 0 to {MAX_CROWDED_EMPTY}, not {self.crowded_empty}"
            )
        if self.late_max_nodes is not None and self.late_max_nodes < 1:
            raise ValueError(
                f"late_max_nodes must be at least 1 or None, not {self.late_max_nodes}"
            )
        if not 1 <= self.late_distinct <= MAX_DISTINCT:
            raise ValueError(
                f"late_distinct must be from 1 to {MAX_DISTINCT}, not {self.late_distinct}"
            )

    def budget_for(self, board: Board) -> int | None:
        """The node budget of a search from ``board`` (None: no bound).

        ``crowded_max_nodes`` where the crowded-board rule is on and ``board``
        has at most ``crowded_empty`` empty cells, ``late_max_nodes`` where
        the late-game rule is on and ``board`` has at least ``late_distinct``
        distinct tiles (the larger where both apply), else ``max_nodes``.
        """
        budget = self.max_nodes
        if self.crowded_max_nodes is not None and is_crowded(board, self.crowded_empty):
            budget = self.crowded_max_nodes
        if self.late_max_nodes is not None and distinct_tiles(board) >= self.late_distinct:
            budget = None if budget is None else max(budget, self.late_max_nodes)
        return budget


@attrs.frozen
class SearchResult:
    """Expected value of each valid direction code, plus what the search did."""

    values: dict[int, float]
    plies: int
    nodes: int


def is_crowded(board: Board, most_empty: int) -> bool:
    """Whether ``board`` has at most ``most_empty`` empty cells."""
    return len(board.empty_cells()) <= most_empty


def distinct_tiles(board: Board) -> int:
    """Number of distinct tile values on a board (drives the search depth)."""
    return len({board.exponent(i) for i in range(16)} - {0})


def plies_for(board: Board, settings: SearchSettings) -> int:
    """Move plies to search from ``board`` (including the move being chosen).

    nneonneo's rule: ``max(3, distinct tiles - 2)`` plies after the move
    (crowded boards with many distinct tiles are the dangerous ones), then
    clamped by the settings.
    """
    plies = max(3, distinct_tiles(board) - 2) + 1
    return max(settings.min_plies, min(settings.max_plies, plies))
