"""Expectimax, breadth first: one NumPy pass per level of the tree.

The tree alternates *afterstates* (a board just after a move, before its
spawn: a chance node) and *spawned states* (a board waiting for the player:
a max node).  A chance node averages over every empty cell with a 2
(p = 0.9) and a 4 (p = 0.1); a max node takes the best valid move, or 0 (the
value of a lost game, below every heuristic value) when there is none.

Why breadth first: a depth-first search in Python costs microseconds per
node; here every level is a handful of array operations, so a node costs
tens of nanoseconds (about 200 ns per node in all, measured: ~50 ms for a
250,000-node move on this project's CI machine).  The afterstates of each
level are deduplicated with ``np.unique``, which is the transposition
cache: a position reached by several paths (very common: ``L`` then ``U``
often equals ``U`` then ``L``; about half of a level's moves repeat) is
expanded and scored once per level.  Spawned states are not deduplicated
(only 5-8% repeat, less than the sort would cost).  Results of UP and DOWN
are kept transposed, as a board and its transpose have the same value.

Pruning and depth, after nneonneo/2048-ai:

* an afterstate is expanded only if the probability of the spawns leading
  to it (the product along its most likely path) is at least ``cutoff``
  (1e-4 there and here): unlikely branches are scored by the heuristic;
* the number of move plies adapts to the position: ``max(3, distinct tiles
  - 2) + 1`` (nneonneo's ``depth_limit`` counts the plies after the first
  move), capped by ``max_plies``: boards with many distinct tiles are the
  crowded, dangerous ones;
* a node budget bounds the work per move: when the next level would exceed
  it, only the most probable afterstates are expanded (the cut-off rises
  for that level), so the budget buys depth where it is most likely to
  matter; an optional time limit stops deepening between levels.
"""

from __future__ import annotations

import time
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

from twenty48_replay.core.board import Board
from twenty48_replay.solver import boards as bd
from twenty48_replay.solver.boards import U16, U64, Batch, Hi, Lo
from twenty48_replay.solver.settings import SearchResult, SearchSettings, plies_for

#: Spawn probabilities of the rules (SPEC: a 4 one time in ten).
P_TWO: Final = 0.9
P_FOUR: Final = 0.1
#: Heuristic values are floored here so that a live position always beats a lost one (0).
MIN_LIVE_VALUE: Final = 1.0
_WIDE_SUM: Final = 65536


@attrs.define
class _Level:
    """Links from the afterstates of one level to the next, kept for backing up values."""

    afterstates: Batch
    expanded: npt.NDArray[np.intp]
    edge_parent: npt.NDArray[np.intp]
    edge_weight: npt.NDArray[np.float64]
    spawned_children: npt.NDArray[np.intp]


def _unique(lo: Lo, hi: Hi | None) -> tuple[Batch, npt.NDArray[np.intp]]:
    """Distinct boards of a batch and, for each input, the index of its distinct board."""
    if hi is None:
        ulo, inverse = np.unique(lo, return_inverse=True)
        return (ulo, None), inverse.reshape(-1)
    pairs = np.stack([hi.astype(U64), lo], axis=1)
    upairs, inverse = np.unique(pairs, axis=0, return_inverse=True)
    return (
        (np.ascontiguousarray(upairs[:, 1]), upairs[:, 0].astype(U16)),
        inverse.reshape(-1),
    )


def _take(batch: Batch, index: npt.NDArray[np.intp]) -> Batch:
    lo, hi = batch
    return lo[index], None if hi is None else hi[index]


