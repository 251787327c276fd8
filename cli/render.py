"""Boards as text, for the non-interactive commands (show, play --moves, replay --at)."""

from __future__ import annotations

from twenty48_replay.core.board import Board
from twenty48_replay.core.game import GameState
from twenty48_replay.core.i18n import N_, _


def board_text(board: Board) -> str:
    """A fixed-width grid, empty cells as dots; wide enough for 131072."""
    return board.pretty()


def cell_name(cell: int) -> str:
    """A cell index as the player counts it: "row 1, col 3" (1-based, row-major).

    One wording for the CLI's messages and the replay viewer (cli/tui/replay_app.py).
    """
    return _("row {row}, col {col}").format(row=cell // 4 + 1, col=cell % 4 + 1)


def summary_line(score: int, moves: int, max_tile: int, flags: list[str] | None = None) -> str:
    """'score 1234 · moves 150 · max tile 256 · won'."""
    parts = [
        _("score {score}").format(score=score),
        _("moves {moves}").format(moves=moves),
        _("max tile {tile}").format(tile=max_tile),
    ]
    parts.extend(_(flag) for flag in flags or [])
    return " · ".join(parts)


def state_text(state: GameState) -> str:
    """The summary line (with 'won' / 'over') and the board, as the scripted commands print them."""
    flags = [name for name, on in ((N_("won"), state.won), (N_("over"), state.over)) if on]
    return (
        summary_line(state.score, state.moves, state.max_tile, flags)
        + "\n"
        + board_text(state.board)
    )
