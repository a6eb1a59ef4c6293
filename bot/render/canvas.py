"""A flat drawing (rectangles, 1 px lines, texts on known colours) recorded, then drawn straight on the palette.

The score grid is such a drawing. Drawn in RGB, its PNG cost mapping ~860,000 pixels onto the palette
(~2 ms of its ~11). Recorded, it is drawn on the palette instead: each flat colour is looked up once,
each text is a tile (``fitted_tile``) mapped onto the palette once and kept, and the PNG is the same,
byte for byte, as mapping the RGB drawing (tests/render/test_render_canvas.py). The RGB drawing is
still there, drawn when asked for (tests, the fixed palette's samples).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from bot.render.layout import Layout, emoji_palette_of, fixed_palette, has_emoji, png_of
from bot.render.text import Box, draw_fitted, fitted_tile

RGB = tuple[int, int, int]
TextArgs = tuple[Box, str, int, RGB, bool, str, int, "int | None", RGB]  # fitted_tile's arguments


class Canvas:
    """The drawing as a list of operations, in order; ``text`` returns the box at once (layouts record it)."""

    def __init__(self, size: tuple[int, int], ground: RGB) -> None:
        self.size = size
        self.ground = ground
        self.ops: list[tuple[str, Any, Any, Any, Any]] = []
        self.emoji: list[TextArgs] = []  # the texts with emoji, whose colours complete the palette

    def rectangle(self, xy: Box, fill: RGB | None = None, outline: RGB | None = None, width: int = 1) -> None:
        self.ops.append(("rectangle", xy, fill, outline, width))

    def line(self, xy: Box, fill: RGB) -> None:
        self.ops.append(("line", xy, fill, None, None))

    def text(self, cell: Box, value: str, size: int, fill: RGB, bg: RGB, *, bold: bool = False,
             align: str = "center", pad: int = 4, min_size: int | None = None) -> Box:
        args = (cell, value, size, fill, bold, align, pad, min_size, bg)
        self.ops.append(("text", args, None, None, None))
        if has_emoji(value):
            self.emoji.append(args)
        return fitted_tile(*args)[2]

    def rgb(self) -> Image.Image:
        """The drawing in RGB, as drawing it in place gives (``draw_fitted`` for the texts)."""
        img = Image.new("RGB", self.size, self.ground)
        draw = ImageDraw.Draw(img)
        for kind, a, b, c, d in self.ops:
            if kind == "rectangle":
                draw.rectangle(a, fill=b, outline=c, width=d)
            elif kind == "line":
                draw.line(a, fill=b)
            else:
                cell, value, size, fill, bold, align, pad, min_size, bg = a
                draw_fitted(img, cell, value, size, fill, bold=bold, align=align, pad=pad, min_size=min_size, bg=bg)
        return img

    def indexed(self) -> Image.Image:
        """The drawing on the palette ``to_png`` would map its RGB drawing onto (emoji colours included)."""
        palette = _emoji_palette(tuple(self.emoji)) if self.emoji else fixed_palette()
        kept = _kept(palette)

        def index(colour: RGB | None) -> int | None:
            if colour is None:
                return None
            if colour not in kept:
                kept[colour] = Image.new("RGB", (1, 1), colour).quantize(
                    palette=palette, dither=Image.Dither.NONE).im.getpixel((0, 0))
            return int(kept[colour])

        img = Image.new("P", self.size, index(self.ground))
        img.putpalette(palette.getpalette() or [])
        draw = ImageDraw.Draw(img)
        paste, kept_tile = img.im.paste, kept.get
        for kind, a, b, c, d in self.ops:
            if kind == "rectangle":
                draw.rectangle(a, fill=index(b), outline=index(c), width=d)
            elif kind == "line":
                draw.line(a, fill=index(b))
            else:
                mapped = kept_tile(a)
                if mapped is None:
                    tile, (left, top), _ = fitted_tile(*a)
                    pal = tile.quantize(palette=palette, dither=Image.Dither.NONE)
                    mapped = kept[a] = (pal.im, (left, top, left + tile.width, top + tile.height))
                paste(*mapped)
        return img


@lru_cache(maxsize=16)
def _emoji_palette(texts: tuple[TextArgs, ...]) -> Image.Image:
    """``emoji_palette`` of the boxes of these texts, from their tiles (the boxes hold nothing else), kept per
    set of texts: the names come back in every picture of a game."""
    crops = []
    for args in texts:
        tile, (left, top), (x0, y0, x1, y1) = fitted_tile(*args)
        if x1 > x0 and y1 > y0:
            crops.append(tile.crop((x0 - left, y0 - top, x1 - left, y1 - top)))
    return emoji_palette_of(crops)


_KEPT: dict[int, tuple[Image.Image, dict[Any, Any]]] = {}
KEPT_PALETTES = 32  # the fixed palette and the emoji palettes (layout._palette_for keeps 16)
KEPT_ENTRIES = 16384  # colours and tiles per palette


def _kept(palette: Image.Image) -> dict[Any, Any]:
    """What is kept per palette: the index of each flat colour and each text tile mapped onto it.

    Keyed by the palette's id while holding the palette itself, so an id is never reused while kept."""
    entry = _KEPT.get(id(palette))
    if entry is None:
        if len(_KEPT) >= KEPT_PALETTES:
            _KEPT.clear()
        entry = _KEPT[id(palette)] = (palette, {})
    if len(entry[1]) > KEPT_ENTRIES:
        entry[1].clear()
    return entry[1]


class CanvasLayout(Layout):
    """A layout drawn on a ``Canvas``: ``png`` draws it straight on the palette; ``image`` (the RGB drawing,
    for tests and the palette's samples) is drawn the first time it is asked for."""

    def __init__(self, canvas: Canvas) -> None:
        self.canvas = canvas
        self.texts = []
        self.cards = []
        self._image: Image.Image | None = None

    @property
    def image(self) -> Image.Image:
        if self._image is None:
            self._image = self.canvas.rgb()
        return self._image

    @image.setter
    def image(self, image: Image.Image) -> None:  # Layout.image is a field one may set
        self._image = image

    def png(self) -> bytes:
        return png_of(self.canvas.indexed())
