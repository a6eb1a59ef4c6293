"""A grid drawn straight on the palette is byte for byte the PNG of its RGB drawing mapped onto the palette."""

from __future__ import annotations

import pytest

from bot.render import examples as ex
from bot.render.grid import layout_grid
from bot.render.layout import has_emoji, to_png

PLAIN = ["Ann", "Борис", "Chen", "Dora", "Екатерина", "Frank"]
LONG = ["Борис Длинноимённый Третий", "Alexandra-Maximiliane", "👩‍👩‍👧 семья", "🇺🇦 Оксана", "X", "Жанна д'Арк 🎉🎉"]


@pytest.mark.parametrize(("players", "deals", "current", "names"), [
    (6, 24, None, PLAIN),
    (6, 24, None, ex.NAMES_6),
    (3, 5, 6, ex.NAMES_6[:3]),
    (4, 0, 1, PLAIN[:4]),
    (5, 13, 14, LONG[:5]),
    (6, 9, 10, LONG),
    (4, 16, None, [*LONG[2:4], *PLAIN[:2]]),
])
def test_png_is_the_mapped_rgb_drawing(players: int, deals: int, current: int | None, names: list[str]) -> None:
    for lang in ("en", "ru"):
        layout = layout_grid(ex.sheet_example(players, deals), names, current, lang)
        emoji = [t.box for t in layout.texts if has_emoji(t.text)]
        assert bool(emoji) == any(has_emoji(n) for n in names)
        assert layout.png() == to_png(layout.image, emoji)
        assert layout.png() == to_png(layout.image, emoji)  # the second time from what the palette keeps
