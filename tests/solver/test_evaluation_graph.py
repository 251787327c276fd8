"""The evaluation graph: the network's expected final score, move by move.

The library's values against the network's own (reward + value of the afterstate),
and ``analyze``'s report of them, text and JSON, with a small network trained here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.common import run_cli
from support.small_network import skip_without_native, train_small

from twenty48_replay.core.board import Direction
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import replay
from twenty48_replay.solver.evaluation import EvaluationGraph, MoveValue, evaluation_graph

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "examples" / "valid.json"
SWAPPED = ROOT / "examples" / "tampered-swapped-move.json"


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    skip_without_native()
    return train_small(tmp_path_factory.mktemp("net"))


def loaded(path: Path) -> Record:
    return Record.from_json(path.read_text(encoding="utf-8"))


def test_each_value_is_the_reward_plus_the_afterstate_value(weights: Path) -> None:
    from twenty48_replay.solver import native_search
    from twenty48_replay.solver import network as nw

    module = native_search.solver_module()
    assert module is not None
    net = nw.network(module, str(weights))
    assert net is not None
    record = loaded(VALID)
    graph = evaluation_graph(record, net)
    assert len(graph.moves) == len(record.moves)
    assert graph.source.startswith("small.t48w")
    steps = list(replay(record))
    for move in graph.moves[::37]:
        before = steps[move.number - 1]
        assert move.score == before.score
        for direction, value in move.values.items():
            slid = before.board.slide(direction)
            assert slid.changed
            assert value == slid.gained + module.ntuple_value(net.handle, slid.board.packed)
        assert move.expected == before.score + move.values[move.played]
        assert move.best_expected >= move.expected
        assert move.cost == pytest.approx(move.best_expected - move.expected)
    costs = [m.cost for m in graph.costliest(10)]
    assert costs == sorted(costs, reverse=True)
    assert all(c > 0 for c in costs)
    # An invalid record: the graph stops before its first invalid move.
    swapped = loaded(SWAPPED)
    valid_steps = len(list(replay(swapped))) - 1
    assert len(evaluation_graph(swapped, net).moves) == valid_steps < len(swapped.moves)


def test_a_tie_is_the_played_move_and_costs_nothing() -> None:
    move = MoveValue(1, Direction.LEFT, 100, {Direction.LEFT: 50.0, Direction.UP: 50.2})
    assert move.best is Direction.LEFT
    assert move.cost == 0
    assert move.alternative is Direction.UP
    only = MoveValue(2, Direction.UP, 0, {Direction.UP: 10.0})
    assert only.alternative is None
    assert only.to_json()["alternative_expected_score"] is None
    assert EvaluationGraph((move, only), "x").costliest() == []


@pytest.mark.slow
def test_analyze_reports_the_graph(weights: Path) -> None:
    env = {"TWENTY48_WEIGHTS": str(weights)}
    text = run_cli("analyze", str(VALID), "-j", "1", "--top", "3", env=env)
    assert text.returncode == 0, text.stderr
    assert "Expected final score after each move (the network, small.t48w" in text.stdout
    assert "Where the game was lost" in text.stdout
    assert "this move cost about" in text.stdout
    data = run_cli("analyze", str(VALID), "-j", "1", "--json", env=env)
    assert data.returncode == 0, data.stderr
    report = json.loads(data.stdout)
    assert report["evaluation"] == "network"
    moves = report["graph"]["moves"]
    assert len(moves) == report["moves"]
    assert all(m["cost"] >= 0 for m in moves)
    assert all(m["best_expected_score"] >= m["expected_score"] for m in moves)
    danish = run_cli("--lang", "da", "analyze", str(VALID), "-j", "1", "--top", "1", env=env)
    assert "Hvor spillet blev tabt" in danish.stdout
    # The search by the heuristic, the graph still by the network.
    both = run_cli("analyze", str(VALID), "-j", "1", "--json", "--evaluation", "heuristic", env=env)
    assert json.loads(both.stdout)["evaluation"] == "heuristic"
    assert json.loads(both.stdout)["graph"]["moves"] == moves


@pytest.mark.slow
def test_without_a_network_analyze_notes_that_there_is_no_graph() -> None:
    env = {"TWENTY48_WEIGHTS": "none"}
    text = run_cli("analyze", str(VALID), "-j", "1", env=env)
    assert text.returncode == 0, text.stderr
    assert "no evaluation graph" in text.stdout
    assert "Where the game was lost" not in text.stdout
    data = json.loads(run_cli("analyze", str(VALID), "-j", "1", "--json", env=env).stdout)
    assert data["graph"] is None
    assert "no evaluation graph" in data["graph_note"]
