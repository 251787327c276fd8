"""The C solver (twenty48_replay._solver) against the NumPy solver (issue 21).

What "the same" means here (README "The solver" says it too):

* **Exactly equal** where both compute the same thing: a full-width search
  (``cutoff=0``) to a fixed depth is plain expectimax in both, so with the
  C table answering only at equal depth (``reuse_deeper=False``) every
  value agrees to rounding (1e-12 relative), on Hypothesis boards with
  tiles up to 131072 (wide boards too) and on real positions.  The tables
  are compared bit for bit.
* **Agreement and expected-value loss** where the algorithms differ by
  design: at the default strengths the NumPy search cuts its last level's
  least likely afterstates to fit 250,000 nodes, the C one deepens ply by
  ply within its budget and reuses deeper transpositions.  On positions of
  a 20,000-move game we require the C choice to be the NumPy choice in at
  least 70% of positions and to give up little of NumPy's expected value.
* **Never crashes**: any board (every exponent 0..17, and 5-bit exponents up
  to 31), any budget, bad arguments are Python errors, threads in parallel.

Skips when the extension is not built (fails instead when
TWENTY48_REQUIRE_NATIVE is set, as in CI) or TWENTY48_ENGINE=python.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
from functools import cache
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twenty48_replay import Board, Direction, Record
from twenty48_replay.core import native
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.solver import (
    SearchSettings,
    Strength,
    best_move,
    engine_name,
    expectimax,
    native_search,
)
from twenty48_replay.solver import tables as tb
from twenty48_replay.solver.settings import distinct_tiles, plies_for
from twenty48_replay.solver.strength import settings_for

module: Any = None
if native.ENGINE != "python":
    module = native.module("_solver")
if module is None:
    if os.environ.get("TWENTY48_REQUIRE_NATIVE") and native.ENGINE != "python":
        pytest.fail("the native solver is not built, but TWENTY48_REQUIRE_NATIVE is set")
    pytest.skip("the native solver is not built or not chosen", allow_module_level=True)

DATA = Path(__file__).resolve().parents[1] / "data"
REL = 1e-12
MAX_GAME_EXPONENT = 17  # 131072


def cells_board(exponents: list[int]) -> Board:
    return Board(sum(e << (5 * i) for i, e in enumerate(exponents)))


game_boards = st.lists(
    st.integers(0, MAX_GAME_EXPONENT) | st.just(0), min_size=16, max_size=16
).map(cells_board)
any_boards = st.lists(st.integers(0, 31), min_size=16, max_size=16).map(cells_board)


@cache
def long_game_positions() -> tuple[Board, ...]:
    """Every 1000th position of the 20,000-move solver game (tiles up to 32768)."""
    timeline = Timeline(Record.from_json((DATA / "long-20000.json").read_text(encoding="utf-8")))
    return tuple(timeline[i].board for i in range(0, 20_000, 1_000))


def fixed(plies: int, cutoff: float) -> SearchSettings:
    return SearchSettings(max_nodes=None, cutoff=cutoff, min_plies=plies, max_plies=plies)


def assert_same_values(board: Board, plies: int, cutoff: float) -> None:
    wanted = expectimax.search(board, fixed(plies, cutoff))
    got = native_search.search(board, fixed(plies, cutoff), module, reuse_deeper=False)
    assert got.values.keys() == wanted.values.keys()
    for code, value in wanted.values.items():
        assert got.values[code] == pytest.approx(value, rel=REL), (board, code)
    assert got.plies == wanted.plies


def test_tables_are_bit_identical() -> None:
    left, right, heur = module.tables()
    t = tb.tables()
    assert np.array_equal(np.frombuffer(left, dtype=np.uint32), t.left)
    assert np.array_equal(np.frombuffer(right, dtype=np.uint32), t.right)
    assert np.array_equal(np.frombuffer(heur, dtype=np.float64), t.heur)


@settings(max_examples=40, deadline=None)
@given(game_boards, st.integers(1, 2))
def test_full_width_search_equals_numpy(board: Board, depth: int) -> None:
    """Plain expectimax (no cut) to a fixed depth: the same values, narrow and wide boards."""
    assert_same_values(board, depth + 1, 0.0)


@pytest.mark.parametrize("index", range(0, 20, 4))
def test_full_width_search_equals_numpy_on_real_positions(index: int) -> None:
    assert_same_values(long_game_positions()[index], 3, 0.0)


def test_cut_search_equals_numpy_at_four_plies() -> None:
    """With nneonneo's cut and no budget, four plies: equal on these positions.

    Not guaranteed in general: NumPy cuts a position by its most likely path
    within a level, the C search by the path it first arrives on.
    """
    for board in long_game_positions()[::3]:
        assert_same_values(board, 4, 1e-4)


def test_the_probability_cut_cuts() -> None:
    """Cut-off 1: every afterstate past the root is below it, so five plies search two."""
    nodes = {1e-3: 0, 1e-4: 0}
    for board in long_game_positions()[1::4]:
        cut = native_search.search(board, fixed(5, 1.0), module, reuse_deeper=False)
        two = native_search.search(board, fixed(2, 0.0), module, reuse_deeper=False)
        assert cut.values == two.values
        assert expectimax.search(board, fixed(5, 1.0)).values == pytest.approx(two.values, rel=REL)
        for cutoff in nodes:
            nodes[cutoff] += native_search.search(board, fixed(4, cutoff), module).nodes
    assert nodes[1e-3] < nodes[1e-4]


def test_wide_boards_merge_to_131072() -> None:
    board = Board.from_rows(
        [[65536, 65536, 2, 4], [32768, 16384, 8, 2], [4, 8, 4, 16], [2, 4, 2, 8]]
    )
    assert_same_values(board, 2, 0.0)
    direction, _values = best_move(board, fixed(3, 1e-4))
    assert direction is not None
    assert board.slide(direction).board.max_tile == 131072


def relative_loss(values: dict[int, float], chosen: int) -> float:
    best = max(values.values())
    return (best - values[chosen]) / best


def test_default_strengths_agree_with_numpy() -> None:
    """The defaults differ by design; the C choice must be NumPy's, or nearly as good."""
    positions = long_game_positions()[::2]
    numpy_default = settings_for(Strength.DEFAULT, native=False)
    native_default = settings_for(Strength.DEFAULT, native=True)
    agreed = 0
    losses = []
    for board in positions:
        wanted = expectimax.search(board, numpy_default).values
        got = native_search.search(board, native_default, module).values
        assert got.keys() == wanted.keys()
        chosen = max(got, key=got.__getitem__)
        agreed += chosen == max(wanted, key=wanted.__getitem__)
        losses.append(relative_loss(wanted, chosen))
    assert agreed >= 0.7 * len(positions), (agreed, losses)
    assert max(losses) < 5e-3, losses
    assert sum(losses) / len(losses) < 1e-3, losses


