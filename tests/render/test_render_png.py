"""Our PNG writer (bot/render/png.py): the file decodes to the image's own indices and palette, as Pillow's did."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.render import examples as ex
from bot.render import png
from bot.render.layout import fixed_palette
from bot.render.table import layout_table
from games.carnival.grid import layout_grid

PLAIN = ["Ann", "Борис", "Chen", "Dora", "Екатерина", "Frank"]


def pictures() -> list[Image.Image]:
    """Palette images as the pictures make them: a table mapped onto the palette, a grid drawn on it, odd sizes."""
    table = layout_table(ex.table_example(6, carnival=True), PLAIN, pair_kind=ex.PAIR).image
    odd = Image.new("P", (3, 1))
    odd.putpalette([10, 20, 30, 200, 100, 0])  # a palette shorter than 256 entries
    odd.putpixel((1, 0), 1)
    return [
        table.quantize(palette=fixed_palette(), dither=Image.Dither.NONE),
        layout_grid(ex.sheet_example(6, 24), ex.NAMES_6, None).canvas.indexed(),
        odd,
    ]


@pytest.mark.parametrize("index", range(3))
def test_png_decodes_to_the_same_indices_and_palette(index: int) -> None:
    pal = pictures()[index]
    data = png.encode(pal)
    image = Image.open(io.BytesIO(data))
    image.load()  # reads every chunk: a bad CRC or a truncated stream fails here
    assert image.format == "PNG" and image.mode == "P" and image.size == pal.size
    assert image.tobytes() == pal.tobytes()
    assert image.getpalette() == pal.getpalette()
    pillow = io.BytesIO()
    pal.save(pillow, format="PNG")
    assert Image.open(pillow).convert("RGB").tobytes() == image.convert("RGB").tobytes()


def test_rows_lead_with_filter_none() -> None:
    pal = pictures()[2]
    assert png.rows(pal) == b"\x00\x00\x01\x00"


def test_only_palette_images() -> None:
    with pytest.raises(ValueError):
        png.encode(Image.new("RGB", (2, 2)))
