"""The n-tuple network (issue 34): the C trainer against the Python reference.

* **Exactly equal**: features, values, the PRNG, and whole training games
  (TD and TC, one stage and two) agree bit for bit with
  tests/ntuple_reference.py, which plays with the pure-Python engine.  Both
  sum a value in double precision in feature order and round every stored
  number to float32 at the same steps, so no tolerance is needed.
* **Deterministic**: the same seed and thread count give the same arrays;
  two threads give the reference's merge of two private copies; a run
  resumed from a checkpoint gives the arrays of an uninterrupted run.
* **Weights files** are refused, with one line, when truncated, padded,
  changed, of another version or not weights at all.

Skips when the extension is not built (fails instead when
TWENTY48_REQUIRE_NATIVE is set) or TWENTY48_ENGINE=python.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ntuple_reference as ref

from twenty48_replay import Board
from twenty48_replay.core import native
from twenty48_replay.solver import training
from twenty48_replay.solver import weights as wf
from twenty48_replay.solver.training import TrainConfig, TrainState
from twenty48_replay.solver.weights import NetworkShape, WeightsError

module: Any = None
if native.ENGINE != "python":
    module = native.module("_solver")
if module is None:
    if os.environ.get("TWENTY48_REQUIRE_NATIVE") and native.ENGINE != "python":
        pytest.fail("the native solver is not built, but TWENTY48_REQUIRE_NATIVE is set")
    pytest.skip("the native solver is not built or not chosen", allow_module_level=True)

SMALL = NetworkShape(((0, 1, 2), (4, 5, 6), (0, 1, 4)))
STAGED = NetworkShape(((0, 1, 2, 3), (1, 5, 6), (0, 4)), (0, 7, 9))
#: The C reads runs of consecutive cells at once: runs across a row's end
#: (3 4), cells out of order and a tuple of the longest length are here too.
SHAPES = [
    SMALL,
    STAGED,
    NetworkShape(((0, 1, 2, 3, 4, 5),), (0,)),
    NetworkShape(((0, 1, 2, 4, 5, 6), (9, 8, 3, 4, 12, 13, 14), (15, 11, 7, 3)), (0, 11)),
]


def cells_board(exponents: list[int]) -> Board:
    return Board(sum(e << (5 * i) for i, e in enumerate(exponents)))


game_boards = st.lists(st.integers(0, 17), min_size=16, max_size=16).map(cells_board)
any_boards = st.lists(st.integers(0, 31), min_size=16, max_size=16).map(cells_board)


def test_prng_is_splitmix64_per_game() -> None:
    for seed, game in [(0, 0), (1, 0), (1, 1), (2**64 - 1, 12345), (42, 2**40)]:
        rng = ref.Rng(seed, game)
        assert module.ntuple_random(seed, game, 50) == tuple(rng.next() for _ in range(50))


def test_symmetries_are_the_eight_of_the_square() -> None:
    images = {tuple(ref.symmetric_cell(c, s) for c in range(16)) for s in range(8)}
    assert len(images) == 8
    assert all(sorted(image) == list(range(16)) for image in images)


@settings(max_examples=300, deadline=None)
@given(board=game_boards | any_boards, shape_index=st.integers(0, len(SHAPES) - 1))
def test_features_match_the_reference(board: Board, shape_index: int) -> None:
    shape = SHAPES[shape_index]
    got = module.ntuple_indexes(shape.tuples, shape.stages, board.packed)
    assert list(got) == ref.indexes(shape.tuples, shape.stages, board)


def load(shape: NetworkShape, kind: int, values: Any, index: Any = None, scale: float = 1.0) -> Any:
    values = np.ascontiguousarray(values)  # a training's weights are a column of its values
    return module.ntuple_load(shape.tuples, shape.stages, kind, scale, values, index)


@settings(max_examples=200, deadline=None)
@given(board=game_boards, seed=st.integers(0, 2**32 - 1))
def test_values_match_the_reference(board: Board, seed: int) -> None:
    shape = STAGED
    rng = np.random.default_rng(seed)
    weights = rng.normal(0, 1000, shape.total).astype(np.float32)
    got = module.ntuple_value(load(shape, wf.KIND_F32, weights), board.packed)
    assert got == ref.value(shape.tuples, shape.stages, weights, board)
    quantised = rng.integers(-32768, 32768, shape.total).astype(np.int16)
    quantised[rng.random(shape.total) < 0.7] = 0
    scale = 0.37
    expected = sum(int(quantised[i]) for i in ref.indexes(shape.tuples, shape.stages, board))
    got = module.ntuple_value(load(shape, wf.KIND_I16, quantised, scale=scale), board.packed)
    assert got == expected * scale
    index, values = training.sparse_parts(quantised)
    sparse = load(shape, wf.KIND_I16_SPARSE, values, index, scale)
    assert module.ntuple_value(sparse, board.packed) == expected * scale


def test_sparse_index_is_checked() -> None:
    q = np.zeros(SMALL.total, np.int16)
    q[[3, 64, 65, 4000]] = [5, -7, 9, 1]
    index, values = training.sparse_parts(q)
    assert list(values) == [5, -7, 9, 1]
    assert list(index[:2, 0]) == [0, 1]
    assert index[62, 0] == 3
    load(SMALL, wf.KIND_I16_SPARSE, values, index)
    for damage in (lambda i, v: (i, v[:-1]), lambda i, v: (i, np.append(v, 1))):
        i, v = damage(index.copy(), values)
        with pytest.raises(ValueError, match="sparse index"):
            load(SMALL, wf.KIND_I16_SPARSE, v, i)
    broken = index.copy()
    broken[1, 0] = 0
    with pytest.raises(ValueError, match="sparse index"):
        load(SMALL, wf.KIND_I16_SPARSE, values, broken)
    broken = index.copy()
    broken[5, 1] |= 1
    with pytest.raises(ValueError, match="sparse index"):
        load(SMALL, wf.KIND_I16_SPARSE, values, broken)
    with pytest.raises(ValueError, match="groups"):
        load(SMALL, wf.KIND_I16_SPARSE, values, index[:-1])


def test_greedy_play_with_the_network_is_deterministic() -> None:
    config = TrainConfig(shape=SMALL, rule="tc", rate=1.0, seed=5, round_games=100)
    state = trained(config, 200)
    net = load(SMALL, wf.KIND_F32, state.weights)
    first = np.zeros((20, 2), np.uint64)
    second = np.zeros((20, 2), np.uint64)
    assert module.ntuple_play(net, 99, 0, 1, 20, first, None) == 20
    assert module.ntuple_play(net, 99, 0, 1, 20, second, None) == 20
    assert np.array_equal(first, second)
    q, scale = training.quantise(state.weights)
    index, values = training.sparse_parts(q)
    sparse = np.zeros((20, 2), np.uint64)
    module.ntuple_play(
        load(SMALL, wf.KIND_I16_SPARSE, values, index, scale), 99, 0, 1, 20, sparse, None
    )
    assert np.mean(unpack(sparse), axis=0)[0] > 0.5 * np.mean(unpack(first), axis=0)[0]


def c_train(
    shape: NetworkShape, arrays: list[np.ndarray], rule: str, rate: float, seed: int, games: range
) -> np.ndarray:
    """Train in C on ``arrays`` (the weights, and TC's E and A: separate, as the
    reference keeps them; the C trainer keeps them side by side)."""
    values = np.stack(arrays, axis=1).astype(np.float32)
    results = np.zeros((len(games), 2), np.uint64)
    played = module.ntuple_train(
        shape.tuples,
        shape.stages,
        values,
        None,
        training.RULES[rule],
        rate,
        seed,
        games.start,
        games.step,
        len(games),
        results,
        None,
    )
    assert played == len(games)
    for k, array in enumerate(arrays):
        array[:] = values[:, k]
    return results


def unpack(results: np.ndarray) -> list[tuple[int, int, int]]:
    return [(int(s), int(m) & 0xFFFFFFFF, int(m) >> 32) for s, m in results]


@pytest.mark.parametrize(
    ("shape", "rule", "rate"),
    [(SMALL, "td", 0.1), (SMALL, "tc", 1.0), (STAGED, "tc", 0.5), (STAGED, "td", 0.4)],
)
def test_training_games_match_the_reference(shape: NetworkShape, rule: str, rate: float) -> None:
    n = 3 if rule == "tc" else 1
    c_arrays = [np.zeros(shape.total, np.float32) for _ in range(n)]
    py_arrays = [np.zeros(shape.total, np.float32) for _ in range(n)]
    seed = 20261206
    # Learn a little first (in C), so that the compared games are played by a
    # network that has opinions, then compare game by game.
    c_train(shape, c_arrays, rule, rate, seed, range(100, 400))
    for a, b in zip(py_arrays, c_arrays, strict=True):
        a[:] = b
    games = range(7, 19, 3)
    c_results = unpack(c_train(shape, c_arrays, rule, rate, seed, games))
    py_results = [
        ref.play(shape.tuples, shape.stages, py_arrays, rule, rate, seed, g) for g in games
    ]
    assert c_results == py_results
    assert any(moves > 100 for _s, moves, _l in py_results)
    for a, b in zip(c_arrays, py_arrays, strict=True):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


def test_stop_flag_stops_between_games() -> None:
    shape = SMALL
    w = np.zeros(shape.total, np.float32)
    stop = np.ones(1, np.int32)
    results = np.zeros((10, 2), np.uint64)
    args = (None, 0, 0.1, 1, 0, 1, 10, results, stop)
    assert module.ntuple_train(shape.tuples, shape.stages, w, *args) == 0
    assert not w.any()


def test_bad_arguments_are_python_errors() -> None:
    w = np.zeros(SMALL.total, np.float32)
    results = np.zeros((1, 2), np.uint64)
    rest = (0.1, 1, 0, 1, 1, results, None)
    with pytest.raises(ValueError, match="aligned bytes"):
        module.ntuple_train(SMALL.tuples, SMALL.stages, w[:-1], None, 0, *rest)
    with pytest.raises(ValueError, match="shape"):
        module.ntuple_train(((0, 0),), (0,), w, None, 0, *rest)
    with pytest.raises(ValueError, match="values"):  # TC needs three floats a weight
        module.ntuple_train(SMALL.tuples, SMALL.stages, w, None, 1, *rest)
    with pytest.raises(ValueError, match="rate"):
        module.ntuple_train(SMALL.tuples, SMALL.stages, w, None, 0, 0.0, *rest[1:])
    with pytest.raises(ValueError, match="stride"):
        module.ntuple_merge(w, (w.copy(),), (np.zeros(SMALL.total // 256, np.uint8),), 4)
    with pytest.raises(TypeError):
        module.ntuple_value(load(SMALL, wf.KIND_F32, w), "board")
    with pytest.raises(TypeError, match="ntuple_load"):
        module.ntuple_value(object(), 0)
    with pytest.raises(ValueError, match="values"):
        load(SMALL, wf.KIND_I16, w)


def trained(config: TrainConfig, games: int, **kwargs: Any) -> TrainState:
    return training.train(TrainState.new(config), games, module=module, **kwargs)


@pytest.mark.parametrize("rule", ["td", "tc"])
def test_two_threads_are_the_reference_merge(rule: str) -> None:
    config = TrainConfig(shape=SMALL, rule=rule, rate=0.5, seed=7, threads=2, round_games=40)
    got = trained(config, 80)
    # The same by hand: each round, thread t plays games t, t + 2, ... on its
    # own copy; the copies are merged in order.
    shared = [np.zeros(SMALL.total, np.float32) for _ in range(config.n_arrays)]
    copies = [[a.copy() for a in shared] for _ in range(2)]
    for first in (0, 40):
        for t in range(2):
            c_train(SMALL, copies[t], rule, 0.5, 7, range(first + t, first + 40, 2))
        ref.merge(shared, copies)
    for a, b in zip(got.arrays, shared, strict=True):
        assert np.array_equal(a, b)
    assert got.games == 80


@pytest.mark.parametrize("threads", [1, 2])
def test_resume_gives_the_uninterrupted_network(tmp_path: Path, threads: int) -> None:
    config = TrainConfig(shape=STAGED, rule="tc", rate=1.0, seed=3, threads=threads, round_games=50)
    straight = trained(config, 300)
    checkpoint = tmp_path / "run.t48w"
    trained(config, 150, checkpoint=str(checkpoint), checkpoint_every=100)
    resumed = training.load_checkpoint(str(checkpoint))
    assert resumed.games == 150
    training.train(resumed, 300, module=module)
    for a, b in zip(straight.arrays, resumed.arrays, strict=True):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
    assert [p["games"] for p in resumed.curve] == [p["games"] for p in straight.curve]


def test_progress_reports_windows(tmp_path: Path) -> None:
    seen: list[training.WindowStats] = []
    config = TrainConfig(shape=SMALL, rule="td", rate=0.1, seed=1, round_games=25)
    state = trained(config, 100, window=50, progress=seen.append)
    assert [s.games for s in seen] == [50, 100]
    assert all(s.window == 50 and s.mean_score > 0 and s.mean_moves > 0 for s in seen)
    assert state.curve == [s.to_json() for s in seen]


# ------------------------------------------------------------- weights files


def write_sample(path: Path, **kwargs: Any) -> np.ndarray:
    w = np.arange(STAGED.total, dtype=np.float32)
    wf.write(path, STAGED, [w], metadata={"kind": "test"}, **kwargs)
    return w


def test_weights_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "w.t48w"
    w = write_sample(path)
    loaded = wf.load(path)
    assert loaded.shape == STAGED
    assert loaded.header.metadata == {"kind": "test"}
    assert np.array_equal(np.frombuffer(loaded.arrays[0], np.float32), w)
    assert loaded.header.header_length % 64 == 0
    board = Board.from_rows([[2, 4, 8, 16], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 128]])
    net = loaded.network(module)
    assert module.ntuple_value(net, board.packed) == ref.value(
        STAGED.tuples, STAGED.stages, w, board
    )
    del net
    loaded.close()


@pytest.mark.parametrize("sparse", [True, False])
def test_exported_weights_evaluate_as_quantised(tmp_path: Path, sparse: bool) -> None:
    config = TrainConfig(shape=STAGED, rule="tc", rate=1.0, seed=2, round_games=100)
    state = trained(config, 300)
    path = tmp_path / "ship.t48w"
    info = training.export(state, str(path), sparse=sparse)
    loaded = wf.load(path)
    assert loaded.header.value_type == wf.INT16
    assert loaded.header.metadata["games"] == 300
    q, scale = training.quantise(state.weights)
    assert info["scale"] == scale == loaded.header.scale
    net = loaded.network(module)
    rng = np.random.default_rng(1)
    for _ in range(50):
        board = cells_board([int(e) for e in rng.integers(0, 12, 16)])
        index = ref.indexes(STAGED.tuples, STAGED.stages, board)
        expected = sum(int(q[i]) for i in index) * scale
        assert module.ntuple_value(net, board.packed) == expected
        assert abs(expected - ref.value_of(state.weights, index)) <= 32 * scale
    del net
    loaded.close()


def test_export_prunes_the_smallest_weights_to_fit(tmp_path: Path) -> None:
    config = TrainConfig(shape=STAGED, rule="tc", rate=1.0, seed=2, round_games=100)
    state = trained(config, 300)
    q, _scale = training.quantise(state.weights)
    nonzero = int(np.count_nonzero(q))
    path = tmp_path / "ship.t48w"
    training.export(state, str(path))
    full = path.stat().st_size
    info = training.export(state, str(path), max_bytes=full - 2 * (nonzero // 2))
    assert path.stat().st_size <= full - 2 * (nonzero // 2)
    assert info["kept"] <= nonzero - nonzero // 2
    assert info["pruned_below"] > 0
    loaded = wf.load(path)
    kept = np.frombuffer(loaded.arrays[0], np.int16)
    assert len(kept) == info["kept"]
    assert np.abs(kept.astype(np.int32)).min() >= info["pruned_below"]
    loaded.close()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b[:-1], "truncated"),
        (lambda b: b + b"\0", "truncated"),
        (lambda b: b[:40], "truncated|not a weights"),
        (lambda b: b[:7], "not a weights file"),
        (lambda b: b"X" + b[1:], "not a weights file"),
        (lambda b: b[:8] + struct.pack("<I", 2) + b[12:], "format version 2"),
        (lambda b: b[:-3] + bytes([b[-3] ^ 1]) + b[-2:], "corrupt"),
        (lambda b: b[:100] + bytes([b[100] ^ 0x40]) + b[101:], "corrupt|bad header"),
        (lambda b: b"", "not a weights file"),
    ],
)
def test_broken_weights_files_are_refused(tmp_path: Path, damage: Any, message: str) -> None:
    path = tmp_path / "w.t48w"
    write_sample(path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(WeightsError, match=message) as caught:
        wf.load(path)
    assert "\n" not in str(caught.value)
    assert str(path) in str(caught.value)


def test_missing_weights_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="cannot be read"):
        wf.load(tmp_path / "nothing.t48w")


def test_checkpoint_is_not_shipped_weights(tmp_path: Path) -> None:
    path = tmp_path / "w.t48w"
    write_sample(path)
    with pytest.raises(WeightsError, match="not a training checkpoint"):
        training.load_checkpoint(str(path))


# ------------------------------------------------------------ search (issue 34)


def ref_search(shape: NetworkShape, q: np.ndarray, board: Board, depth: int) -> list[float | None]:
    """Plain expectimax over an int16 network (scale 1), as t48_solver_search.h defines it:
    a move's value is its points plus its afterstate's; an afterstate at ``depth`` is
    the network's value floored at 0; a chance node averages every spawn, 2s first."""

    def leaf(a: Board) -> float:
        return max(0.0, float(sum(int(q[i]) for i in ref.indexes(shape.tuples, shape.stages, a))))

    def max_node(s: Board, level: int) -> float:
        best = 0.0
        for code in range(4):
            moved = ref.slide(s, code)
            if moved is None:
                continue
            after, gained = moved
            v = gained + (leaf(after) if level >= depth else chance(after, level))
            best = max(best, v)
        return best

    def chance(a: Board, level: int) -> float:
        empties = a.empty_cells()
        if not empties:
            return leaf(a)
        share = 1.0 / len(empties)
        total = 0.0
        for tile, p in ((2, 0.9), (4, 0.1)):
            for cell in empties:
                total += share * p * max_node(a.with_tile(cell, tile), level + 1)
        return total

    values: list[float | None] = []
    for code in range(4):
        moved = ref.slide(board, code)
        if moved is None:
            values.append(None)
            continue
        after, gained = moved
        values.append(gained + (leaf(after) if depth == 0 else chance(after, 0)))
    return values


