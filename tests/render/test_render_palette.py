"""The frozen palette (``bot/render/palette_data.py``) is what the sample renderings of every kind of picture
give: rebuilt here exactly as the renderer once built it at start, so a change in the drawings that wants a
new palette shows up as this test failing (then regenerate the data from ``sample_palette``)."""

from __future__ import annotations

from PIL import Image

from bot.render import examples
from bot.render.cards import card_back, card_image
from bot.render.layout import BASE_COLOURS, _rgb_entries, fixed_palette
from bot.render.palette_data import BASE, FIXED
from bot.render.standings import layout_standings
from bot.render.table import layout_table
from games.carnival.grid import layout_grid


def sample_palette() -> tuple[list[int], list[int]]:
    """(the 256 colours, the 192 base colours) quantized from the samples: tables, grids, standings, faces."""
    names = ["Alice", "Борис Длинноимённый", "Chen", "Daria", "Екатерина", "Frank"]
    samples = [
        layout_table(examples.table_example(6, carnival=True), names, pair_kind=examples.PAIR).image,
        layout_table(examples.last_trick_example(4), names).image,
        layout_grid(examples.sheet_example(6, 24), names, current_deal=None).image,
        layout_grid(examples.sheet_example(4, 5), names, current_deal=6).image,
        layout_standings(names, [120, 80, 80, -40, 10, 300]).image,
    ]
    faces = ["AS", "10H", "KD", "QC", "JK", "J11", "J15", "J20", "BR"]  # every ink colour a face uses
    strip = Image.new("RGB", (90 * len(faces) + 90, 116), (14, 84, 52))
    for i, face in enumerate(faces):
        im = card_image(face, 116)
        strip.paste(im, (90 * i, 0), im)
    back = card_back(116)
    strip.paste(back, (90 * len(faces), 0), back)
    samples.append(strip)
    width = max(im.width for im in samples)
    sheet = Image.new("RGB", (width, sum(im.height for im in samples)), (14, 84, 52))
    y = 0
    for im in samples:
        sheet.paste(im.convert("RGB"), (0, y))
        y += im.height
    base = sheet.quantize(BASE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    full = sheet.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    return list(full.getpalette() or []), _rgb_entries(base, BASE_COLOURS)


def test_the_frozen_palette_is_the_samples_palette() -> None:
    fixed, base = sample_palette()
    assert list(FIXED) == fixed
    assert list(BASE) == base
    assert fixed_palette().getpalette() == fixed
