"""clip_html's shortcut (a text whose raw UTF-16 length fits is returned as is) against the full count."""

from __future__ import annotations

import html.entities
import random

from bot.ui.clip import clip_html, units, visible_units
from tests.fakebot.textfmt import parse_html, u16len

PIECES = ["<b>", "</b>", "<i>", "</i>", '<a href="tg://user?id=1">', "</a>", "&amp;", "&lt;", "&gt;", "&quot;",
          "&#128512;", "&#x1F0CF;", "&nGt;", "&Afr;", "🃏", "♠", "ж", "a", " ", "\n", "<", "&", "&x;"]


def test_no_entity_is_longer_parsed_than_written():
    for name, value in html.entities.html5.items():
        assert units(value) <= units("&" + name), name
    for code in (0, 1, 65, 128, 0xD800, 0xFFFF, 0x1F0CF, 0x10FFFF, 0x110000):
        for written in (f"&#{code};", f"&#x{code:X};"):
            assert visible_units(written) <= units(written), written


def test_clip_html_returns_the_text_exactly_when_it_fits_and_a_fitting_cut_otherwise():
    rng = random.Random(14)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 80)))
        assert visible_units(text) <= units(text)
        for limit in (rng.randint(1, 60), rng.randint(60, 200)):
            clipped = clip_html(text, limit)
            if visible_units(text) <= limit:
                assert clipped == text
            else:
                assert clipped != text and visible_units(clipped) <= limit and "…" in clipped


def test_a_text_longer_written_than_parsed_is_counted_in_full():
    text = "<b>" + "🃏&amp;ж " * 700 + "</b>"  # 9 units a piece written, 5 parsed
    assert units(text) > 4096 >= visible_units(text)
    assert clip_html(text, 4096) == text
    for limit in (1, 2, 3, 1024, visible_units(text) - 1):
        plain, _ = parse_html(clip_html(text, limit))
        assert u16len(plain) <= limit and plain.endswith("…")
