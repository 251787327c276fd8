"""The replay viewer's evaluation line: the network's expected score, move by move.

A small network trained in the test values the moves of examples/valid.json; the
viewer runs headless (``run_test``) at 80x24, where the line has a row of its own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.small_network import skip_without_native, train_small
from textual.widgets import Static

from twenty48_cli.tui.replay_app import ReplayApp
from twenty48_replay.core.record import Record
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.solver.evaluation import EvaluationGraph, evaluation_graph

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "examples" / "valid.json"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> EvaluationGraph:
    skip_without_native()
    from twenty48_replay.solver import native_search
    from twenty48_replay.solver import network as nw

    weights = train_small(tmp_path_factory.mktemp("net"))
    net = nw.network(native_search.solver_module(), str(weights))
    assert net is not None
    return evaluation_graph(record(), net)


def record() -> Record:
    return Record.from_json(VALID.read_text(encoding="utf-8"))


def lines_at(
    graph: EvaluationGraph | None,
    steps: list[int],
    note: str = "",
    size: tuple[int, int] = (80, 24),
) -> list[tuple[str, bool]]:
    """The evaluation line's text and whether it is displayed, at each of ``steps``."""
    app = ReplayApp(Timeline(record()), VALID.name, [], graph, note)
    seen: list[tuple[str, bool]] = []

    async def run() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for step in steps:
                app.replay_screen.go_to(step)
                await pilot.pause()
                line = app.replay_screen.query_one("#evaluation", Static)
                seen.append((str(line.render()), line.display))

    asyncio.run(run())
    return seen


def test_the_line_follows_the_moves_and_names_the_cost(graph: EvaluationGraph) -> None:
    costly = graph.costliest(1)[0]
    good = next(m for m in graph.moves if m.cost == 0)
    (opening, shown_opening), (lost, shown), (kept, _) = lines_at(
        graph, [0, costly.number, good.number]
    )
    assert shown_opening
    assert shown
    first = graph.moves[0]
    assert opening.startswith("network: expected final score")
    assert f"{round(first.best_expected):,}" in opening
    assert f"expected score {round(costly.expected):,}" in lost
    assert f"this move cost about {round(costly.cost):,}" in lost
    assert f"kept {round(costly.best_expected):,}" in lost
    assert "the network's choice" in kept


def test_the_line_has_no_room_in_the_smallest_wide_terminal(graph: EvaluationGraph) -> None:
    ((_, shown),) = lines_at(graph, [5], size=(78, 22))
    assert not shown
    ((_, compact),) = lines_at(graph, [5], size=(40, 15))
    assert not compact


def test_without_a_network_a_short_note() -> None:
    ((text, shown),) = lines_at(None, [3], note="no network")
    assert shown
    assert text == "evaluation graph: none (it needs the solver's n-tuple network)"
    app = ReplayApp(Timeline(record()), VALID.name, [])

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert not app.replay_screen.query("#evaluation")

    asyncio.run(run())