@settings(max_examples=40, deadline=None)
@given(
    exponents=st.lists(st.sampled_from([0, 0, 0, *range(1, 10)]), min_size=16, max_size=16).filter(
        lambda e: 3 <= e.count(0) <= 6
    ),
    depth=st.integers(0, 1),
)
def test_network_search_is_expectimax_over_the_network(exponents: list[int], depth: int) -> None:
    shape = STAGED
    rng = np.random.default_rng(sum(exponents))
    q = rng.integers(-3000, 3000, shape.total).astype(np.int16)
    net = load(shape, wf.KIND_I16, q)
    board = cells_board(exponents)
    values, *_rest = module.search(board.packed, depth, depth, 0.0, 0, 0, 18, 0, net)
    expected = ref_search(shape, q, board, depth)
    assert [v is None for v in values] == [v is None for v in expected]
    for got, want in zip(values, expected, strict=True):
        if want is not None:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-9)


def test_weights_loaded_after_others_were_freed_find_none_of_their_leaf_values() -> None:
    """The search keeps the network's values of leaves from one search to the next;
    weights freed and others loaded (often at the same address) must find none of them."""
    board = cells_board([1, 2, 3, 0, 4, 0, 0, 2, 0, 0, 1, 0, 5, 0, 0, 0])
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = rng.integers(-3000, 3000, STAGED.total).astype(np.int16)
        net = load(STAGED, wf.KIND_I16, q)
        values, *_rest = module.search(board.packed, 1, 1, 0.0, 0, 0, 18, 0, net)
        expected = ref_search(STAGED, q, board, 1)
        assert [v is None for v in values] == [v is None for v in expected]
        for got, want in zip(values, expected, strict=True):
            if want is not None:
                assert got == pytest.approx(want, rel=1e-12, abs=1e-9)
        del net


