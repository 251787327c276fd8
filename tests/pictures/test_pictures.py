"""Pictures must show the replay: read the boards back out of the SVG and GIF."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import GifImagePlugin, Image

import twenty48_replay
from twenty48_replay import Board, Direction, Step
from twenty48_replay.pictures import (
    GifLayout,
    board_svg,
    replay_gif,
    step_svg,
    style,
    write_replay_gif,
)
from twenty48_replay.pictures.svg import DATA_NS, SVG_NS

ROOT = Path(__file__).resolve().parents[2]
SVG = f"{{{SVG_NS}}}"
T48 = f"{{{DATA_NS}}}"


def load_steps(path: Path) -> list[Step]:
    record = twenty48_replay.Record.from_json(path.read_text(encoding="utf-8"))
    return list(twenty48_replay.replay(record))


@pytest.fixture(scope="module")
def valid_steps() -> list[Step]:
    return load_steps(ROOT / "examples" / "valid.json")


@pytest.fixture(scope="module")
def win_steps() -> list[Step]:
    return load_steps(ROOT / "tests" / "data" / "win-2048.json")


def svg_cells(svg: str) -> list[int]:
    """The 16 values pictured, read from the tile groups and checked against their text."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    cells = [0] * 16
    for group in root.iter(f"{SVG}g"):
        if group.get("class") != "tile":
            continue
        cell, value = int(group.get(f"{T48}cell", "")), int(group.get(f"{T48}value", ""))
        text = group.find(f"{SVG}text")
        assert text is not None
        assert text.text == str(value)
        assert cells[cell] == 0, "two tiles in one cell"
        cells[cell] = value
    return cells


def test_svg_is_standalone_svg_11(valid_steps: list[Step]) -> None:
    svg = step_svg(valid_steps[10], 472)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("version") == "1.1"
    width, height = float(root.get("width", "")), float(root.get("height", ""))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert width > 0
    assert height > width  # header above a square board
    assert "href" not in svg
    assert "url(" not in svg
    assert "<image" not in svg


@pytest.mark.parametrize("index", [0, 1, 2, 100, 471, 472])
def test_step_svg_pictures_the_replayed_board(valid_steps: list[Step], index: int) -> None:
    step = valid_steps[index]
    svg = step_svg(step, len(valid_steps) - 1)
    assert svg_cells(svg) == list(step.board)
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert str(step.score) in texts
    assert f"move {index} / 472" in texts
    moves = [g for g in root.iter(f"{SVG}g") if g.get("class") == "move"]
    if step.move is None:
        assert moves == []
    else:
        assert [g.get("data-move") for g in moves] == [step.move.letter]


def test_step_svg_rings_the_spawned_tile(valid_steps: list[Step]) -> None:
    step = valid_steps[5]
    root = ET.fromstring(step_svg(step, 472))
    ringed = [
        int(g.get(f"{T48}cell", ""))
        for g in root.iter(f"{SVG}g")
        if any(r.get("class") == "spawn" for r in g.iter(f"{SVG}rect"))
    ]
    assert ringed == [step.spawn.cell]
    assert step.board[step.spawn.cell] == step.spawn.value
    opening = ET.fromstring(step_svg(valid_steps[0], 472))
    assert not [r for r in opening.iter(f"{SVG}rect") if r.get("class") == "spawn"]


def test_svg_colours_and_big_tiles() -> None:
    values = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 131072]
    board = Board.from_cells(values)
    svg = board_svg(board, score=1234567, caption="a <caption> & more", move=Direction.UP)
    assert svg_cells(svg) == values
    root = ET.fromstring(svg)
    sizes: dict[int, float] = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "tile":
            value = int(group.get(f"{T48}value", ""))
            rect, text = group.find(f"{SVG}rect"), group.find(f"{SVG}text")
            assert rect is not None
            assert text is not None
            assert (rect.get("fill"), text.get("fill")) == style.tile_colours(value)
            sizes[value] = float(text.get("font-size", ""))
    assert style.tile_colours(2) == ("#eee4da", "#776e65")
    assert style.tile_colours(2048) == ("#edc22e", "#f9f6f2")
    assert style.tile_colours(4096) == ("#3c3a32", "#f9f6f2")
    # Numbers shrink as they grow: 1-2, 3, 4, 5 and 6 digits.
    assert sizes[2] == sizes[64] > sizes[128] > sizes[1024] > sizes[16384] > sizes[131072]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "a <caption> & more" in texts
    assert "1234567" in texts