@settings(max_examples=150, deadline=None)
@given(game_boards, st.sampled_from([1, 100, 5_000, None]), st.integers(1, 4))
def test_never_crashes_and_answers_every_valid_move(
    board: Board, budget: int | None, plies: int
) -> None:
    settings_ = SearchSettings(max_nodes=budget, min_plies=1, max_plies=plies)
    result = native_search.search(board, settings_, module)
    valid = {d.code for d in board.valid_directions()}
    assert set(result.values) == valid
    assert all(math.isfinite(v) and v >= 0.0 for v in result.values.values())
    assert (result.plies >= 1) == bool(valid)


@settings(max_examples=100, deadline=None)
@given(any_boards)
def test_any_five_bit_board_is_searched(board: Board) -> None:
    """Exponents up to 31 (hand-made boards): no crash, values finite, only changing moves."""
    result = native_search.search(board, SearchSettings(max_nodes=2_000, max_plies=3), module)
    assert set(result.values) <= {0, 1, 2, 3}
    assert all(math.isfinite(v) and v >= 0.0 for v in result.values.values())


def test_budget_bounds_the_work_and_the_depth() -> None:
    board = long_game_positions()[10]
    unbounded = native_search.search(board, SearchSettings(max_nodes=None, max_plies=6), module)
    previous = 0
    for budget in (1_000, 20_000, 400_000):
        bounded = native_search.search(board, SearchSettings(max_nodes=budget, max_plies=6), module)
        assert bounded.plies >= previous
        previous = bounded.plies
        assert bounded.plies <= unbounded.plies
        first_step = native_search.search(
            board, SearchSettings(max_nodes=None, min_plies=2, max_plies=2), module
        )
        # The first step (2 plies) always completes; a later one that runs over is abandoned.
        assert bounded.nodes <= max(first_step.nodes, budget) + 16


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (("x", 2, 1, 1e-4, 0, 1, 20, 0), TypeError),
        ((-1, 2, 1, 1e-4, 0, 1, 20, 0), ValueError),
        ((1 << 80, 2, 1, 1e-4, 0, 1, 20, 0), ValueError),
        ((0, 99, 1, 1e-4, 0, 1, 20, 0), ValueError),
        ((0, 2, -1, 1e-4, 0, 1, 20, 0), ValueError),
        ((0, 2, 1, float("nan"), 0, 1, 20, 0), ValueError),
        ((0, 2, 1, 2.0, 0, 1, 20, 0), ValueError),
        ((0, 2, 1, 1e-4, -5, 1, 20, 0), ValueError),
        ((0, 2, 1, 1e-4, 0, 2, 20, 0), ValueError),
        ((0, 2, 1, 1e-4, 0, 1, 40, 0), ValueError),
        ((0, 2, 1, 1e-4, 0, 1, 20), TypeError),
        ((0, 2, 1, 1e-4, 0, 1, 20, 2), ValueError),
        ((0, 2, 1, 1e-4, 0, 1, 20, 0, 0), TypeError),
    ],
)
def test_bad_arguments_are_python_errors(arguments: tuple[Any, ...], error: type) -> None:
    with pytest.raises(error):
        module.search(*arguments)