def test_network_search_handles_wide_boards() -> None:
    """Tiles of 65536 and more: the network sees them as 32768 (cap 15), the search's
    moves stay exact, and the values are finite."""
    q = np.ones(STAGED.total, np.int16)
    net = load(STAGED, wf.KIND_I16, q)
    board = Board.from_rows([[65536, 65536, 2, 0], [131072, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]])
    values, _depth, nodes, *_rest = module.search(board.packed, 2, 2, 1e-4, 0, 1, 18, 0, net)
    left = values[2]
    assert left is not None
    assert left >= 131072  # LEFT merges the two 65536s
    assert nodes > 0


def test_weights_errors_translate_their_reason(tmp_path: Path) -> None:
    from twenty48_replay.core import i18n

    path = tmp_path / "w.t48w"
    write_sample(path)
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(WeightsError) as caught:
        wf.load(path)
    error = caught.value
    assert error.reason == wf.TRUNCATED
    assert str(error) == f"weights file {path}: " + wf.TRUNCATED.format(**error.values)
    assert str(path) in error.translated()
    assert i18n is not None


# ------------------------------------------------- the solver with a network


@pytest.fixture
def small_weights(tmp_path: Path) -> Path:
    config = TrainConfig(shape=SMALL, rule="tc", rate=1.0, seed=4, round_games=200)
    state = trained(config, 400)
    path = tmp_path / "small.t48w"
    training.export(state, str(path))
    return path


