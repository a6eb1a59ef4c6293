"""A grid or a table drawn straight on the palette is byte for byte the PNG of its RGB drawing mapped onto
the palette."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.render import examples as ex
from bot.render.layout import has_emoji, to_png
from bot.render.table import layout_table
from games.carnival.grid import layout_grid

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


def _table_views() -> list[dict[str, Any]]:
    """Bids, tricks with the best play marked, the last trick and its winner, 2 to 7 seats, no trump."""
    views: list[dict[str, Any]] = []
    for n in range(2, 8):
        views += [ex.table_example(n), ex.bid_example(n)]
        views += [ex.table_example(n, carnival=True), ex.last_trick_example(n)] if n >= 3 else []
    views.append({**ex.table_example(5), "trump": None, "trump_card": None, "over": True})
    return views


@pytest.mark.parametrize("names", [PLAIN + ["Gus"], ex.NAMES_6 + ["Gus"], [*LONG, "🎉"]])
def test_table_png_is_the_mapped_rgb_drawing(names: list[str]) -> None:
    """The table on the palette: felt and plates mapped once, texts as tiles, cards as islands mapped alone
    (and kept)."""
    for view in _table_views():
        layout = layout_table(view, names, "ru")
        assert layout.canvas.indexed() is not None  # drawn on the palette, not mapped whole
        emoji = [t.box for t in layout.texts if has_emoji(t.text)]
        assert layout.png() == to_png(layout.image, emoji)
        assert layout.png() == to_png(layout.image, emoji)  # the second time from what the palette keeps


def test_kept_cards_are_the_cards_drawn() -> None:
    """A trick's cards are kept per palette by what they are and where: the same seat's cards, marked or not,
    other cards at the same place, one after another, are each what their RGB drawing maps to."""
    views = []
    for best in (None, 1, 2):
        for cards in (["AS", "KS"], ["AS", "KH"], ["AS"]):
            view = copy.deepcopy(ex.table_example(6, carnival=True))
            view["trick"]["best"] = best
            view["trick"]["plays"][0]["cards"] = cards
            views.append(view)
    for view in views * 2:
        layout = layout_table(view, PLAIN)
        assert layout.png() == to_png(layout.image)


def test_table_with_overlapping_cards_is_mapped_whole() -> None:
    """A fan wide enough to reach its neighbour's cards blends its corners over them, not over the felt: such
    a table is mapped from its RGB drawing."""
    view = copy.deepcopy(ex.table_example(7))
    view["trick"]["plays"][1]["cards"] = ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "7S", "6S", "AH"]
    layout = layout_table(view, PLAIN + ["Gus"])
    assert layout.canvas.indexed() is None
    assert layout.png() == to_png(layout.image)
    cards = layout.image.crop((0, 160, 960, 306))
    assert len(cards.getcolors(1 << 16) or []) > 100  # the cards were drawn


def test_kept_grid_rows_are_the_rows_drawn_afresh() -> None:
    """The grid keeps its deal rows between pictures (``grid._deal_row``): a game's grids, one after another,
    are the grids drawn with nothing kept (same texts, same pixels), whichever rows came back."""
    from games.carnival import grid

    pictures = [(ex.sheet_example(4, deals), deals + 1, lang) for deals in (0, 3, 4, 9) for lang in ("en", "ru")]
    pictures.append((ex.sheet_example(4, 9, seed=7), 10, "en"))  # other scores in the same rows
    kept = [layout_grid(sheet, PLAIN[:4], current, lang) for sheet, current, lang in pictures]
    for (sheet, current, lang), layout in zip(pictures, kept, strict=True):
        grid._deal_row.cache_clear()
        afresh = layout_grid(sheet, PLAIN[:4], current, lang)
        assert layout.texts == afresh.texts
        assert layout.image.tobytes() == afresh.image.tobytes()
