"""The built-in solver: board arrays agree with the engine, moves are valid and sensible.

Kept to a few seconds: the searches here use small node budgets, and the
strength of the solver is measured by tests/bench/bench_solver.py instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twenty48_replay import Board, Direction, Record, verify
from twenty48_replay.solver import SearchSettings, best_move, expectimax, play_game, search
from twenty48_replay.solver import boards as bd
from twenty48_replay.solver import tables as tb

DATA = Path(__file__).resolve().parents[1] / "data"
FAST = SearchSettings(max_nodes=20_000)
TILES = [0, 0, 0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 32768, 65536, 131072]


def random_board(draw: st.DrawFn, values: list[int]) -> Board:
    return Board.from_cells(draw(st.lists(st.sampled_from(values), min_size=16, max_size=16)))


@st.composite
def boards(draw: st.DrawFn) -> Board:
    return random_board(draw, TILES)


def reference_heuristic(line: list[int]) -> float:
    """nneonneo's line heuristic, written out plainly as in 2048.cpp."""
    total = 0.0
    empty = merges = prev = counter = 0
    for rank in line:
        total += rank**tb.SUM_POWER
        if rank == 0:
            empty += 1
            continue
        if prev == rank:
            counter += 1
        elif counter > 0:
            merges += 1 + counter
            counter = 0
        prev = rank
    if counter > 0:
        merges += 1 + counter
    left = right = 0.0
    for i in range(1, 4):
        if line[i - 1] > line[i]:
            left += line[i - 1] ** 4 - line[i] ** 4
        else:
            right += line[i] ** 4 - line[i - 1] ** 4
    return (
        tb.LOST_PENALTY
        + tb.EMPTY_WEIGHT * empty
        + tb.MERGES_WEIGHT * merges
        - tb.MONOTONICITY_WEIGHT * min(left, right)
        - tb.SUM_WEIGHT * total
    )


def test_heuristic_table_matches_the_definition() -> None:
    table = tb.tables().heur
    rng = np.random.default_rng(7)
    for line in [[0, 0, 0, 0], [1, 1, 1, 1], [17, 16, 15, 0], *rng.integers(0, 18, (300, 4))]:
        cells = [int(e) for e in line]
        key = sum((e & 15) << (4 * j) | (e >> 4) << (16 + j) for j, e in enumerate(cells))
        assert table[key] == pytest.approx(reference_heuristic(cells))


@settings(max_examples=60)
@given(st.lists(boards(), min_size=1, max_size=8))
def test_board_arrays_move_like_the_engine(batch: list[Board]) -> None:
    """Narrow and wide batches (65536+ tiles included) move exactly like Board.slide."""
    split = [bd.split_board(b) for b in batch]
    assert [bd.join_board(lo, hi) for lo, hi in split] == batch
    lo = np.array([s[0] for s in split], dtype=bd.U64)
    hi = np.array([s[1] for s in split], dtype=bd.U16)
    narrow_ok = all(b.tile_sum < 65536 for b in batch)
    for direction in Direction:
        expected = [b.slide(direction).board for b in batch]
        mlo, mhi = bd.move(lo, hi, direction.code)
        assert mhi is not None
        assert [bd.join_board(int(x), int(y)) for x, y in zip(mlo, mhi, strict=True)] == expected
        if narrow_ok:
            nlo, _ = bd.move(lo, None, direction.code)
            assert [bd.join_board(int(x), 0) for x in nlo] == expected
    empty = bd.empty_cells(lo, hi)
    assert [tuple(np.flatnonzero(row)) for row in empty] == [b.empty_cells() for b in batch]
    counts = [len(b.empty_cells()) for b in batch]
    assert bd.open_counts(lo, hi).tolist() == counts
    if narrow_ok:
        assert bd.open_counts(lo, None).tolist() == counts


def test_tables_are_built_lazily() -> None:
    """Importing the library (and verifying) must not import NumPy."""
    code = (
        "import sys, twenty48_replay\n"
        "from twenty48_replay import Record, verify\n"
        "verify(Record('s', 'L', 0))\n"
        "assert 'numpy' not in sys.modules, 'numpy imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@settings(max_examples=25)
@given(boards())
def test_never_returns_an_invalid_move(board: Board) -> None:
    direction, values = best_move(board, SearchSettings(max_nodes=3_000, max_plies=3))
    valid = board.valid_directions()
    assert set(values) == set(valid)
    if valid:
        assert direction in valid
        assert all(v >= 0 for v in values.values())
    else:
        assert direction is None


def test_picks_the_only_valid_move() -> None:
    one = Board.from_rows([[0, 2, 4, 8], [0, 4, 8, 2], [0, 2, 4, 8], [0, 4, 8, 2]])
    assert one.valid_directions() == (Direction.LEFT,)
    direction, values = best_move(one, FAST)
    assert direction is Direction.LEFT
    assert set(values) == {Direction.LEFT}


def test_no_move_on_a_lost_board() -> None:
    lost = Board.from_rows([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]])
    assert best_move(lost) == (None, {})


