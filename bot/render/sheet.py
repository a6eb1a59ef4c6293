"""The generic score sheet of a game whose declaration says ``score_sheet="sheet"``.

One column per player, one row per finished deal, the running totals at the bottom with the
leader highlighted. Each cell holds the deal's points and, on its left, a small mark where the
game's sheet has one (a bid and the tricks taken, a star for the maker...). The row label carries
the deal's own facts (hand size, contract, trump). What goes in the marks, labels and legend is the
game's (``SheetStyle``, implemented by its presentation). The paper look is ``palette.py``'s.
"""

from __future__ import annotations

from typing import Any, Protocol

from PIL import Image, ImageDraw

from bot.render.layout import Drawn, Layout
from bot.render.palette import (
    GREY,
    HEAD,
    INK,
    LINE,
    NAME_H,
    PAD,
    PAPER,
    RED,
    STRONG,
    TITLE_H,
    TOTAL_H,
    WIN,
    wrap2,
)
from bot.render.text import Box, draw_fitted
from bot.render.words import num, words

LEFT_W = 96
LEGEND_H = 26


class SheetStyle(Protocol):
    """A game's columns of the sheet (its ``Presentation`` implements this: ``bot/presentation/base.py``)."""

    def sheet_title(self, lang: str) -> str: ...

    def sheet_row_label(self, deal: dict[str, Any], lang: str) -> str: ...

    def sheet_mark(self, deal: dict[str, Any], seat: int) -> str: ...

    def sheet_colors(self, deal: dict[str, Any], seat: int) -> tuple[Any, Any, bool]: ...

    def sheet_legend(self, lang: str) -> str | None: ...


def layout_sheet(style: SheetStyle, sheet: dict[str, Any], names: list[str], totals: list[int],
                 lang: str = "en") -> Layout:
    """Draw a game's score sheet (its ``State.sheet()``, columns as ``style`` says) with the running ``totals``."""
    deals = [d for d in sheet.get("deals", []) if isinstance(d.get("points"), list)]
    n = max([len(names), len(totals), 2] + [len(d["points"]) for d in deals])
    names = [names[i] if i < len(names) else f"P{i + 1}" for i in range(n)]
    w = words(lang)
    col_w = max(110, min(220, (940 - LEFT_W - 2 * PAD) // n))
    mark_w = round(col_w * 0.42)
    row_h = 26 if len(deals) <= 20 else 22
    size = 15 if len(deals) <= 20 else 14
    width = 2 * PAD + LEFT_W + n * col_w
    top = TITLE_H
    body = top + NAME_H
    height = body + max(1, len(deals)) * row_h + TOTAL_H + LEGEND_H + PAD
    img = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(img)
    layout = Layout(img)

    def text(kind: str, cell: Box, value: str, size_: int, fill: Any, *, seat: int | None = None,
             bold: bool = False, align: str = "center", min_size: int | None = None) -> None:
        box = draw_fitted(img, cell, value, size_, fill, bold=bold, align=align, min_size=min_size)
        layout.texts.append(Drawn(kind, value, box, cell, seat))

    def col(seat: int) -> tuple[int, int, int]:
        x0 = PAD + LEFT_W + seat * col_w
        return x0, x0 + mark_w, x0 + col_w

    title = f"{style.sheet_title(lang)} · {w['score_grid']}"
    if deals:
        title += f" · {w['after_deal']} {len(deals)}"
    text("title", (PAD, 0, width - PAD, TITLE_H), title, 22, INK, bold=True, align="left", min_size=16)
    # names
    draw.rectangle((PAD, top, width - PAD, body), fill=HEAD)
    text("deal_head", (PAD, top, PAD + LEFT_W, body), w["deal"], 14, GREY, min_size=10)
    for seat in range(n):
        x0, _, x1 = col(seat)
        lines = wrap2(names[seat], 17, x1 - x0 - 8)
        if len(lines) == 1:
            text("name", (x0, top, x1, body), names[seat], 17, INK, seat=seat, bold=True, min_size=13)
        else:
            text("name", (x0, top + 2, x1, top + NAME_H // 2), lines[0], 15, INK, seat=seat, bold=True)
            text("name", (x0, top + NAME_H // 2, x1, body - 2), lines[1], 15, INK, seat=seat, bold=True)
    # deals
    y = body
    for i, deal in enumerate(deals):
        if i % 2:
            draw.rectangle((PAD, y, width - PAD, y + row_h), fill=(245, 242, 230))
        text("deal", (PAD, y, PAD + LEFT_W, y + row_h), style.sheet_row_label(deal, lang), size - 1, INK, min_size=10)
        for seat in range(min(n, len(deal["points"]))):
            x0, xm, x1 = col(seat)
            mark = style.sheet_mark(deal, seat)
            mark_color, pts_color, bold = style.sheet_colors(deal, seat)
            if mark:
                text("mark", (x0, y, xm, y + row_h), mark, size - 2, mark_color, seat=seat, min_size=9)
            text("points", (xm, y, x1, y + row_h), num(deal["points"][seat]), size, pts_color, seat=seat,
                 bold=bold)
        draw.line((PAD, y + row_h, width - PAD, y + row_h), fill=LINE)
        y += row_h
    if not deals:
        y += row_h
    # totals
    draw.line((PAD, y, width - PAD, y), fill=STRONG, width=2)
    best = max(totals) if totals else None
    text("total_label", (PAD, y, PAD + LEFT_W, y + TOTAL_H), w["total"], 14, INK, bold=True, min_size=10)
    for seat in range(min(n, len(totals))):
        x0, _, x1 = col(seat)
        if deals and totals[seat] == best:
            draw.rectangle((x0 + 1, y + 1, x1 - 1, y + TOTAL_H - 1), fill=WIN)
        text("total", (x0, y, x1, y + TOTAL_H), num(totals[seat]), 18, RED if totals[seat] < 0 else INK,
             seat=seat, bold=True)
    y += TOTAL_H
    # lines: thin between mark and points, strong between players
    draw.line((PAD + LEFT_W, top, PAD + LEFT_W, y), fill=STRONG, width=2)
    for seat in range(n):
        _, xm, x1 = col(seat)
        if deals:
            draw.line((xm, body, xm, body + len(deals) * row_h), fill=LINE)
        draw.line((x1, top, x1, y), fill=STRONG, width=2)
    draw.rectangle((PAD, top, width - PAD, y), outline=STRONG, width=2)
    legend = style.sheet_legend(lang)
    if legend:
        text("legend", (PAD, y, width - PAD, y + LEGEND_H), legend, 13, GREY, align="left", min_size=10)
    return layout


def render_sheet(style: SheetStyle, sheet: dict[str, Any], names: list[str], totals: list[int],
                 lang: str = "en") -> bytes:
    """PNG of the score sheet (see ``layout_sheet``)."""
    return layout_sheet(style, sheet, names, totals, lang).png()