def test_threads_search_in_parallel_with_the_same_answers() -> None:
    """The search runs without the GIL, each call with its own transposition table."""
    boards = long_game_positions()[:8]
    setting = SearchSettings(max_nodes=200_000)
    expected = [native_search.search(b, setting, module).values for b in boards]
    got: dict[int, dict[int, float]] = {}

    def work(i: int) -> None:
        got[i] = native_search.search(boards[i], setting, module).values

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(boards))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[i] for i in range(len(boards))] == expected


def test_best_move_uses_the_native_search_unless_python_is_forced() -> None:
    assert engine_name() == "native"
    code = (
        "from twenty48_replay.solver import engine_name, best_move\n"
        "from twenty48_replay import Board\n"
        "import sys\n"
        "b = Board.from_rows([[0, 0, 0, 0], [2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4]])\n"
        "print(engine_name(), best_move(b)[0].letter, 'numpy' in sys.modules)\n"
    )
    for engine, expected in (("python", "python U True"), ("native", "native U False")):
        env = {**os.environ, native.ENV_VAR: engine}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.split() == expected.split()


def test_deep_strength_is_nneonneos_search() -> None:
    """No budget, nneonneo's cut and depth rule, uncapped: plies = max(3, distinct - 2) + 1,
    and a transposition table for each root move, as nneonneo's search starts."""
    deep = settings_for(Strength.DEEP, native=True)
    assert (deep.max_nodes, deep.cutoff, deep.table_per_move) == (None, 1e-4, True)
    boards = long_game_positions()
    assert [plies_for(b, deep) for b in boards] == [
        max(3, distinct_tiles(b) - 2) + 1 for b in boards
    ]
    assert any(plies_for(b, deep) > 9 for b in boards)  # beyond the old cap of 8 after the move
    # 10 distinct tiles: 9 plies; the default's budget stops it short here (on
    # boards[6] its coarser cut-off reaches the 9 plies within the budget).
    board = boards[8]
    result = native_search.search(board, deep, module)
    assert result.plies == plies_for(board, deep) == 9
    default_settings = settings_for(Strength.DEFAULT, native=True)
    assert deep.cutoff < default_settings.cutoff
    default = native_search.search(board, default_settings, module)
    assert result.nodes > default.nodes
    assert result.plies > default.plies


def test_server_bot_signal_is_the_same_with_either_search() -> None:
    """The server's engine-match ladder (solver/agreement.py) runs the C search now:
    its fixed-depth rungs (1-3 plies) count the same matches as NumPy's search."""
    from twenty48_replay.solver.agreement import Rung, agreement, choices, fixed_depth

    record = Record.from_json((DATA / "long-2000.json").read_text(encoding="utf-8"))
    letters = record.moves[:300]
    found, _played = choices(record.seed, letters)
    for plies in (1, 2, 3):
        numpy_matches = 0
        for board, letter in found:
            values = expectimax.search(board, fixed_depth(plies)).values
            best = max((d for d in Direction if d.code in values), key=lambda d: values[d.code])
            numpy_matches += best.letter == letter
        rung = Rung(str(plies), fixed_depth(plies), len(found))
        got = agreement(record.seed, letters, [rung], b"k" * 32).rungs[0]
        assert (got.matches, got.checked) == (numpy_matches, len(found))