def test_avoids_a_move_that_loses_at_once() -> None:
    """LEFT fills the board with no merge left, whatever spawns; UP and DOWN do not."""
    board = Board.from_rows([[128, 16, 8, 2], [8, 4, 2, 8], [0, 32, 16, 32], [8, 2, 4, 16]])
    after = board.slide(Direction.LEFT).board
    assert all(after.with_tile(c, v).is_over() for c in after.empty_cells() for v in (2, 4))
    direction, values = best_move(board, FAST)
    assert direction in (Direction.UP, Direction.DOWN)
    assert values[Direction.LEFT] == 0.0
    assert min(values[Direction.UP], values[Direction.DOWN]) > 0.0


def test_takes_the_winning_merge() -> None:
    """Two 1024s on a crowded board: UP or DOWN makes 2048, RIGHT splits the pair for good."""
    board = Board.from_rows([[1024, 2, 4, 8], [1024, 16, 32, 0], [2, 64, 128, 4], [8, 4, 2, 16]])
    assert board.valid_directions() == (Direction.UP, Direction.DOWN, Direction.RIGHT)
    direction, values = best_move(board, FAST)
    assert direction in (Direction.UP, Direction.DOWN)
    assert board.slide(direction).board.max_tile == 2048
    assert values[Direction.RIGHT] < values[direction]


def test_handles_tiles_above_32768() -> None:
    """Two 65536s merge into 131072; the wide search sees it and takes it."""
    board = Board.from_rows(
        [[65536, 65536, 2, 4], [32768, 16384, 8, 2], [4, 8, 4, 16], [2, 4, 2, 8]]
    )
    result = search(board, FAST)
    assert result.values
    direction, _ = best_move(board, FAST)
    assert direction in (Direction.LEFT, Direction.RIGHT)
    assert board.slide(direction).board.max_tile == 131072


def test_solver_game_verifies() -> None:
    """A short solver-played game is a valid record, and the loop stops at the target."""
    played = play_game("solver-test", 128, settings=SearchSettings(max_nodes=5_000))
    assert played.state.max_tile == 128
    assert len(played.moves) == played.state.moves
    result = verify(Record("solver-test", played.moves, played.state.score))
    assert result.valid, result.reasons
    assert result.max_tile == 128
    assert verify(Record("solver-test", played.moves[:-1], 0)).max_tile < 128


def test_play_game_stops_after_max_moves() -> None:
    seen: list[str] = []
    played = play_game(
        "solver-test",
        None,
        max_moves=5,
        settings=SearchSettings(max_nodes=2_000),
        progress=lambda state, direction: seen.append(direction.letter),
    )
    assert played.moves == "".join(seen)
    assert len(played.moves) == 5


@pytest.mark.parametrize("name", ["win-2048.json", "long-2000.json"])
def test_data_records_verify(name: str) -> None:
    record = Record.from_json((DATA / name).read_text(encoding="utf-8"))
    result = verify(record)
    assert result.valid, result.reasons
    if name == "win-2048.json":
        assert result.max_tile == 2048
        assert verify(Record(record.seed, record.moves[:-1], 0)).max_tile < 2048
    else:
        assert result.moves >= 2000
    assert json.loads((DATA / name).read_text(encoding="utf-8"))["player"] == "solver"


def test_a_missing_c_search_falls_back_to_numpy(tmp_path: Path) -> None:
    """The solver's extension failed to build (the core did not): hints come from NumPy.

    ``twenty48_replay._solver`` is hidden by a path hook; without
    TWENTY48_ENGINE the hint is NumPy's, byte for byte, and
    TWENTY48_ENGINE=native refuses in one line with exit 2.
    """
    from support.common import run_cli

    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'twenty48_replay._solver':\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n",
        encoding="utf-8",
    )
    hint = ("hint", "--board", "2 2 0 0/4 0 0 0/0 0 0 0/0 0 0 2", "--json")
    numpy_hint = run_cli(*hint, env={"TWENTY48_ENGINE": "python"})
    assert numpy_hint.returncode == 0, numpy_hint.stderr
    hidden = {"PYTHONPATH": str(hide)}
    fallback = run_cli(*hint, env={**hidden, "TWENTY48_ENGINE": ""})
    assert fallback.returncode == 0, fallback.stderr
    assert fallback.stdout == numpy_hint.stdout
    assert json.loads(fallback.stdout)["best"] == "U"
    refused = run_cli(*hint, env={**hidden, "TWENTY48_ENGINE": "native"})
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr.strip() == (
        "twenty48: error: TWENTY48_ENGINE=native, but the native core is not built in this "
        "installation; reinstall with a C compiler, or set TWENTY48_ENGINE=python"
    )


