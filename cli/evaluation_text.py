"""The evaluation graph in words: what ``analyze`` and the replay viewer say about it.

The graph itself (:mod:`twenty48_replay.solver.evaluation`) is the network's
expected final score after each move; here it becomes sentences, a text
sparkline, and the short note shown instead when no network can be used.
The solver is imported only when a graph is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.i18n import number as format_number

from .directions import arrow_and_name

if TYPE_CHECKING:
    from twenty48_replay.core.record import Record
    from twenty48_replay.solver.evaluation import EvaluationGraph, MoveValue

#: Shown instead of the graph when no network can be used (the graph needs one).
NO_GRAPH: Final = N_(
    "no evaluation graph: it needs the solver's n-tuple network, and none can be used here "
    "('twenty48 solver weights' says why)"
)
#: Eight heights of a text sparkline.
BARS: Final = "▁▂▃▄▅▆▇█"


def graph_for(record: Record, evaluation: str | None = None) -> tuple[EvaluationGraph | None, str]:
    """The record's evaluation graph and "" , or None and the note saying why there is none.

    ``evaluation``: as ``--evaluation`` (None: the default's choice).  A weights file
    that cannot be used only takes the graph away (its one line is the note): the
    replay itself never depends on the network.
    """
    from twenty48_replay.solver.dispatch import evaluation_choice
    from twenty48_replay.solver.evaluation import evaluation_graph
    from twenty48_replay.solver.weights import WeightsError

    try:
        choice = evaluation_choice(evaluation)
    except WeightsError as exc:
        return None, exc.translated()
    if choice.network is None:
        return None, _(NO_GRAPH)
    return evaluation_graph(record, choice.network), ""


def sparkline(values: Sequence[float], width: int) -> str:
    """``values`` as at most ``width`` bars (each the lowest value of its share of moves:
    a drop is never averaged away)."""
    if not values or width < 1:
        return ""
    count = min(width, len(values))
    buckets = [
        min(values[i * len(values) // count : max((i + 1) * len(values) // count, i + 1)])
        for i in range(count)
    ]
    low, high = min(buckets), max(buckets)
    span = (high - low) or 1.0
    return "".join(BARS[min(7, int((v - low) / span * 8))] for v in buckets)


def points(value: float) -> str:
    """A number of points, whole, grouped as the language groups them."""
    return format_number(round(value))


def move_sentence(move: MoveValue) -> str:
    """What move ``move.number`` did to the expected score, in one sentence."""
    if move.best is move.played:
        return _("move {number}: {played}, expected score {expected}: the network's choice").format(
            number=format_number(move.number),
            played=arrow_and_name(move.played.letter),
            expected=points(move.expected),
        )
    return _(
        "move {number}: played {played}, expected score {expected}; {best} would have kept "
        "{best_expected}: this move cost about {cost} points"
    ).format(
        number=format_number(move.number),
        played=arrow_and_name(move.played.letter),
        expected=points(move.expected),
        best=arrow_and_name(move.best.letter),
        best_expected=points(move.best_expected),
        cost=points(move.cost),
    )
