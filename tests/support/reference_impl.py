"""Deliberately simple reference implementation of 2048 and the v1 spawn RNG.

This module exists only so tests can cross-check the fast engine against a
second, independently written implementation.  It must never import from
``twenty48_replay``: if both implementations shared code, a shared bug would
go unnoticed.  It favours clarity over speed (plain lists of ints holding tile
values such as 2, 4, 8; no bit packing, no lookup tables).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from dataclasses import dataclass

SIZE = 4
DIRECTIONS = ("U", "D", "L", "R")

Board = list[list[int]]


def slide_line_toward_start(line: list[int]) -> tuple[list[int], int]:
    """Slide and merge one line toward index 0; return (new line, gained).

    The line is read starting from the pushed edge, so index 0 is that edge.
    """
    tiles = [value for value in line if value != 0]
    result: list[int] = []
    gained = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            merged = tiles[i] * 2
            result.append(merged)
            gained += merged
            i += 2
        else:
            result.append(tiles[i])
            i += 1
    result.extend([0] * (len(line) - len(result)))
    return result, gained


def slide(board: Board, direction: str) -> tuple[Board, int]:
    """Apply one move; return (new board, gained). The input board is not modified.

    Each row (L/R) or column (U/D) is read starting from the pushed edge,
    slid toward that edge, and written back in the original orientation.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction: {direction!r}")
    vertical = direction in ("U", "D")
    reverse = direction in ("R", "D")
    lines = (
        [list(col) for col in zip(*board, strict=True)] if vertical else [row[:] for row in board]
    )
    gained = 0
    new_lines: Board = []
    for line in lines:
        if reverse:
            line.reverse()
        new_line, line_gained = slide_line_toward_start(line)
        if reverse:
            new_line.reverse()
        new_lines.append(new_line)
        gained += line_gained
    if vertical:
        new_lines = [list(row) for row in zip(*new_lines, strict=True)]
    return new_lines, gained


def can_move(board: Board) -> bool:
    """Return True if some direction changes the board."""
    return any(slide(board, d)[0] != board for d in DIRECTIONS)


def is_won(board: Board) -> bool:
    """Return True if the board holds a tile of 2048 or more."""
    return any(value >= 2048 for row in board for value in row)


def empty_cells(board: Board) -> list[int]:
    """Row-major indices (row*4 + col) of empty cells, ascending."""
    return [r * SIZE + c for r in range(SIZE) for c in range(SIZE) if board[r][c] == 0]


def spawn(seed: str, k: int, board: Board) -> tuple[int, int]:
    """Return (cell index, value) of spawn number ``k``; ValueError if the board is full."""
    empties = empty_cells(board)
    if not empties:
        raise ValueError("cannot spawn on a full board")
    digest = hmac.new(seed.encode("utf-8"), k.to_bytes(8, "big"), hashlib.sha256).digest()
    cell = empties[int.from_bytes(digest[0:8], "big") % len(empties)]
    value = 4 if int.from_bytes(digest[8:16], "big") % 10 == 0 else 2
    return cell, value


