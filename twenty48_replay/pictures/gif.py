"""A whole replay as an animated GIF, one frame per step, drawn with Pillow.

Speed and size come from never drawing the same thing twice: every tile
(per value, plain or ringed as just spawned), every header glyph and the
move arrows are drawn once per size, antialiased by drawing at 4x and
shrinking, then mapped onto ONE shared palette.  A frame is then a copy of
the static background plus a few pastes of palette-index images, with no
per-frame quantisation, and Pillow stores only the rectangle that changed
since the previous frame.  The palette starts with the exact colours of
:mod:`twenty48_replay.pictures.style`, so flat areas keep the original
game's colours exactly (the tests read them back), and fills the rest with
the antialiasing shades.

Text uses Pillow's bundled font (``ImageFont.load_default(size=...)``,
Pillow >= 10.1 with FreeType, as in the standard wheels): no font files are
looked up on the machine, so the GIF looks the same everywhere.  The font
has no bold face, so bold is drawn with a thin stroke.  NumPy (already a
dependency, for the solver) maps the sprites onto the palette exactly.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Iterable, Sequence
from typing import BinaryIO

import attrs
import numpy as np
from PIL import GifImagePlugin, Image, ImageChops, ImageDraw, ImageFont

from twenty48_replay.core.board import DIRECTIONS, Direction
from twenty48_replay.core.replay import Step
from twenty48_replay.pictures import style

_SS = 4  # supersampling factor for shapes (Pillow draws them without antialiasing)
_Font = ImageFont.FreeTypeFont | ImageFont.ImageFont | ImageFont.TransposedFont
_RGB = tuple[int, int, int]
#: Palette index never drawn with: marks pixels a frame leaves as they were.
_TRANSPARENT = 255
#: Fills the unused palette slots; far from every colour drawn, so never chosen.
_UNUSED = (255, 0, 255)


@attrs.frozen
class GifLayout:
    """Whole-pixel geometry of a frame ``size`` pixels wide.

    Public so that callers (and the tests) can find where a cell is drawn.
    """

    size: int
    gap: int = attrs.field(init=False)
    tile: int = attrs.field(init=False)
    board: int = attrs.field(init=False)
    header: int = attrs.field(init=False)
    board_x: int = attrs.field(init=False)
    board_y: int = attrs.field(init=False)
    height: int = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        if self.size < 120:
            raise ValueError("GIF size must be at least 120 pixels")
        margin = max(3, round(self.size * 0.025))
        gap = max(2, round((self.size - 2 * margin) * style.GAP / style.BOARD_SIZE))
        tile = (self.size - 2 * margin - 5 * gap) // 4
        board = 4 * tile + 5 * gap
        header = round(self.size * 0.17)
        object.__setattr__(self, "gap", gap)
        object.__setattr__(self, "tile", tile)
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "header", header)
        object.__setattr__(self, "board_x", (self.size - board) // 2)
        object.__setattr__(self, "board_y", header)
        object.__setattr__(self, "height", header + board + (self.size - board) // 2)

    def cell_box(self, cell: int) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of a cell in the frame, right/bottom exclusive."""
        row, col = divmod(cell, 4)
        x = self.board_x + self.gap + col * (self.tile + self.gap)
        y = self.board_y + self.gap + row * (self.tile + self.gap)
        return x, y, x + self.tile, y + self.tile

    @property
    def margin(self) -> int:
        """Space left and right of the board (the header uses it too)."""
        return self.board_x

    @property
    def button(self) -> int:
        """Side of the square move-arrow button in the header."""
        return round(self.header * 0.62)

    @property
    def score_box(self) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of the SCORE box: fixed width, so it never jumps."""
        height = round(self.header * 0.78)
        top = (self.header - height) // 2
        width = round(self.size * 0.3)
        right = self.size - self.margin
        return right - width, top, right, top + height

    @property
    def text_px(self) -> int:
        """Font size of the caption and the score."""
        return max(10, round(self.header * 0.36))


def _font(px: int) -> _Font:
    return ImageFont.load_default(size=px)


def _text_stroke(px: int) -> int:
    """A stroke that makes the regular bundled font look bold."""
    return max(1, round(px * 0.035)) if px >= 20 else 0


def _supersampled(width: int, height: int, colour: str) -> Image.Image:
    return Image.new("RGB", (width * _SS, height * _SS), colour)


def _draw_tile(layout: GifLayout, value: int, ringed: bool) -> Image.Image:
    """One cell (tile or empty), with the board colour in its rounded corners."""
    side = layout.tile * _SS
    image = _supersampled(layout.tile, layout.tile, style.BOARD)
    draw = ImageDraw.Draw(image)
    scale = side / style.TILE_SIZE
    background, text = style.tile_colours(value)
    draw.rounded_rectangle(
        (0, 0, side - 1, side - 1), radius=round(style.TILE_RADIUS * scale), fill=background
    )
    if ringed:
        inset, width = round(3 * scale), max(_SS, round(5 * scale))
        draw.rounded_rectangle(
            (inset, inset, side - 1 - inset, side - 1 - inset),
            radius=round(2 * scale),
            outline=style.ACCENT,
            width=width,
        )
    if value:
        px = round(style.tile_font_ratio(value) * side)
        draw.text(
            (side / 2, side / 2),
            str(value),
            font=_font(px),
            fill=text,
            anchor="mm",
            stroke_width=_text_stroke(px),
            stroke_fill=text,
        )
    return image.reduce(_SS)


def _draw_arrow(layout: GifLayout, direction: Direction) -> Image.Image:
    """The move arrow on its button, over the page colour."""
    side = layout.button
    image = _supersampled(side, side, style.PAGE)
    draw = ImageDraw.Draw(image)
    big = side * _SS
    draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=round(big * 0.07), fill=style.ACCENT)
    points = style.arrow_points(direction, big / 2, big / 2, big * 0.8)
    draw.polygon(points, fill=style.LIGHT_TEXT)
    return image.reduce(_SS)


def _draw_glyph(char: str, px: int, colour: str, background: str) -> Image.Image:
    """One character on its background, as wide as its advance (kerning is ignored).

    Drawn at 4x so the bold stroke can be a fraction of a final pixel.
    """
    big = px * _SS
    font = _font(big)
    ascent, descent = _line_metrics(px)
    width = max(1, round(font.getlength(char) / _SS))
    image = _supersampled(width, ascent + descent, background)
    ImageDraw.Draw(image).text(
        (0, ascent * _SS),
        char,
        font=font,
        fill=colour,
        anchor="ls",
        stroke_width=_text_stroke(big),
        stroke_fill=colour,
    )
    return image.reduce(_SS)


def _line_metrics(px: int) -> tuple[int, int]:
    """Ascent and descent (pixels) that hold every header character."""
    _left, top, _right, bottom = _font(px).getbbox("move0123456789/", anchor="ls")
    return math.ceil(-top) + 1, math.ceil(bottom) + 1


def _draw_base(layout: GifLayout) -> Image.Image:
    """Everything that never changes: page, board with empty cells, the SCORE box and label."""
    image = _supersampled(layout.size, layout.height, style.PAGE)
    draw = ImageDraw.Draw(image)
    scale = layout.board * _SS / style.BOARD_SIZE
    x0, y0 = layout.board_x * _SS, layout.board_y * _SS
    draw.rounded_rectangle(
        (x0, y0, x0 + layout.board * _SS - 1, y0 + layout.board * _SS - 1),
        radius=round(style.BOARD_RADIUS * scale),
        fill=style.BOARD,
    )
    for cell in range(16):
        left, top, right, bottom = (v * _SS for v in layout.cell_box(cell))
        draw.rounded_rectangle(
            (left, top, right - 1, bottom - 1),
            radius=round(style.TILE_RADIUS * scale),
            fill=style.EMPTY,
        )
    left, top, right, bottom = (v * _SS for v in layout.score_box)
    draw.rounded_rectangle(
        (left, top, right - 1, bottom - 1), radius=round(3 * scale), fill=style.SCORE_BOX
    )
    label_px = max(7, round(layout.header * 0.2)) * _SS
    draw.text(
        ((left + right) / 2, top + (bottom - top) * 0.06),
        "SCORE",
        font=_font(label_px),
        fill=style.SCORE_LABEL,
        anchor="mt",
        stroke_width=_text_stroke(label_px),
        stroke_fill=style.SCORE_LABEL,
    )
    return image.reduce(_SS)


_CAPTION_CHARS = "move 0123456789/"
_SCORE_CHARS = "0123456789"


@attrs.frozen
class _Sprites:
    """Every image a frame is assembled from, all on one palette."""

    layout: GifLayout
    base: Image.Image
    tiles: dict[tuple[int, bool], Image.Image]
    arrows: dict[Direction, Image.Image]
    caption_glyphs: dict[str, Image.Image]
    score_glyphs: dict[str, Image.Image]


def _palette(pieces: Sequence[Image.Image]) -> list[_RGB]:
    """256 colours: the style's exact colours, then the shades of ``pieces``.

    Index 255 (``_TRANSPARENT``) is left unused so that a frame can mark
    unchanged pixels with it.
    """
    exact: list[_RGB] = []
    for colour in (
        style.PAGE,
        style.BOARD,
        style.EMPTY,
        style.DARK_TEXT,
        style.LIGHT_TEXT,
        style.SUPER_TILE,
        style.SCORE_LABEL,
        style.SCORE_VALUE,
        style.ACCENT,
        *style.TILE_BACKGROUNDS.values(),
    ):
        rgb = style.hex_rgb(colour)
        if rgb not in exact:
            exact.append(rgb)
    height = sum(p.height for p in pieces)
    mosaic = Image.new("RGB", (max(p.width for p in pieces), height), style.PAGE)
    y = 0
    for piece in pieces:
        mosaic.paste(piece, (0, y))
        y += piece.height
    shades = mosaic.quantize(colors=_TRANSPARENT - len(exact), method=Image.Quantize.MEDIANCUT)
    flat = shades.getpalette() or []
    colours = exact + [
        (flat[i], flat[i + 1], flat[i + 2])
        for i in range(0, len(flat), 3)
        if (flat[i], flat[i + 1], flat[i + 2]) not in exact
    ]
    colours = colours[:_TRANSPARENT]
    return colours + [_UNUSED] * (256 - len(colours))


def _to_palette(image: Image.Image, colours: list[_RGB]) -> Image.Image:
    """Map an RGB image onto ``colours`` by exact nearest colour.

    Pillow's own palette mapping is approximate (it caches by colour box),
    which turned flat tile colours into a neighbouring shade; this search is
    exact, so a style colour always lands on its own index.
    """
    pixels = np.asarray(image, dtype=np.int32).reshape(-1, 3)
    unique, inverse = np.unique(pixels, axis=0, return_inverse=True)
    usable = np.asarray(colours[:_TRANSPARENT], dtype=np.int32)
    distances = ((unique[:, None, :] - usable[None, :, :]) ** 2).sum(axis=2)
    indices = distances.argmin(axis=1).astype(np.uint8)[inverse.reshape(-1)]
    mapped = Image.frombytes("P", image.size, indices.tobytes())
    mapped.putpalette([c for rgb in colours for c in rgb])
    return mapped


@functools.lru_cache(maxsize=4)
def _sprites(size: int) -> _Sprites:
    """Draw and palettise everything once per frame size (cached: reused across GIFs)."""
    layout = GifLayout(size)
    values = [0] + [1 << e for e in range(1, 18)]
    tiles = {(v, ringed): _draw_tile(layout, v, ringed) for v in values for ringed in (False, True)}
    arrows = {d: _draw_arrow(layout, d) for d in DIRECTIONS}
    px = layout.text_px
    caption = {c: _draw_glyph(c, px, style.DARK_TEXT, style.PAGE) for c in _CAPTION_CHARS}
    score = {c: _draw_glyph(c, px, style.SCORE_VALUE, style.SCORE_BOX) for c in _SCORE_CHARS}
    base = _draw_base(layout)
    colours = _palette(
        [base, *tiles.values(), *arrows.values(), *caption.values(), *score.values()]
    )

    def to_p(image: Image.Image) -> Image.Image:
        return _to_palette(image, colours)

    return _Sprites(
        layout=layout,
        base=to_p(base),
        tiles={k: to_p(v) for k, v in tiles.items()},
        arrows={k: to_p(v) for k, v in arrows.items()},
        caption_glyphs={k: to_p(v) for k, v in caption.items()},
        score_glyphs={k: to_p(v) for k, v in score.items()},
    )


def _paste_text(
    frame: Image.Image, glyphs: dict[str, Image.Image], text: str, x: int, middle: int
) -> int:
    """Paste ``text`` glyph by glyph from ``x``, vertically centred on ``middle``; new x."""
    for char in text:
        glyph = glyphs[char]
        frame.paste(glyph, (x, middle - glyph.height // 2))
        x += glyph.width
    return x


def _text_width(glyphs: dict[str, Image.Image], text: str) -> int:
    return sum(glyphs[c].width for c in text)


def _frame(sprites: _Sprites, step: Step, total_moves: int) -> Image.Image:
    """One frame: the static base plus this step's tiles, caption, arrow and score."""
    layout = sprites.layout
    frame = sprites.base.copy()
    ringed = None if step.move is None else step.spawn.cell
    for cell, value in enumerate(step.board):
        if value:
            frame.paste(sprites.tiles[value, cell == ringed], layout.cell_box(cell)[:2])
    middle = layout.header // 2
    x = layout.margin
    if step.move is not None:
        frame.paste(sprites.arrows[step.move], (x, middle - layout.button // 2))
    x += layout.button + max(3, layout.header // 6)
    caption = style.step_caption(step.step, total_moves)
    room = layout.score_box[0] - x - 2
    if _text_width(sprites.caption_glyphs, caption) > room:
        caption = f"{step.step}/{total_moves}"  # long games: drop the word, keep the numbers
    _paste_text(frame, sprites.caption_glyphs, caption, x, middle)
    left, top, right, bottom = layout.score_box
    digits = str(step.score)
    width = _text_width(sprites.score_glyphs, digits)
    value_middle = top + round((bottom - top) * 0.66)
    _paste_text(frame, sprites.score_glyphs, digits, (left + right - width) // 2, value_middle)
    return frame


def write_replay_gif(
    steps: Sequence[Step] | Iterable[Step],
    out: BinaryIO,
    *,
    frame_ms: int = 120,
    first_ms: int = 800,
    last_ms: int = 2000,
    size: int = 240,
    total_moves: int | None = None,
) -> int:
    """Stream an animated GIF of ``steps`` to ``out``; returns the number of frames.

    Frames are encoded as they are drawn, so memory stays flat however long
    the game (Pillow's ``save_all`` keeps every frame until the end).  With
    ``total_moves`` given, ``steps`` is consumed lazily; otherwise it is read
    into a list first to learn N.  See :func:`replay_gif` for the options.
    """
    for name, ms in (("frame_ms", frame_ms), ("first_ms", first_ms), ("last_ms", last_ms)):
        if ms < 10:
            raise ValueError(f"{name} must be at least 10 ms (GIF counts hundredths)")
    if total_moves is None:
        steps = list(steps)
        if steps:
            total_moves = steps[-1].step
    iterator = iter(steps)
    current = next(iterator, None)
    if current is None or total_moves is None:
        raise ValueError("a GIF needs at least one step")
    sprites = _sprites(size)
    previous: Image.Image | None = None
    count = 0
    while current is not None:
        following = next(iterator, None)
        frame = _frame(sprites, current, total_moves)
        if following is None:
            duration = last_ms if count else max(first_ms, last_ms)
        else:
            duration = first_ms if count == 0 else frame_ms
        # getheader/getdata are Pillow's documented frame-by-frame GIF writers
        # (marked "legacy", kept since PIL); tests/pictures/test_pictures.py reads back
        # every GIF written here, so a change in them would fail the tests.
        if previous is None:
            header, _ = GifImagePlugin.getheader(frame, info={"loop": 0, "duration": duration})
            out.write(b"".join(header))
            data = GifImagePlugin.getdata(frame, duration=duration, disposal=1, interlace=0)
        else:
            data = _delta(previous, frame, duration)
        out.write(b"".join(data))
        previous, current = frame, following
        count += 1
    out.write(b";")
    return count


def _delta(previous: Image.Image, frame: Image.Image, duration: int) -> list[bytes]:
    """Encode only the rectangle that changed, its unchanged pixels transparent.

    Transparent runs compress far better than repeated tile pixels, which is
    most of what keeps a 1,000-move game near 2 MB instead of 5.
    """
    delta = ImageChops.subtract_modulo(frame, previous)
    bbox = delta.getbbox() or (0, 0, 1, 1)
    patch = frame.crop(bbox)
    unchanged = delta.crop(bbox).point([255, *(0,) * 255], "1")
    patch.paste(_TRANSPARENT, mask=unchanged)
    return GifImagePlugin.getdata(
        patch,
        offset=bbox[:2],
        duration=duration,
        disposal=1,
        transparency=_TRANSPARENT,
        interlace=0,
    )


def replay_gif(
    steps: Sequence[Step] | Iterable[Step],
    *,
    frame_ms: int = 120,
    first_ms: int = 800,
    last_ms: int = 2000,
    size: int = 240,
    total_moves: int | None = None,
) -> bytes:
    """An animated GIF of ``steps``, one frame each, looping forever.

    The first frame is held ``first_ms`` and the last ``last_ms`` so a viewer
    sees the start and the outcome; the others last ``frame_ms`` (GIF stores
    hundredths of a second, so durations round down to 10 ms).  ``size`` is
    the frame width in pixels; the header adds about 15% to the height.
    ``total_moves`` is the N of "move k / N" (default: the last step's
    number), so a range cut from a longer game can still say where it is.
    """
    out = io.BytesIO()
    write_replay_gif(
        steps,
        out,
        frame_ms=frame_ms,
        first_ms=first_ms,
        last_ms=last_ms,
        size=size,
        total_moves=total_moves,
    )
    return out.getvalue()
