"""Captions carry the picture's facts as Telegram HTML within 1024 characters, names escaped."""

from __future__ import annotations

import html
import re

from bot.render import caption_standings, caption_table
from bot.render import examples as ex
from bot.render.words import num
from games.carnival.grid import caption_grid

EVIL = ["<b>&Co", "Борис", "Chen 🎉", "a" * 300, "</b><i>x", "Eve"]


def well_formed(text: str) -> None:
    assert len(text) <= 1024
    # only <b>…</b> tags, balanced; every other "<" / "&" is escaped
    assert re.sub(r"</?b>", "", text).count("<") == 0
    assert text.count("<b>") == text.count("</b>")
    for amp in re.finditer(r"&", text):
        assert re.match(r"&(amp|lt|gt|quot|#x27);", text[amp.start():]), text[amp.start():amp.start() + 8]


def test_table_caption_facts_en_ru() -> None:
    view = ex.table_example(6, carnival=True)
    for lang, bid, took in (("en", "bid", "took"), ("ru", "заказ", "взял")):
        text = caption_table(view, EVIL, lang)
        well_formed(text)
        assert html.escape("<b>&Co") in text and "<b>&Co" not in text
        for seat in range(6):
            assert f"{bid} {view['bids'][seat]}, {took} {view['tricks'][seat]}" in text
        assert "Q♠ Q♠" in text and "K♠ K♠" in text and "🃏" in text
        assert "9♥" in text


def test_table_caption_last_trick_and_bidding() -> None:
    view = ex.last_trick_example(4)
    text = caption_table(view, EVIL[:4])
    well_formed(text)
    assert "Last trick" in text and "(low)" in text and "(over)" in text and "won by Борис" not in text
    winner = view["last_trick"]["winner"]
    assert f"won by {html.escape(EVIL[winner])[:20]}" in text
    bid = caption_table(ex.bid_example(5), EVIL[:5])
    assert "may not bid" in bid and "–" in bid


def test_grid_and_standings_captions() -> None:
    sheet = ex.sheet_example(6, 24)
    text = caption_grid(sheet, EVIL, "ru")
    well_formed(text)
    assert "−8; штр.−60" in text and "45; прем.60" in text
    assert all(num(t) in text for t in sheet["totals"])
    st = caption_standings(EVIL[:4], [120, 300, 300, -40])
    well_formed(st)
    assert st.count("1. ") == 2 and "3. " in st and "−40" in st and "🏆" in st


def test_captions_stay_under_limit_with_huge_names() -> None:
    names = ["&<>" * 200 + str(i) for i in range(7)]
    view = ex.table_example(7, carnival=True)
    for text in (caption_table(view, names), caption_grid(ex.sheet_example(7, 28), names),
                 caption_standings(names, list(range(7)), title="<" * 2000)):
        well_formed(text)
