"""Property tests of the slide rules (hypothesis), against laws and the reference engine."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support import reference_impl as ref

from twenty48_replay import Board, Direction

MIRROR = {
    Direction.LEFT: Direction.RIGHT,
    Direction.RIGHT: Direction.LEFT,
    Direction.UP: Direction.UP,
    Direction.DOWN: Direction.DOWN,
}
TRANSPOSE = {
    Direction.LEFT: Direction.UP,
    Direction.RIGHT: Direction.DOWN,
    Direction.UP: Direction.LEFT,
    Direction.DOWN: Direction.RIGHT,
}

# Mostly small tiles (where merges happen), sometimes every tile up to 131072.
exponents = st.one_of(st.integers(0, 4), st.integers(0, 17))
boards = st.lists(exponents, min_size=16, max_size=16).map(
    lambda es: Board.from_cells(2**e if e else 0 for e in es)
)
directions = st.sampled_from(list(Direction))


def mirrored(board: Board) -> Board:
    return Board.from_rows([row[::-1] for row in board.to_rows()])


def transposed(board: Board) -> Board:
    return Board.from_rows([list(col) for col in zip(*board.to_rows(), strict=True)])


def tile_count(board: Board) -> int:
    return sum(1 for v in board if v)


@given(boards, directions)
def test_tile_sum_is_conserved(board: Board, direction: Direction) -> None:
    assert board.slide(direction).board.tile_sum == board.tile_sum


@given(boards, directions)
def test_points_are_the_sum_of_merged_tiles(board: Board, direction: Direction) -> None:
    result = board.slide(direction)
    merges = tile_count(board) - tile_count(result.board)
    assert merges >= 0
    assert (result.gained == 0) == (merges == 0)
    assert result.gained >= 4 * merges
    # Each merge creates one tile worth the two it absorbed: the points equal
    # the reference engine's sum of created tiles.
    _, ref_gained = ref.slide(board.to_rows(), direction.letter)
    assert result.gained == ref_gained


@given(boards, directions)
def test_matches_the_reference_engine(board: Board, direction: Direction) -> None:
    expected, _ = ref.slide(board.to_rows(), direction.letter)
    result = board.slide(direction)
    assert result.board.to_rows() == expected
    assert result.changed == (expected != board.to_rows())


@given(boards, directions)
def test_second_slide_changes_only_by_merging(board: Board, direction: Direction) -> None:
    once = board.slide(direction).board
    twice = once.slide(direction)
    if twice.gained == 0:
        assert not twice.changed
        assert twice.board == once


@given(boards, directions)
def test_mirror_symmetry(board: Board, direction: Direction) -> None:
    left = mirrored(board).slide(MIRROR[direction])
    assert mirrored(left.board) == board.slide(direction).board
    assert left.gained == board.slide(direction).gained


@given(boards, directions)
def test_transpose_symmetry(board: Board, direction: Direction) -> None:
    moved = transposed(board).slide(TRANSPOSE[direction])
    assert transposed(moved.board) == board.slide(direction).board


@given(boards)
def test_over_means_no_direction_changes_the_board(board: Board) -> None:
    assert board.is_over() == all(not board.slide(d).changed for d in Direction)
    assert board.is_over() == (not ref.can_move(board.to_rows()))


@given(boards)
def test_repr_round_trips(board: Board) -> None:
    assert eval(repr(board), {"Board": Board}) == board


@given(boards)
def test_empty_cells_are_row_major_and_ascending(board: Board) -> None:
    assert list(board.empty_cells()) == [i for i, v in enumerate(board) if v == 0]
