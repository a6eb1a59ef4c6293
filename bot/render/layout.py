"""What every picture shares: the result of a layout (image + what was drawn where) and PNG encoding.

Layout functions return a ``Layout`` rather than bytes so tests can check facts instead of
pixels: every text drawn with the cell it had to stay in, and every card face drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from PIL import Image

from bot.render import png
from bot.render.text import Box, runs


class Drawn(NamedTuple):
    """One piece of text: ``kind`` says what it is (e.g. "name", "bid", "points"), ``seat`` whose.

    A named tuple, not a dataclass: a grid records ~370 of them a picture and this builds twice as fast."""

    kind: str
    text: str
    box: Box
    cell: Box
    seat: int | None = None


@dataclass
class Layout:
    image: Image.Image
    texts: list[Drawn] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)

    def png(self) -> bytes:
        return to_png(self.image, emoji=[t.box for t in self.texts if has_emoji(t.text)])


@lru_cache(maxsize=8192)
def has_emoji(text: str) -> bool:
    """Kept per text: a grid asks for each of its ~370 texts every picture."""
    return any(is_emoji for _, is_emoji in runs(text))


def fixed_palette() -> Image.Image:
    """One 256-colour palette for all our pictures, taken from sample renderings of each kind.

    Mapping to a known palette costs ~1.3-2 ms for a 960x700 table (Pillow keeps its colour lookup
    on the palette image, so this one is warm after the first picture) where adaptive quantization
    costs ~15 ms, and the pictures only use our own colours (felt, paper, card inks) and their blends.
    """
    return _palettes()[0]


@lru_cache(maxsize=1)
def _palettes() -> tuple[Image.Image, list[int]]:
    """The fixed palette, and the RGB values of a smaller one (``BASE_COLOURS``) from the same samples
    that pictures with emoji complete with the emoji's own colours (``bot/render/palette_data.py``)."""
    from bot.render.palette_data import BASE, FIXED

    palette = Image.new("P", (1, 1))
    palette.putpalette(list(FIXED))
    return palette, list(BASE)


BASE_COLOURS = 192  # the rest of the 256 go to the emoji of a picture


def _rgb_entries(palette_image: Image.Image, count: int) -> list[int]:
    """Exactly ``count`` RGB triples (flattened) of a quantized image's palette, padded with black."""
    values = (palette_image.getpalette() or [])[: 3 * count]
    return values + [0] * (3 * count - len(values))


def emoji_palette(img: Image.Image, boxes: Sequence[Box]) -> Image.Image:
    """The fixed colours of our drawings plus 64 taken from the boxes where emoji were drawn.

    Emoji bring colours of their own that the fixed palette lacks. Only the emoji's boxes are
    quantized (a few thousand pixels: ~0.3 ms), where quantizing the whole picture, even a
    reduced copy, cost ~3 ms and spent most colours on the felt.
    """
    return emoji_palette_of([img.crop(box) for box in boxes if box[2] > box[0] and box[3] > box[1]])


def emoji_palette_of(crops: Sequence[Image.Image]) -> Image.Image:
    """``emoji_palette`` from the pixels of the emoji's boxes, side by side."""
    strip = Image.new("RGB", (max(1, sum(c.width for c in crops)), max([1, *(c.height for c in crops)])))
    x = 0
    for crop in crops:
        strip.paste(crop, (x, 0))
        x += crop.width
    return _palette_for(strip.size, strip.tobytes())


@lru_cache(maxsize=16)
def _palette_for(size: tuple[int, int], pixels: bytes) -> Image.Image:
    """The palette for one set of emoji boxes (``emoji_palette``), kept: the same names come back in
    every picture of a table, and Pillow keeps its colour-lookup cache (512 KB) on the palette image,
    so mapping a picture onto a kept palette costs ~2 ms, onto a new one ~5.5 ms."""
    strip = Image.frombytes("RGB", size, pixels)
    extra = 256 - BASE_COLOURS
    own = strip.quantize(extra, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    palette = Image.new("P", (1, 1))
    palette.putpalette(_palettes()[1] + _rgb_entries(own, extra))
    return palette


def to_png(img: Image.Image, emoji: Sequence[Box] = ()) -> bytes:
    """PNG bytes of a palette image: our fixed palette, completed with the emoji's colours when ``emoji``
    (the boxes where emoji were drawn) is not empty.

    Measured by bench/render.py (encoding table) and, interleaved, for the 960x700 table of 6 (this
    machine, shared): mapping onto a kept palette ~1.7 ms (see _palette_for); zlib level 2 ~3.8 ms and
    34 KB, level 3 ~4.0 ms and 33 KB, level 4 ~6.7 ms and 30 KB, level 9/``optimize`` ten times the time
    (Pillow's writer then; ours, bot/render/png.py, deflates the same level-2 stream ~15-20% faster).
    JPEG (which sendPhoto takes) is 2-4x larger on these flat drawings and WebP 5x slower.
    """
    rgb = img if img.mode == "RGB" else img.convert("RGB")
    palette = emoji_palette(rgb, emoji) if emoji else fixed_palette()
    return png_of(rgb.quantize(palette=palette, dither=Image.Dither.NONE))


def png_of(pal: Image.Image) -> bytes:
    """PNG bytes of an image already on its palette (``to_png``'s last step, bot/render/png.py)."""
    return png.encode(pal)
