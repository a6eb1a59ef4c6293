"""The final standings: places (ties share one), names, totals, the winner in gold."""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.render.layout import Drawn, Layout
from bot.render.text import draw_fitted
from bot.render.words import num, words

W = 800
ROW_H = 56
TITLE_H = 64
PAD = 16
BG = (14, 84, 52)
ROW = (9, 60, 37)
GOLD = (255, 205, 60)
WHITE = (255, 255, 255)
INK = (25, 30, 28)


def places(totals: list[int]) -> list[int]:
    """Competition ranking, highest total first: 300, 120, 120, 80 -> 1, 2, 2, 4."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def layout_standings(names: list[str], totals: list[int], lang: str = "en", title: str | None = None) -> Layout:
    w = words(lang)
    n = len(totals)
    ranks = places(totals)
    order = sorted(range(n), key=lambda s: (ranks[s], s))
    height = TITLE_H + n * ROW_H + PAD
    img = Image.new("RGB", (W, height), BG)
    draw = ImageDraw.Draw(img)
    layout = Layout(img)

    def text(kind, cell, value, size, fill, seat=None, bold=False, align="center"):
        box = draw_fitted(img, cell, value, size, fill, bold=bold, align=align, min_size=size - 6)
        layout.texts.append(Drawn(kind, value, box, cell, seat))

    text("title", (PAD, 0, W - PAD, TITLE_H), title or w["standings"], 28, WHITE, bold=True, align="left")
    for i, seat in enumerate(order):
        y = TITLE_H + i * ROW_H
        winner = ranks[seat] == 1
        fill = GOLD if winner else ROW
        ink = INK if winner else WHITE
        draw.rounded_rectangle((PAD, y + 4, W - PAD, y + ROW_H - 4), radius=10, fill=fill)
        place = ("🏆 " if winner else "") + str(ranks[seat])
        text("place", (PAD, y, PAD + 100, y + ROW_H), place, 24, ink, seat, bold=True)
        name = names[seat] if seat < len(names) else f"P{seat + 1}"
        text("name", (PAD + 104, y, W - PAD - 170, y + ROW_H), name, 24, ink, seat, bold=winner, align="left")
        text("total", (W - PAD - 170, y, W - PAD - 12, y + ROW_H), num(totals[seat]), 26, ink, seat, bold=True,
             align="right")
    return layout


def render_standings(names: list[str], totals: list[int], lang: str = "en", title: str | None = None) -> bytes:
    """PNG of the final standings."""
    return layout_standings(names, totals, lang, title).png()
