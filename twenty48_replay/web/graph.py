"""The replay page's evaluation graph: a small inline SVG, drawn here, with no script.

The solver's network values every move of the game
(:class:`~twenty48_replay.solver.evaluation.EvaluationGraph`); the page shows the
expected final score after the move played and after the network's best move,
move by move, with the costliest moves marked (their ``<title>`` is the
tooltip).  The SVG is markup with presentation attributes only: the page's
Content-Security-Policy allows no inline ``style`` attribute and needs none.
At most :data:`POINTS` points a line (each the lowest played value, and the
highest best value, of its share of moves: a drop is never averaged away), so
a game of any length adds a few kB.  The solver is not imported here: the
graph is computed by whoever builds the page (``twenty48 export --format html``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from twenty48_replay.core.i18n import DANISH, N_, translations

if TYPE_CHECKING:
    from twenty48_replay.solver.evaluation import EvaluationGraph, MoveValue

#: The plot's size in SVG units (it scales with the page's width).
WIDTH: Final = 600
HEIGHT: Final = 190
LEFT: Final = 58
RIGHT: Final = 8
TOP: Final = 30
BOTTOM: Final = 24
#: Most points a line has.
POINTS: Final = 300
#: The costliest moves marked on the plot and listed under it.
MARKED: Final = 5
PLAYED_COLOUR: Final = "#8f7a66"
BEST_COLOUR: Final = "#edc22e"
MARK_COLOUR: Final = "#f65e3b"
AXIS_COLOUR: Final = "#bbada0"
TEXT_COLOUR: Final = "#776e65"

HEADING: Final = N_("Evaluation graph")
EXPLAIN: Final = N_(
    "The solver's network ({source}) values each move: the points it scores plus the "
    "points the network expects to follow. Added to the score before the move, that is "
    "the expected final score. The dark line follows the moves played, the gold line the "
    "network's best move; where they part, a move cost expected score."
)
PLAYED_LABEL: Final = N_("expected final score after the move played")
BEST_LABEL: Final = N_("after the network's best move")
MOVE_AXIS: Final = N_("move")
COST_ITEM: Final = N_(
    "move {number}: {played} played, {best} was better: this move cost about {cost} points "
    "of expected score"
)
PICTURE: Final = N_("The network's expected final score, move by move")
NO_GRAPH: Final = N_(
    "No evaluation graph: it needs the solver's n-tuple network, and none could be used "
    "where this page was made."
)
#: The directions' names, for the list of costly moves.
DIRECTION_NAMES: Final = {"U": N_("up"), "D": N_("down"), "L": N_("left"), "R": N_("right")}
ARROWS: Final = {"U": "↑", "D": "↓", "L": "←", "R": "→"}


def _grouped(value: float, language: str) -> str:
    text = f"{round(value):,}"
    return text.replace(",", ".") if language == DANISH else text


def _buckets(moves: Sequence[MoveValue]) -> list[tuple[int, float, float]]:
    """(move number, lowest played expected score, highest best) per share of moves."""
    count = min(POINTS, len(moves))
    out = []
    for i in range(count):
        part = moves[i * len(moves) // count : max((i + 1) * len(moves) // count, i + 1)]
        out.append(
            (part[0].number, min(m.expected for m in part), max(m.best_expected for m in part))
        )
    return out


def evaluation_section(graph: EvaluationGraph | None, note: bool, language: str) -> str:
    """The page's section: the plot and the costliest moves, or (``note``) the short note
    saying why there is no graph; "" when there is neither."""
    tr = translations(language).gettext
    heading = f'<section class="t48-details"><h2>{html.escape(tr(HEADING))}</h2>'
    if graph is None or not graph.moves:
        if not note:
            return ""
        return f'{heading}<p class="t48-note">{html.escape(tr(NO_GRAPH))}</p></section>'
    explain = html.escape(tr(EXPLAIN)).replace("{source}", html.escape(graph.source))
    costly = graph.costliest(MARKED)
    items = "".join(
        "<li>"
        + html.escape(
            tr(COST_ITEM).format(
                number=_grouped(m.number, language),
                played=f"{ARROWS[m.played.letter]} {tr(DIRECTION_NAMES[m.played.letter])}",
                best=f"{ARROWS[m.best.letter]} {tr(DIRECTION_NAMES[m.best.letter])}",
                cost=_grouped(m.cost, language),
            )
        )
        + "</li>"
        for m in costly
    )
    listing = f"<ol>{items}</ol>" if items else ""
    return f"{heading}<p>{explain}</p>{plot(graph, language)}{listing}</section>"


def plot(graph: EvaluationGraph, language: str) -> str:
    """The SVG plot of ``graph`` (markup, no style attribute, no script)."""
    tr = translations(language).gettext
    moves = graph.moves
    buckets = _buckets(moves)
    low = min(b[1] for b in buckets)
    high = max(b[2] for b in buckets)
    span = (high - low) or 1.0
    first, last = moves[0].number, moves[-1].number
    width = WIDTH - LEFT - RIGHT
    height = HEIGHT - TOP - BOTTOM

    def x(number: int) -> float:
        return LEFT + width * (number - first) / max(last - first, 1)

    def y(value: float) -> float:
        return TOP + height * (1 - (value - low) / span)

    def line(points: list[tuple[float, float]], colour: str, dash: str = "") -> str:
        coords = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        return (
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"{extra} points="{coords}"/>'
        )

    best = line([(x(n), y(b)) for n, _p, b in buckets], BEST_COLOUR)
    played = line([(x(n), y(p)) for n, p, _b in buckets], PLAYED_COLOUR)
    marks = "".join(
        f'<circle cx="{x(m.number):.1f}" cy="{y(m.expected):.1f}" r="3.5" fill="{MARK_COLOUR}">'
        f"<title>{html.escape(tr(MOVE_AXIS))} {_grouped(m.number, language)}: "
        f"−{_grouped(m.cost, language)}</title></circle>"
        for m in graph.costliest(MARKED)
    )
    axis = (
        f'<path fill="none" stroke="{AXIS_COLOUR}" '
        f'd="M{LEFT},{TOP}V{TOP + height}H{LEFT + width}"/>'
    )
    small = f'font-size="11" fill="{TEXT_COLOUR}"'
    text = (
        f'<text x="{LEFT - 4}" y="{TOP + 8}" text-anchor="end" {small}>'
        f"{_grouped(high, language)}</text>"
        f'<text x="{LEFT - 4}" y="{TOP + height}" text-anchor="end" {small}>'
        f"{_grouped(low, language)}</text>"
        f'<text x="{LEFT}" y="{HEIGHT - 6}" {small}>'
        f"{html.escape(tr(MOVE_AXIS))} {_grouped(first, language)}</text>"
        f'<text x="{LEFT + width}" y="{HEIGHT - 6}" text-anchor="end" {small}>'
        f"{_grouped(last, language)}</text>"
    )
    legend = (
        f'<text x="{LEFT}" y="12" font-size="11" fill="{PLAYED_COLOUR}">'
        f"— {html.escape(tr(PLAYED_LABEL))}</text>"
        f'<text x="{LEFT + width}" y="12" text-anchor="end" font-size="11" fill="#b89a1e">'
        f"— {html.escape(tr(BEST_LABEL))}</text>"
    )
    label = html.escape(tr(PICTURE))
    return (
        f'<svg class="t48-graph" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{label}" width="100%"><title>{label}</title>'
        f"{axis}{best}{played}{marks}{text}{legend}</svg>"
    )