def test_the_ladder_default_rung_is_the_c_search_default() -> None:
    """The C search's default with the evaluation it uses here: the shipped network when
    it is installed, else the hand-tuned heuristic."""
    from twenty48_replay.solver.agreement import offered_strengths
    from twenty48_replay.solver.dispatch import current_network

    network = current_network() is not None
    expected = settings_for(Strength.DEFAULT, native=True, network=network)
    assert dict(offered_strengths())["default"] == expected


def test_the_c_search_spends_the_crowded_budget_on_crowded_boards() -> None:
    """The crowded-board rule picks the budget by the board alone (so stays deterministic)."""
    crowded = Board.from_rows([[0, 2, 4, 8], [2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 32, 64]])
    two_empty = Board.from_rows([[0, 2, 4, 8], [2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 32, 0]])
    rule = SearchSettings(max_nodes=2_000, crowded_max_nodes=20_000, crowded_empty=1)
    small = SearchSettings(max_nodes=2_000)
    large = SearchSettings(max_nodes=20_000)
    got = native_search.search(crowded, rule, module)
    assert got == native_search.search(crowded, large, module)
    assert got != native_search.search(crowded, small, module)
    assert got == native_search.search(crowded, rule, module)
    assert native_search.search(two_empty, rule, module) == native_search.search(
        two_empty, small, module
    )
    wider = attrs.evolve(rule, crowded_empty=2)
    assert native_search.search(two_empty, wider, module) == native_search.search(
        two_empty, large, module
    )
    assert native_search.search(two_empty, large, module).nodes > 2_000 + 16


def pushed_right(board: Board) -> Board | None:
    """Another board whose LEFT move makes the same board (None if there is none).

    The first row that is not already pushed right gets its tiles pushed
    right: sliding left only sees the order of a row's tiles.
    """
    rows = [list(board.cells()[4 * r : 4 * r + 4]) for r in range(4)]
    for r, row in enumerate(rows):
        tiles = [tile for tile in row if tile]
        pushed = [0] * (4 - len(tiles)) + tiles
        if pushed != row:
            rows[r] = pushed
            return Board.from_rows(rows)
    return None


def test_a_table_per_move_makes_a_moves_value_depend_on_its_board_alone() -> None:
    """With a table per root move (nneonneo's way), LEFT from two boards that slide to
    the same board has the same value, bit for bit; with one table for the four, LEFT
    reuses values that UP and DOWN (which differ between the two) stored before it."""
    per_move = SearchSettings(max_nodes=None, min_plies=2, max_plies=5, table_per_move=True)
    shared = attrs.evolve(per_move, table_per_move=False)
    timeline = Timeline(Record.from_json((DATA / "long-20000.json").read_text(encoding="utf-8")))
    pairs = [
        (board, other)
        for board in (timeline[i].board for i in range(5, 6_000, 97))
        if (other := pushed_right(board)) is not None
    ]
    left = Direction.LEFT.code
    compared = differed = 0
    for board, other in pairs:
        one = native_search.search(board, per_move, module).values
        two = native_search.search(other, per_move, module).values
        if left not in one or left not in two:
            continue
        compared += 1
        assert one[left] == two[left], (board, other)
        shared_one = native_search.search(board, shared, module).values[left]
        differed += shared_one != native_search.search(other, shared, module).values[left]
    assert compared >= 20
    assert differed > 0, "the shared table makes a difference somewhere (the test has teeth)"


def test_the_c_search_spends_the_late_budget_on_long_chains() -> None:
    """The late-game rule picks the budget by the board's distinct tiles alone."""
    chain = Board.from_rows([[0, 2, 4, 8], [2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 64, 128]])
    shorter = Board.from_rows([[0, 2, 4, 8], [2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 32, 64]])
    rule = SearchSettings(max_nodes=2_000, late_max_nodes=20_000, late_distinct=7)
    small = SearchSettings(max_nodes=2_000)
    large = SearchSettings(max_nodes=20_000)
    got = native_search.search(chain, rule, module)
    assert got == native_search.search(chain, large, module)
    assert got != native_search.search(chain, small, module)
    assert native_search.search(shorter, rule, module) == native_search.search(
        shorter, small, module
    )
