"""A flat drawing (rectangles, 1 px lines, texts on known colours) recorded, then drawn straight on the palette.

The score grid is such a drawing. Drawn in RGB, its PNG cost mapping ~860,000 pixels onto the palette
(~2 ms of its ~11). Recorded, it is drawn on the palette instead: each flat colour is looked up once,
each text is a tile (``fitted_tile``) mapped onto the palette once and kept, and the PNG is the same,
byte for byte, as mapping the RGB drawing (tests/render/test_render_canvas.py). The RGB drawing is
still there, drawn when asked for (tests, the fixed palette's samples).

The table is one too: its felt and plates are images drawn once (mapped once per palette and kept), and
what is blended (cards, their gold mark) is an "island": drawn in RGB on a crop of the felt and mapped
alone, a fraction of the picture, and kept by what it shows and where (a trick's cards come back picture
after picture). An island drawn where something was drawn before would be blended on the felt instead of
on that: such a drawing is mapped whole from its RGB drawing, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from bot.render.layout import Layout, emoji_palette_of, fixed_palette, has_emoji, png_of, to_png
from bot.render.text import Box, draw_fitted, fitted_tile

RGB = tuple[int, int, int]
TextArgs = tuple[Box, str, int, RGB, bool, str, int, "int | None", RGB]  # fitted_tile's arguments
Paint = Callable[[Image.Image, tuple[int, int]], None]  # draws an island on an RGB image whose (0, 0) is there


class Canvas:
    """The drawing as a list of operations, in order; ``text`` returns the box at once (layouts record it).

    ``base``: an RGB image of ``size`` to draw on instead of the flat ``ground`` (kept by its maker: it is
    mapped onto each palette once, by identity)."""

    def __init__(self, size: tuple[int, int], ground: RGB, base: Image.Image | None = None) -> None:
        self.size = size
        self.ground = ground
        self.base = base
        self.ops: list[tuple[str, Any, Any, Any, Any]] = []
        self.emoji: list[TextArgs] = []  # the texts with emoji, whose colours complete the palette
        self.islands = 0

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

    def extend(self, part: Canvas) -> None:
        """Add what ``part`` recorded (drawn in this canvas's coordinates; a layout may keep parts it redraws)."""
        self.ops += part.ops
        self.emoji += part.emoji
        self.islands += part.islands

    def image(self, image: Image.Image, xy: tuple[int, int]) -> None:
        """An opaque RGB image pasted at ``xy``, drawn once by its maker and kept (mapped once per palette)."""
        x, y = xy
        self.ops.append(("image", image, (x, y, x + image.width, y + image.height), None, None))

    def island(self, box: Box, paint: Paint, key: Hashable = None) -> None:
        """What ``paint`` draws, all inside ``box``: blended shapes (cards), drawn in RGB and mapped on their own.

        ``key``: what ``paint`` draws, when it says all of it (with ``box``): the island is then mapped once per
        palette and kept (``KEPT_ISLANDS``), as a trick's cards and the trump card come back picture after picture."""
        width, height = self.size
        clipped = (max(0, box[0]), max(0, box[1]), min(width, box[2]), min(height, box[3]))
        if clipped[2] <= clipped[0] or clipped[3] <= clipped[1]:
            return  # wholly off the picture: nothing of it is seen
        self.ops.append(("island", clipped, paint, None if key is None else ("island", clipped, key), None))
        self.islands += 1

    def rgb(self) -> Image.Image:
        """The drawing in RGB, as drawing it in place gives (``draw_fitted`` for the texts)."""
        img = self.base.copy() if self.base is not None else Image.new("RGB", self.size, self.ground)
        draw = ImageDraw.Draw(img)
        for kind, a, b, c, d in self.ops:
            if kind == "rectangle":
                draw.rectangle(a, fill=b, outline=c, width=d)
            elif kind == "line":
                draw.line(a, fill=b)
            elif kind == "image":
                img.im.paste(a.im, b)
            elif kind == "island":
                b(img, (0, 0))
            else:
                cell, value, size, fill, bold, align, pad, min_size, bg = a
                draw_fitted(img, cell, value, size, fill, bold=bold, align=align, pad=pad, min_size=min_size, bg=bg)
        return img

    def indexed(self) -> Image.Image | None:
        """The drawing on the palette ``to_png`` would map its RGB drawing onto (emoji colours included);
        None when an island meets what was drawn before it (``CanvasLayout.png`` then maps the RGB drawing)."""
        if self.islands and _islands_overlap(self.ops):
            return None
        palette = _emoji_palette(tuple(self.emoji)) if self.emoji else fixed_palette()
        palette.load()  # a palette set by putpalette reaches the image core on load (Image.quantize does this too)
        kept = _kept(palette)

        def index(colour: RGB | None) -> int | None:
            if colour is None:
                return None
            if colour not in kept:
                kept[colour] = Image.new("RGB", (1, 1), colour).quantize(
                    palette=palette, dither=Image.Dither.NONE).im.getpixel((0, 0))
            return int(kept[colour])

        def mapped_image(image: Image.Image) -> Any:
            """An image drawn once, mapped once: kept with the image itself, so its id is not reused meanwhile."""
            entry = kept.get(("image", id(image)))
            if entry is None:
                entry = kept["image", id(image)] = (image, image.im.convert("P", 0, palette.im))
            return entry[1]

        if self.base is not None:
            img = Image.new("P", self.size)
            img.im.paste(mapped_image(self.base), (0, 0, *self.size))
        else:
            img = Image.new("P", self.size, index(self.ground))
        img.putpalette(palette.getpalette() or [])
        draw = ImageDraw.Draw(img)
        paste, kept_tile = img.im.paste, kept.get
        for kind, a, b, c, d in self.ops:
            if kind == "rectangle":
                draw.rectangle(a, fill=index(b), outline=index(c), width=d)
            elif kind == "line":
                draw.line(a, fill=index(b))
            elif kind == "image":
                paste(mapped_image(a), b)
            elif kind == "island":
                island = (id(palette), id(self.base), c)
                held = _ISLANDS.get(island) if c is not None else None
                if held is None:
                    ground = self.base.crop(a) if self.base is not None else Image.new("RGB", _size(a), self.ground)
                    b(ground, (a[0], a[1]))
                    held = (palette, self.base, ground.im.convert("P", 0, palette.im))
                    if c is not None:
                        _keep_island(island, held)
                paste(held[2], a)
            else:
                mapped = kept_tile(a)
                if mapped is None:
                    tile, (left, top), _ = fitted_tile(*a)
                    pal = tile.quantize(palette=palette, dither=Image.Dither.NONE)
                    mapped = kept[a] = (pal.im, (left, top, left + tile.width, top + tile.height))
                paste(*mapped)
        return img


_ISLANDS: dict[Any, tuple[Image.Image, Image.Image | None, Any]] = {}
KEPT_ISLANDS = 1024  # a card or two mapped, ~10 KB each: ~10 MB at most


def _keep_island(key: Any, held: tuple[Image.Image, Image.Image | None, Any]) -> None:
    """Keep an island mapped onto a palette (``Canvas.island``'s key), apart from ``_kept``'s small tiles: a card
    is ~100 times a number's tile. ``held`` holds the palette and the base, so their ids are not reused meanwhile."""
    if len(_ISLANDS) >= KEPT_ISLANDS:
        _ISLANDS.clear()
    _ISLANDS[key] = held


def _size(box: Box) -> tuple[int, int]:
    return box[2] - box[0], box[3] - box[1]


def _islands_overlap(ops: list[tuple[str, Any, Any, Any, Any]]) -> bool:
    """Whether an island's box meets the box of anything drawn before it (a text's whole tile, a shape's
    pixels, an image, another island)."""
    drawn: list[Box] = []
    for kind, a, b, _, _ in ops:
        if kind == "island" and any(a[0] < x1 and x0 < a[2] and a[1] < y1 and y0 < a[3] for x0, y0, x1, y1 in drawn):
            return True
        if kind in ("image", "island"):
            drawn.append(b if kind == "image" else a)
        elif kind == "text":
            tile, (left, top), _ = fitted_tile(*a)
            drawn.append((left, top, left + tile.width, top + tile.height))
        else:  # rectangle or line: Pillow's boxes include their far edge (a 2 px pen at most)
            drawn.append((min(a[0], a[2]) - 1, min(a[1], a[3]) - 1, max(a[0], a[2]) + 2, max(a[1], a[3]) + 2))
    return False


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
KEPT_ENTRIES = 16384  # colours, tiles and images per palette (the table's mapped felt, 670 KB, is one of them)


def _kept(palette: Image.Image) -> dict[Any, Any]:
    """What is kept per palette: the index of each flat colour, each text tile and each image mapped onto it.

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
        indexed = self.canvas.indexed()
        if indexed is None:
            return to_png(self.image, [t.box for t in self.texts if has_emoji(t.text)])
        return png_of(indexed)