def test_svg_plain_board_has_title_and_no_score() -> None:
    root = ET.fromstring(board_svg(Board.empty()))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts == ["2048"]
    with pytest.raises(ValueError, match="spawn_cell"):
        board_svg(Board.empty(), spawn_cell=16)


def gif_frames(data: bytes) -> Iterator[tuple[Image.Image, int]]:
    """Every frame of a GIF as composed RGB, with its duration in ms."""
    with Image.open(io.BytesIO(data)) as image:
        assert isinstance(image, GifImagePlugin.GifImageFile)
        for index in range(image.n_frames):
            image.seek(index)
            yield image.convert("RGB"), int(image.info["duration"])


def frame_cells(frame: Image.Image, layout: GifLayout) -> list[str]:
    """The background colour of each cell, sampled near a corner (away from the number)."""
    colours = []
    for cell in range(16):
        left, top, _right, _bottom = layout.cell_box(cell)
        inset = layout.tile // 7  # inside the rounded corner, outside the ring and the digits
        r, g, b = frame.getpixel((left + inset, top + inset))  # type: ignore[misc]
        colours.append(f"#{r:02x}{g:02x}{b:02x}")
    return colours


def expected_cells(board: Board) -> list[str]:
    return [style.tile_colours(value)[0] for value in board]


def test_gif_frames_match_the_replay(win_steps: list[Step]) -> None:
    steps = win_steps[900:]  # passes 2048 near the end
    assert any(s.max_tile == 2048 for s in steps)
    data = replay_gif(steps, frame_ms=100, first_ms=700, last_ms=1500, size=200)
    layout = GifLayout(200)
    frames = list(gif_frames(data))
    assert len(frames) == len(steps)
    assert frames[0][0].size == (layout.size, layout.height)
    assert [ms for _f, ms in frames] == [700] + [100] * (len(steps) - 2) + [1500]
    for index in (0, 1, 2, 40, len(steps) // 2, len(steps) - 1):
        frame, _ms = frames[index]
        assert frame_cells(frame, layout) == expected_cells(steps[index].board), index


def test_gif_whole_game_frame_count_and_last_board(valid_steps: list[Step]) -> None:
    data = replay_gif(valid_steps)
    with Image.open(io.BytesIO(data)) as image:
        assert isinstance(image, GifImagePlugin.GifImageFile)
        assert image.n_frames == len(valid_steps)
        assert image.info.get("loop") == 0
        image.seek(image.n_frames - 1)
        last = image.convert("RGB")
    assert frame_cells(last, GifLayout(240)) == expected_cells(valid_steps[-1].board)


def test_gif_big_tiles_and_a_lazy_stream() -> None:
    values = [65536, 131072, 4096, 2048] + [0] * 12
    board = Board.from_cells(values)
    steps = [
        Step(7, Direction.LEFT, board, 3_000_000, 4, twenty48_replay.Spawn(2, 4)),
        Step(8, Direction.UP, board.with_tile(15, 2), 3_000_004, 0, twenty48_replay.Spawn(15, 2)),
    ]
    out = io.BytesIO()
    count = write_replay_gif(iter(steps), out, total_moves=10, size=160)
    assert count == 2
    frames = list(gif_frames(out.getvalue()))
    assert len(frames) == 2
    layout = GifLayout(160)
    for (frame, _ms), step in zip(frames, steps, strict=True):
        assert frame_cells(frame, layout) == expected_cells(step.board)


def test_gif_single_frame_and_bad_input(valid_steps: list[Step]) -> None:
    frames = list(gif_frames(replay_gif(valid_steps[:1], first_ms=300, last_ms=900)))
    assert len(frames) == 1
    assert frames[0][1] == 900
    with pytest.raises(ValueError, match="at least one step"):
        replay_gif([])
    with pytest.raises(ValueError, match="frame_ms"):
        replay_gif(valid_steps[:2], frame_ms=0)
    with pytest.raises(ValueError, match="size"):
        replay_gif(valid_steps[:2], size=50)
