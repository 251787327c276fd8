"""The rules of the original 2048, one example per rule, on the packed engine."""

from __future__ import annotations

import pytest

from twenty48_replay import Board, Direction, GameState, NullMoveError
from twenty48_replay.core.board import tile_exponent

L, R, U, D = Direction.LEFT, Direction.RIGHT, Direction.UP, Direction.DOWN


def row_board(row: list[int]) -> Board:
    return Board.from_rows([row, [0] * 4, [0] * 4, [0] * 4])


@pytest.mark.parametrize(
    ("row", "direction", "expected", "gained"),
    [
        ([4, 4, 4, 4], L, [8, 8, 0, 0], 16),  # one merge per tile
        ([4, 4, 4, 0], L, [8, 4, 0, 0], 8),  # merging starts at the pushed edge
        ([4, 4, 4, 0], R, [0, 0, 4, 8], 8),
        ([0, 4, 4, 4], R, [0, 0, 4, 8], 8),
        ([2, 2, 4, 0], L, [4, 4, 0, 0], 4),  # no chained merge 2-2-4 -> 8
        ([2, 0, 0, 2], L, [4, 0, 0, 0], 4),  # gaps do not prevent a merge
        ([2, 4, 2, 0], L, [2, 4, 2, 0], 0),  # a different tile blocks
        ([2, 4, 0, 2], L, [2, 4, 2, 0], 0),
        ([8, 8, 8, 8], R, [0, 0, 16, 16], 32),
        ([2, 2, 2, 0], R, [0, 0, 2, 4], 4),
        ([0, 0, 0, 2], L, [2, 0, 0, 0], 0),
        ([2048, 2048, 0, 0], L, [4096, 0, 0, 0], 4096),
        ([32768, 32768, 0, 0], L, [65536, 0, 0, 0], 65536),
        ([65536, 65536, 0, 0], L, [131072, 0, 0, 0], 131072),
        ([65536, 0, 65536, 2], R, [0, 0, 131072, 2], 131072),
        ([131072, 65536, 65536, 0], L, [131072, 131072, 0, 0], 131072),
    ],
)
def test_row_slides(row: list[int], direction: Direction, expected: list[int], gained: int) -> None:
    result = row_board(row).slide(direction)
    assert result.board.to_rows()[0] == expected
    assert result.gained == gained
    assert result.changed == (expected != row)


def test_columns_slide_like_rows() -> None:
    board = Board.from_rows([[2, 0, 0, 4], [2, 0, 0, 4], [4, 0, 0, 4], [0, 0, 0, 4]])
    up = board.slide(U)
    assert up.board.to_rows() == [[4, 0, 0, 8], [4, 0, 0, 8], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert up.gained == 4 + 8 + 8
    down = board.slide(D)
    assert down.board.to_rows() == [[0, 0, 0, 0], [0, 0, 0, 0], [4, 0, 0, 8], [4, 0, 0, 8]]


def test_every_tile_up_to_131072_round_trips() -> None:
    values = [0] + [2**e for e in range(1, 18)]
    board = Board.from_cells((values * 2)[:16])
    assert list(board) == (values * 2)[:16]
    assert Board.from_rows(board.to_rows()) == board


def test_repr_round_trips() -> None:
    board = Board.from_rows([[131072, 2, 0, 0], [0, 4, 0, 0], [0, 0, 65536, 0], [0, 0, 0, 2048]])
    assert eval(repr(board), {"Board": Board}) == board


@pytest.mark.parametrize("bad", [3, -2, 1, 2.0, True, "2", 2**40])
def test_bad_tile_values_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="tile"):
        tile_exponent(bad)  # type: ignore[arg-type]


def test_board_shape_is_checked() -> None:
    with pytest.raises(ValueError, match="4 rows"):
        Board.from_rows([[0] * 4] * 3)


def test_null_move_spawns_nothing_and_is_refused() -> None:
    state = GameState.new("null-1")  # its opening has both tiles on the top row
    assert not state.board.slide(U).changed
    with pytest.raises(NullMoveError, match="does not change the board"):
        state.play(U)
    assert state.moves == 0


def test_null_move_on_a_known_board() -> None:
    state = GameState("s", Board.from_rows([[2, 4, 0, 0], [0] * 4, [0] * 4, [0] * 4]))
    with pytest.raises(NullMoveError) as info:
        state.play(L)
    assert info.value.move_number == 1
    assert "move 1 (L)" in str(info.value)
    after, gained, spawn = state.play(R)
    assert gained == 0
    assert after.moves == 1
    assert sum(1 for v in after.board if v) == 3
    assert after.board[spawn.cell] == spawn.value


def test_game_over_detection() -> None:
    over = Board.from_rows([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]])
    assert over.is_over()
    assert over.is_full()
    assert over.valid_directions() == ()
    full_but_mergeable = Board.from_rows([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 8, 8]])
    assert not full_but_mergeable.is_over()
    assert full_but_mergeable.valid_directions() == (L, R)


def test_a_move_can_win_and_end_the_game() -> None:
    # Merging the two 1024s makes 2048; the spawn then fills the last cell.
    board = Board.from_rows(
        [[1024, 1024, 2, 4], [4, 8, 16, 32], [64, 128, 256, 512], [8, 32, 64, 128]]
    )
    state = GameState("win-and-over", board, score=0, moves=5)
    after, gained, spawn = state.play(L)
    assert gained == 2048
    assert after.won
    assert after.board.to_rows()[0][:3] == [2048, 2, 4]
    assert spawn.cell == 3
    # A 2 in the last cell has no equal neighbour (a 4 would match its left one).
    assert spawn.value == 2
    assert after.over


def test_won_flag_stays_after_play_continues() -> None:
    board = Board.from_rows([[2048, 0, 0, 0], [2, 0, 0, 0], [0] * 4, [0] * 4])
    state = GameState("keep-going", board)
    assert state.won
    after, _, _ = state.play(R)
    assert after.won


def test_direction_letters() -> None:
    assert [d.letter for d in Direction] == ["U", "D", "L", "R"]
    assert Direction.from_letter("l") is L
    with pytest.raises(ValueError, match="not a direction"):
        Direction.from_letter("X")