def test_the_solver_searches_with_the_chosen_weights(
    small_weights: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from twenty48_replay.solver import Strength, best_move, default_settings, search
    from twenty48_replay.solver.strength import NETWORK_DEEP, NETWORK_DEFAULT

    board = Board.from_rows([[2, 4, 8, 16], [0, 2, 0, 0], [0, 0, 4, 0], [0, 0, 0, 2]])
    monkeypatch.setenv("TWENTY48_WEIGHTS", str(small_weights))
    assert default_settings() == NETWORK_DEFAULT
    assert default_settings(Strength.DEEP) == NETWORK_DEEP
    result = search(board)
    direction, values = best_move(board)
    assert direction is not None
    assert all(v >= 0 for v in values.values())
    assert values[direction] == max(values.values())
    # Points to come: the network's own scale, far from the heuristic's 10**5..10**6.
    heuristic = search(board, default_settings().__class__())
    assert result.values != heuristic.values
    monkeypatch.setenv("TWENTY48_WEIGHTS", "none")
    assert default_settings().evaluation == "heuristic"
    # Network settings without a network (none named, none shipped): the hand-tuned
    # search stands in.
    from twenty48_replay.solver import network

    monkeypatch.setattr(network, "DEFAULT_FILE", small_weights.with_name("absent.t48w"))
    assert search(board, NETWORK_DEFAULT).values == search(board, default_settings()).values


def test_a_broken_chosen_weights_file_is_an_error(
    small_weights: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from twenty48_replay.solver import best_move

    broken = small_weights.with_name("broken.t48w")
    broken.write_bytes(small_weights.read_bytes()[:-2])
    monkeypatch.setenv("TWENTY48_WEIGHTS", str(broken))
    with pytest.raises(WeightsError, match="truncated"):
        best_move(Board.from_rows([[2, 0, 0, 0], [0] * 4, [0] * 4, [0, 0, 0, 2]]))


def test_a_sparse_network_expanded_dense_gives_the_same_values(small_weights: Path) -> None:
    from twenty48_replay.solver import network as nw

    loaded = wf.load(small_weights)
    sparse = loaded.network(module)
    dense = module.ntuple_expand(sparse)
    assert module.ntuple_expand(dense) is dense  # not sparse: as it is
    rng = np.random.default_rng(3)
    for _ in range(100):
        board = cells_board([int(e) for e in rng.integers(0, 14, 16)])
        assert module.ntuple_value(dense, board.packed) == module.ntuple_value(sparse, board.packed)
    net = nw.Network(loaded, sparse, module)
    handles = [net.search_handle() for _ in range(nw.EXPAND_AFTER + 1)]
    assert handles[0] is sparse
    assert handles[-1] is net.dense is not None