#: Cell i = 4 * row + col of a board is cell 4 * col + row of its transpose.
_TRANSPOSED_CELL: Final = np.array([4 * (i % 4) + i // 4 for i in range(16)], dtype=np.intp)


def _spawn(
    batch: Batch, transposed: Batch, prob: npt.NDArray[np.float64]
) -> tuple[Batch, Batch, npt.NDArray[np.intp], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Every spawn of every board.

    Returns the children, their transposes (placing the tile on the
    parent's transpose costs two operations, a transpose ten), the parent
    index, the weight and the probability of each child.
    """
    lo, hi = batch
    tlo, thi = transposed
    empty = bd.empty_cells(lo, hi)
    parent, cell = np.nonzero(empty)
    n_open = np.bincount(parent, minlength=lo.shape[0])
    shift = (cell * 4).astype(U64)
    tshift = (_TRANSPOSED_CELL[cell] * 4).astype(U64)
    base, tbase = lo[parent], tlo[parent]
    one, two = np.uint64(1), np.uint64(2)
    children_lo = np.concatenate([base + (one << shift), base + (two << shift)])
    tchildren_lo = np.concatenate([tbase + (one << tshift), tbase + (two << tshift)])
    share = 1.0 / n_open[parent]
    parents = np.concatenate([parent, parent])
    weights = np.concatenate([share * P_TWO, share * P_FOUR])
    # A spawned 2 or 4 never has a fifth exponent bit: hi is the parent's.
    children_hi = None if hi is None else hi[parents]
    tchildren_hi = None if thi is None else thi[parents]
    return (
        (children_lo, children_hi),
        (tchildren_lo, tchildren_hi),
        parents,
        weights,
        prob[parents] * weights,
    )


def _moves(
    batch: Batch, transposed: Batch
) -> tuple[Batch, npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Every valid move of every board: (distinct results, parent index, (n, 4) child index).

    The child index table holds -1 where a direction is not valid.  UP and
    DOWN are LEFT and RIGHT on the transposed board, and their results are
    *left transposed*: a board and its transpose have the same value (the
    heuristic scores rows and columns alike, spawns are uniform over the
    cells, and transposing maps the four moves onto themselves), so the
    search never turns them back, which saves two transposes per board.
    """
    lo, hi = batch
    tlo, thi = transposed
    n = lo.shape[0]
    results: list[Batch] = [(lo, hi)] * 4
    results[bd.LEFT] = bd.slide_rows(lo, hi, True)
    results[bd.RIGHT] = bd.slide_rows(lo, hi, False)
    results[bd.UP] = bd.slide_rows(tlo, thi, True)
    results[bd.DOWN] = bd.slide_rows(tlo, thi, False)
    sources = [tlo if code in (bd.UP, bd.DOWN) else lo for code in range(4)]
    mlo = np.stack([r[0] for r in results], axis=1)  # (n, 4)
    valid = mlo != np.stack(sources, axis=1)
    mhi: Hi | None = None
    if hi is not None and thi is not None:
        mhi = np.stack([r[1] for r in results if r[1] is not None], axis=1)
        hi_sources = [thi if code in (bd.UP, bd.DOWN) else hi for code in range(4)]
        valid |= mhi != np.stack(hi_sources, axis=1)
    flat = np.flatnonzero(valid)
    children, inverse = _unique(
        mlo.reshape(-1)[flat], None if mhi is None else mhi.reshape(-1)[flat]
    )
    table = np.full(n * 4, -1, dtype=np.intp)
    table[flat] = inverse
    return children, flat // 4, table.reshape(n, 4)


def _choose_expanded(
    prob: npt.NDArray[np.float64], batch: Batch, cutoff: float, room: int
) -> npt.NDArray[np.intp]:
    """Afterstates to expand: likely enough and, within ``room`` new nodes, the most likely.

    A spawn costs about five nodes (the spawned board and up to four moves),
    so an afterstate costs about ten per empty cell (a 2 and a 4).  When all
    candidates do not fit, the cut-off rises to the probability of the k-th
    most likely candidate, k chosen from the mean cost (a partition, not a
    sort: this runs on every level).
    """
    candidates = np.flatnonzero(prob >= cutoff)
    if candidates.size == 0:
        return candidates
    lo, hi = _take(batch, candidates)
    cost = bd.open_counts(lo, hi) * 10
    total = int(cost.sum())
    if total <= room:
        return candidates
    k = int(candidates.size * room / total)
    if k <= 0:
        return candidates[:0]
    p = prob[candidates]
    threshold = np.partition(p, candidates.size - k)[candidates.size - k]
    chosen: npt.NDArray[np.intp] = candidates[p > threshold]
    return chosen


def search(board: Board, settings: SearchSettings | None = None) -> SearchResult:
    """Expected value of every valid direction from ``board`` (a position awaiting a move).

    The NumPy search; :func:`twenty48_replay.solver.search` picks the C one
    when it is built (:mod:`~twenty48_replay.solver.dispatch`).
    """
    settings = settings or SearchSettings()
    start = time.perf_counter()
    plies = plies_for(board, settings)
    wide = board.tile_sum + 4 * plies >= _WIDE_SUM
    root = bd.batch_of(board, wide)
    afterstates, _parent, root_table = _moves(root, bd.transpose(*root))
    codes = [code for code in range(4) if root_table[0, code] >= 0]
    if not codes:
        return SearchResult({}, 0, 0)
    prob = np.ones(afterstates[0].shape[0])
    nodes = prob.size
    levels: list[_Level] = []
    reached = 1
    max_nodes = settings.budget_for(board)  # the crowded-board rule, as in C
    budget = 1 << 62 if max_nodes is None else max_nodes
    for _ply in range(1, plies):
        if settings.time_limit is not None and time.perf_counter() - start > settings.time_limit:
            break
        room = budget - nodes if reached >= settings.min_plies else 1 << 62
        expanded = _choose_expanded(prob, afterstates, settings.cutoff, room)
        if expanded.size == 0:
            break
        # Spawned boards are not deduplicated: measured, only 5-8% of them
        # repeat, not worth a sort; the moves out of them are (half repeat).
        chosen = _take(afterstates, expanded)
        spawned, tspawned, parent, weight, spawned_prob = _spawn(
            chosen, bd.transpose(*chosen), prob[expanded]
        )
        next_states, move_parent, move_table = _moves(spawned, tspawned)
        next_prob = np.zeros(next_states[0].shape[0])
        np.maximum.at(next_prob, move_table[move_table >= 0], spawned_prob[move_parent])
        levels.append(_Level(afterstates, expanded, parent, weight, move_table))
        nodes += spawned[0].shape[0] + next_states[0].shape[0]
        afterstates, prob = next_states, next_prob
        reached += 1
    value = np.maximum(bd.heuristic(*afterstates), MIN_LIVE_VALUE)
    for level in reversed(levels):
        # Index -1 (no valid move) picks the appended 0.0: the value of a lost game.
        best = np.append(value, 0.0)[level.spawned_children]
        child_values = np.maximum(np.maximum(best[:, 0], best[:, 1]), best[:, 2:].max(axis=1))
        chance = np.bincount(
            level.edge_parent,
            weights=level.edge_weight * child_values,
            minlength=level.expanded.size,
        )
        value = np.empty(level.afterstates[0].shape[0])
        value[level.expanded] = chance
        leaves = np.ones(value.shape[0], dtype=bool)
        leaves[level.expanded] = False
        if leaves.any():
            value[leaves] = np.maximum(
                bd.heuristic(*_take(level.afterstates, np.flatnonzero(leaves))), MIN_LIVE_VALUE
            )
    values = {code: float(value[root_table[0, code]]) for code in codes}
    return SearchResult(values, reached, nodes)
