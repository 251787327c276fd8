"""The replay page's evaluation graph: an inline SVG under the page's strict CSP.

The graph's data is made up here (the page only draws it); one test exports a page
through the CLI with a small network trained in the test.
"""

from __future__ import annotations

import re
from pathlib import Path

from support.common import run_cli
from support.small_network import skip_without_native, train_small

from twenty48_replay.core.board import Direction
from twenty48_replay.core.record import Record
from twenty48_replay.solver.evaluation import EvaluationGraph, MoveValue
from twenty48_replay.web.graph import POINTS
from twenty48_replay.web.page import replay_page

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "examples" / "valid.json"
SECTION = re.compile(r'<section class="t48-details"><h2>[^<]*</h2>.*?</section>', re.DOTALL)


def record() -> Record:
    return Record.from_json(VALID.read_text(encoding="utf-8"))


def made_up(moves: int, lost_at: int) -> EvaluationGraph:
    """A game whose expected score climbs, and move ``lost_at`` costs 4,000 points."""
    values = []
    for n in range(1, moves + 1):
        score = 10 * n
        cost = 4000.0 if n == lost_at else 0.0
        played = Direction.LEFT
        values.append(
            MoveValue(
                n, played, score, {Direction.LEFT: 20000.0 - cost, Direction.UP: 19000.0 + cost / 4}
            )
        )
    return EvaluationGraph(tuple(values), "made-up.t48w")


def test_the_graph_is_an_svg_with_the_costly_move_listed() -> None:
    page = replay_page(record(), graph=made_up(472, 249), language="en")
    plain = replay_page(record(), language="en")
    (section,) = [s for s in SECTION.findall(page) if "Evaluation graph" in s]
    assert "<svg" in section
    assert "made-up.t48w" in section
    assert "move 249: ← left played, ↑ up was better" in section
    assert "this move cost about 4,000 points of expected score" in section
    # No inline style or script: the CSP (by hash of the one style and script) is unchanged.
    assert "style=" not in section
    assert "<script" not in section
    csp = re.compile(r'content="(default-src[^"]+)"')
    assert csp.findall(page) == csp.findall(plain)
    assert "Evaluation graph" not in plain  # a page built without a graph has none


def test_a_long_game_adds_a_few_kilobytes() -> None:
    page = replay_page(record(), graph=made_up(50_000, 31_000), language="en")
    (section,) = [s for s in SECTION.findall(page) if "Evaluation graph" in s]
    for points in re.findall(r'points="([^"]+)"', section):
        assert len(points.split()) <= POINTS
    assert len(section.encode("utf-8")) < 20_000
    assert "move 31,000:" in section


def test_danish_and_the_note_without_a_network() -> None:
    page = replay_page(record(), graph=made_up(100, 40), language="da")
    assert "Vurderingsgraf" in page
    assert "træk 40:" in page
    noted = replay_page(record(), graph_note=True, language="en")
    (section,) = [s for s in SECTION.findall(noted) if "Evaluation graph" in s]
    assert "No evaluation graph" in section
    assert "<svg" not in section


def test_export_draws_the_network_graph(tmp_path: Path) -> None:
    skip_without_native()
    weights = train_small(tmp_path)
    out = tmp_path / "page.html"
    made = run_cli(
        "export",
        str(VALID),
        "--format",
        "html",
        "-o",
        str(out),
        env={"TWENTY48_WEIGHTS": str(weights)},
    )
    assert made.returncode == 0, made.stderr
    page = out.read_text(encoding="utf-8")
    assert '<svg class="t48-graph"' in page
    assert "small.t48w" in page
    out.unlink()
    without = run_cli(
        "export",
        str(VALID),
        "--format",
        "html",
        "-o",
        str(out),
        env={"TWENTY48_WEIGHTS": "none"},
    )
    assert without.returncode == 0, without.stderr
    page = out.read_text(encoding="utf-8")
    assert "No evaluation graph" in page
    assert '<svg class="t48-graph"' not in page
