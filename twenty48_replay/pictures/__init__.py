"""Pictures of boards: one position as SVG, a whole replay as an animated GIF.

``board_svg`` / ``step_svg`` need nothing beyond the standard library;
``replay_gif`` / ``write_replay_gif`` draw with Pillow, which is imported only when it is first
used so that importing this package (e.g. for SVG export) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twenty48_replay.pictures.svg import board_svg, step_svg

if TYPE_CHECKING:
    from twenty48_replay.pictures.gif import GifLayout, replay_gif, write_replay_gif

__all__ = ["GifLayout", "board_svg", "replay_gif", "step_svg", "write_replay_gif"]
_LAZY = ("GifLayout", "replay_gif", "write_replay_gif")


def __getattr__(name: str) -> Any:
    """Import the Pillow-based GIF module on first use of one of its names."""
    if name in _LAZY:
        from twenty48_replay.pictures import gif

        return getattr(gif, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