#: One empty cell, and two (the crowded-board rule's default line is at one).
CROWDED = Board.from_rows([[0, 2, 4, 8], [2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 32, 64]])
OPEN = Board.from_rows([[0, 2, 4, 8], [2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 32, 0]])
CROWDED_RULE = SearchSettings(max_nodes=2_000, crowded_max_nodes=20_000, crowded_empty=1)


@pytest.mark.parametrize(
    "changes",
    [
        {"crowded_max_nodes": 0},
        {"crowded_max_nodes": -5},
        {"crowded_empty": -1},
        {"crowded_empty": 16},
    ],
)
def test_bad_crowded_rules_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="crowded"):
        SearchSettings(**changes)


def test_the_crowded_rule_picks_the_budget_by_empty_cells() -> None:
    assert CROWDED_RULE.budget_for(CROWDED) == 20_000  # one empty cell
    assert CROWDED_RULE.budget_for(OPEN) == 2_000  # two
    assert attrs.evolve(CROWDED_RULE, crowded_empty=2).budget_for(OPEN) == 20_000
    assert attrs.evolve(CROWDED_RULE, crowded_empty=0).budget_for(CROWDED) == 2_000
    assert SearchSettings(max_nodes=2_000).budget_for(CROWDED) == 2_000  # the rule is off
    assert SearchSettings(max_nodes=None).budget_for(CROWDED) is None


#: Seven distinct tiles and one empty cell (CROWDED and OPEN hold six).
LONG_CHAIN = Board.from_rows([[0, 2, 4, 8], [2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 64, 128]])
LATE_RULE = SearchSettings(max_nodes=2_000, late_max_nodes=20_000, late_distinct=7)


@pytest.mark.parametrize(
    "changes",
    [
        {"late_max_nodes": 0},
        {"late_max_nodes": -5},
        {"late_distinct": 0},
        {"late_distinct": 18},
    ],
)
def test_bad_late_rules_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="late"):
        SearchSettings(**changes)


def test_the_late_rule_picks_the_budget_by_distinct_tiles() -> None:
    assert LATE_RULE.budget_for(LONG_CHAIN) == 20_000  # seven distinct tiles
    assert LATE_RULE.budget_for(CROWDED) == 2_000  # six
    assert attrs.evolve(LATE_RULE, late_distinct=6).budget_for(CROWDED) == 20_000
    assert attrs.evolve(LATE_RULE, late_distinct=8).budget_for(LONG_CHAIN) == 2_000
    # Both rules on a board both apply to: the larger budget.
    both = attrs.evolve(LATE_RULE, crowded_max_nodes=5_000)
    assert both.budget_for(LONG_CHAIN) == 20_000
    assert attrs.evolve(both, crowded_max_nodes=50_000).budget_for(LONG_CHAIN) == 50_000
    assert both.budget_for(CROWDED) == 5_000  # only the crowded rule applies
    assert attrs.evolve(LATE_RULE, max_nodes=None).budget_for(LONG_CHAIN) is None  # unbounded
    assert attrs.evolve(LATE_RULE, late_max_nodes=None).budget_for(LONG_CHAIN) == 2_000
    assert SearchSettings(max_nodes=None).budget_for(LONG_CHAIN) is None


def test_the_numpy_search_spends_the_late_budget_on_long_chains() -> None:
    got = expectimax.search(LONG_CHAIN, LATE_RULE)
    assert got == expectimax.search(LONG_CHAIN, SearchSettings(max_nodes=20_000))
    assert got != expectimax.search(LONG_CHAIN, SearchSettings(max_nodes=2_000))


def test_the_numpy_search_spends_the_crowded_budget_on_crowded_boards() -> None:
    crowded = expectimax.search(CROWDED, CROWDED_RULE)
    assert crowded == expectimax.search(CROWDED, SearchSettings(max_nodes=20_000))
    assert crowded != expectimax.search(CROWDED, SearchSettings(max_nodes=2_000))
    assert expectimax.search(OPEN, CROWDED_RULE) == expectimax.search(
        OPEN, SearchSettings(max_nodes=2_000)
    )
    assert expectimax.search(OPEN, CROWDED_RULE) != expectimax.search(
        OPEN, SearchSettings(max_nodes=20_000)
    )
