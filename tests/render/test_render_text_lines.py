"""``draw_fitted`` pastes lines worked out once (``text._line``), or their inked copies on a known ground
(``text._inked``): the pixels must be those of the plain loop over the runs that it replaced, for every kind
of text, size, alignment and cell parity."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from bot.render import examples as ex
from bot.render.text import Box, _emoji_strip, _text_mask, draw_fitted, fit_size, line_height, runs, text_width

TEXTS = [
    "7", "-120", "Ann", "Борис", "Σφήκα", "½ ¾ ♠♥♦♣", "Chen 🎉", "🎉🔥 fire", "👍🏽 ok 🇺🇦", "a🎉b🔥c",
    "Frank the extraordinarily long-named player of cards", *ex.NAMES_6,
]


def plain_loop(img: Image.Image, cell: Box, text: str, size: int, fill: tuple[int, int, int], bold: bool,
               align: str, pad: int, min_size: int | None) -> Box:
    """The drawing as it was: fit, then measure, then paste run by run with the pen advancing."""
    x0, y0, x1, y1 = cell
    shown, s = fit_size(text, size, max(1, x1 - x0 - 2 * pad), bold, min_size)
    x = (x0 + x1) / 2 if align == "center" else x1 - pad if align == "right" else x0 + pad
    y = (y0 + y1) / 2
    width = text_width(shown, s, bold)
    if align == "center":
        x -= width / 2
    elif align == "right":
        x -= width
    left0 = int(round(x))
    pen = float(left0)
    for run, is_emoji in runs(shown):
        if is_emoji:
            strip = _emoji_strip(run, s)
            img.paste(strip, (int(round(pen)), int(round(y - strip.height / 2))), strip)
            pen += strip.width
        else:
            mask, dx, dy, advance = _text_mask(run, s, bold)
            if mask is not None:
                left, top = int(round(pen)) + dx, int(round(y)) + dy
                img.paste(fill, (left, top, left + mask.width, top + mask.height), mask)
            pen += advance
    half = line_height(s) // 2
    return (left0, int(y) - half, left0 + width, int(y) + half)


@pytest.mark.parametrize("align", ["left", "center", "right"])
@pytest.mark.parametrize("bold", [False, True])
def test_fitted_lines_paste_the_same_pixels(align: str, bold: bool) -> None:
    for size, min_size in ((13, None), (17, 13), (22, 17), (24, None)):
        for width in (40, 121, 300, 640):  # narrow cells ellipsize; odd widths put the centre on a half pixel
            for offset in (0, 1):  # and so do odd cell heights
                new = Image.new("RGB", (700, 60), (14, 84, 52))
                old, tiled = new.copy(), new.copy()
                cell = (10 + offset, 5, 10 + offset + width, 45 + offset)
                for text in TEXTS:
                    new.paste((14, 84, 52), (0, 0, 700, 60))
                    old.paste((14, 84, 52), (0, 0, 700, 60))
                    tiled.paste((14, 84, 52), (0, 0, 700, 60))
                    got = draw_fitted(new, cell, text, size, (255, 205, 60), bold=bold, align=align, min_size=min_size)
                    want = plain_loop(old, cell, text, size, (255, 205, 60), bold, align, 4, min_size)
                    assert got == want, (text, size, width)
                    assert ImageChops.difference(new, old).getbbox() is None, (text, size, width, align)
                    # the inked copy for a known ground (one-run lines) paints the same pixels
                    got = draw_fitted(tiled, cell, text, size, (255, 205, 60), bold=bold, align=align,
                                      min_size=min_size, bg=(14, 84, 52))
                    assert got == want and ImageChops.difference(tiled, old).getbbox() is None, (text, size)