def _place(board: Board, cell: int, value: int) -> None:
    """Put ``value`` at row-major ``cell`` (mutates the board)."""
    board[cell // SIZE][cell % SIZE] = value


def _opening(seed: str) -> tuple[Board, int, int]:
    """Return the opening board plus the cell and value of its second (k=1) spawn."""
    board: Board = [[0] * SIZE for _ in range(SIZE)]
    cell, value = spawn(seed, 0, board)
    _place(board, cell, value)
    cell, value = spawn(seed, 1, board)
    _place(board, cell, value)
    return board, cell, value


def opening_board(seed: str) -> Board:
    """Return the board after the two opening spawns (k=0, then k=1)."""
    return _opening(seed)[0]


@dataclass(frozen=True)
class RefStep:
    """One replay step: the board after move ``step`` (0 = opening) and its spawn."""

    step: int
    move: str | None
    board: tuple[tuple[int, ...], ...]
    score: int
    gained: int
    spawn_cell: int
    spawn_value: int


def _freeze(board: Board) -> tuple[tuple[int, ...], ...]:
    """Return an immutable copy of the board."""
    return tuple(tuple(row) for row in board)


def replay(seed: str, moves: str) -> tuple[list[RefStep], int | None]:
    """Replay ``moves``; return (steps 0..n, 1-based index of first null move or None).

    Stops at the first move that does not change the board.
    """
    board, cell, value = _opening(seed)
    score = 0
    steps = [RefStep(0, None, _freeze(board), 0, 0, cell, value)]
    for n, direction in enumerate(moves, start=1):
        new_board, gained = slide(board, direction)
        if new_board == board:
            return steps, n
        cell, value = spawn(seed, n + 1, new_board)
        _place(new_board, cell, value)
        board = new_board
        score += gained
        steps.append(RefStep(n, direction, _freeze(board), score, gained, cell, value))
    return steps, None


def random_game(seed: str, rng: random.Random, max_moves: int = 10_000) -> str:
    """Play uniformly random valid moves (order U, D, L, R) until game over or max_moves."""
    board = opening_board(seed)
    moves: list[str] = []
    while len(moves) < max_moves:
        options: list[tuple[str, Board]] = []
        for direction in DIRECTIONS:
            new_board, _ = slide(board, direction)
            if new_board != board:
                options.append((direction, new_board))
        if not options:
            break
        direction, board = rng.choice(options)
        moves.append(direction)
        cell, value = spawn(seed, len(moves) + 1, board)
        _place(board, cell, value)
    return "".join(moves)


def _self_check() -> None:
    """Assert the rule examples and a few replay invariants."""
    left = {
        (4, 4, 4, 4): [8, 8, 0, 0],
        (4, 4, 4, 0): [8, 4, 0, 0],
        (2, 2, 4, 0): [4, 4, 0, 0],
        (2, 0, 0, 2): [4, 0, 0, 0],
        (2, 4, 2, 0): [2, 4, 2, 0],
    }
    for row, expected in left.items():
        board = [list(row), [0] * 4, [0] * 4, [0] * 4]
        assert slide(board, "L")[0][0] == expected, (row, expected)
    board = [[4, 4, 4, 0], [0] * 4, [0] * 4, [0] * 4]
    assert slide(board, "R") == ([[0, 0, 4, 8], [0] * 4, [0] * 4, [0] * 4], 8)
    column = [[2], [2], [4], [0]]
    up = [[r[0], 0, 0, 0] for r in column]
    assert slide(up, "U")[0] == [[4, 0, 0, 0], [4, 0, 0, 0], [0] * 4, [0] * 4]
    assert slide(up, "D")[0] == [[0] * 4, [0] * 4, [4, 0, 0, 0], [4, 0, 0, 0]]
    big = [[65536, 65536, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    assert slide(big, "L") == ([[131072, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4], 131072)
    assert slide_line_toward_start([4, 4, 4, 4]) == ([8, 8, 0, 0], 16)
    original = [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    slide(original, "L")
    assert original == [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    stuck = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    assert not can_move(stuck)
    try:
        spawn("x", 0, stuck)
    except ValueError:
        pass
    else:
        raise AssertionError("spawn on a full board must raise")
    assert sum(v != 0 for row in opening_board("seed") for v in row) == 2

    rng = random.Random(1)
    for g in range(20):
        seed = f"self-check-{g}"
        moves = random_game(seed, rng)
        steps, null_at = replay(seed, moves)
        assert null_at is None
        assert len(steps) == len(moves) + 1
        final = [list(row) for row in steps[-1].board]
        assert len(moves) == 10_000 or not can_move(final)
        assert steps[-1].score == sum(s.gained for s in steps)
        steps2, null_at2 = replay(seed, moves + moves[-1:] if moves else "L")
        assert null_at2 == len(moves) + 1
        assert steps2 == steps


if __name__ == "__main__":
    _self_check()
    print("reference_impl self-check OK")
