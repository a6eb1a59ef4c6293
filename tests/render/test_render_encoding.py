"""The encoding step (``to_png``): a palette PNG that decodes to the drawn picture, within the size budget."""

from __future__ import annotations

import io

from PIL import Image, ImageChops, ImageStat

from bot.render import examples as ex
from bot.render.layout import to_png
from bot.render.standings import layout_standings
from bot.render.table import layout_table
from games.carnival.grid import layout_grid

PLAIN = ["Ann", "Борис", "Chen", "Dora", "Екатерина", "Frank"]


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image


def mean_error(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel, 0..255."""
    return sum(ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB"))).mean) / 3


def test_fixed_palette_png_is_the_picture() -> None:
    layout = layout_table(ex.table_example(6, carnival=True), PLAIN, pair_kind=ex.PAIR)
    image = decoded(to_png(layout.image))
    assert image.mode == "P" and image.size == layout.image.size
    assert mean_error(image, layout.image) < 2.0


def test_emoji_palette_keeps_emoji_colours() -> None:
    """Emoji names: the palette adds colours taken from the emoji's boxes, and every colour of the emoji survives."""
    layout = layout_table(ex.table_example(6, carnival=True), ex.NAMES_6, pair_kind=ex.PAIR)
    assert layout.png() != to_png(layout.image)  # the emoji path is the one taken
    image = decoded(layout.png())
    assert image.mode == "P"
    assert mean_error(image, layout.image) < 2.0
    emoji = next(t for t in layout.texts if "🔥" in t.text)
    box = tuple(int(v) for v in (emoji.box[0], emoji.box[1], emoji.box[2], emoji.box[3]))
    assert mean_error(image.convert("RGB").crop(box), layout.image.convert("RGB").crop(box)) < 8.0


def far_pixels(data: bytes, drawn: Image.Image, limit: int = 24) -> int:
    """How many pixels of the decoded PNG are more than ``limit`` grey levels away from the drawing."""
    diff = ImageChops.difference(decoded(data).convert("RGB"), drawn.convert("RGB")).convert("L")
    return sum(diff.histogram()[limit + 1:])


def test_emoji_pictures_keep_every_pixel_close() -> None:
    """With the emoji's own colours in the palette almost no pixel is far off (the fixed palette alone leaves
    50-100 per picture, the former palette from a reduced copy of the picture up to 3,600 in the grid)."""
    full = ex.sheet_example(6, 24)
    layouts = [
        layout_table(ex.table_example(6, carnival=True), ex.NAMES_6, pair_kind=ex.PAIR),
        layout_grid(full, ex.NAMES_6, None),
        layout_standings(ex.NAMES_6, full["totals"]),
    ]
    for layout in layouts:
        assert far_pixels(to_png(layout.image), layout.image) > 40  # the emoji need colours of their own
        assert far_pixels(layout.png(), layout.image) <= 12


def test_pictures_fit_the_size_budget() -> None:
    """At most 60 KB a picture (the largest kinds: 6-7 players, the full grid, emoji names)."""
    full = ex.sheet_example(6, 24)
    pictures = [
        layout_table(ex.table_example(6, carnival=True), ex.NAMES_6, pair_kind=ex.PAIR).png(),
        layout_table(ex.table_example(7), [*PLAIN, "Gus"]).png(),
        layout_grid(full, ex.NAMES_6, None).png(),
        layout_grid(full, PLAIN, None).png(),
    ]
    for data in pictures:
        assert len(data) <= 60_000
