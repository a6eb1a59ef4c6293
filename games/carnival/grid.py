"""The Carnival score grid in the seed's "ФОРМА 6 х 6": bid | points per player, a row per deal.

Rows: for each quarter, one row per deal (the hand size on the left: 6, 8, 10, 12), then the
quarter summary ("−8; pen.−60" as in the seed, or just the combined number when that does not
fit, with the final value in bold under it), and the grand total at the bottom. Deals not yet
played keep empty rows so the grid always has its full shape; the current deal is highlighted.
Paper colours (dark ink on cream) read well in both Telegram themes.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any

from bot.presentation import (
    CURRENT,
    GREEN,
    GREY,
    HEAD,
    INK,
    LINE,
    NAME_H,
    PAD,
    PAPER,
    QROW_H,
    RED,
    RGB,
    ROW_H,
    STRONG,
    SUB_H,
    SUMMARY,
    TITLE_H,
    TOTAL_H,
    WIN,
    Box,
    Canvas,
    CanvasLayout,
    Drawn,
    caption_name,
    fit_caption,
    num,
    picture_words,
    text_width,
    title,
    wrap2,
)
from engine.cards import SUIT_SYMBOLS

GAME = "carnival"
LEFT_W = 70


def quarter_note(raw: int, premium: int, penalty: int, lang: str) -> str:
    """The seed's summary: "−8; pen.−60", "45; prem.60", or just the raw total."""
    w = picture_words(lang)
    if penalty:
        return f"{num(raw)}; {w['penalty']}{num(penalty)}"
    if premium:
        return f"{num(raw)}; {w['premium']}{num(premium)}"
    return num(raw)


def _hand_sizes(sheet: dict[str, Any], quarters: int) -> list[int]:
    sizes = [6 + 2 * q for q in range(quarters)]
    for deal in sheet.get("deals", []):
        q = int(deal.get("quarter", 0)) - 1
        if 0 <= q < quarters and deal.get("hand_size"):
            sizes[q] = int(deal["hand_size"])
    return sizes


@lru_cache(maxsize=1024)
def _deal_row(y: int, width: int, pair_w: int, bid_w: int, ground: RGB, current: bool, label: str,
              scores: tuple[tuple[Any, Any, Any], ...]) -> tuple[Canvas, tuple[Drawn, ...]]:
    """A deal's row (the hand size, then each seat's bid and points, the rule under it), recorded once and kept:
    a game's grids draw the same rows picture after picture, and these ~85% of the grid's texts were most of
    its layout time. ``scores``: (bid, took, points) per seat, empty while the deal is not played."""
    row = Canvas((width, ROW_H), ground)  # only its operations are used, pasted into the grid's
    texts: list[Drawn] = []

    def text(kind: str, cell: Box, value: str, fill: RGB, seat: int | None = None, bold: bool = False) -> None:
        texts.append(Drawn(kind, value, row.text(cell, value, 15, fill, ground, bold=bold), cell, seat))

    text("hand_size", (PAD, y, PAD + LEFT_W, y + ROW_H), label, INK, bold=current)
    for seat, (bid, took, pts) in enumerate(scores):
        x0 = PAD + LEFT_W + seat * pair_w
        xm, x1 = x0 + bid_w, x0 + pair_w
        color = GREEN if bid == took else RED if pts < 0 else INK
        text("bid", (x0, y, xm, y + ROW_H), str(bid), GREY, seat)
        text("points", (xm, y, x1, y + ROW_H), num(pts), color, seat, bold=bid == took)
    row.line((PAD, y + ROW_H, width - PAD, y + ROW_H), fill=LINE)
    return row, tuple(texts)


def layout_grid(sheet: dict[str, Any], names: list[str], current_deal: int | None = None, lang: str = "en",
                totals: list[int] | None = None) -> CanvasLayout:
    """Draw the grid for ``sheet``; ``current_deal`` is the 1-based number of the deal in progress.

    Drawn on a ``Canvas``: every shape is flat and every text on a known colour, so the PNG is drawn
    straight on the palette."""
    n = int(sheet.get("players") or len(names))
    names = [names[i] if i < len(names) else f"P{i + 1}" for i in range(n)]
    quarters = max(1, int(sheet.get("quarters") or 4))  # quarters=1 draws one quarter, not four
    w = picture_words(lang)
    pair_w = max(104, min(200, (900 - LEFT_W - 2 * PAD) // n))
    bid_w = round(pair_w * 0.38)
    width = 2 * PAD + LEFT_W + n * pair_w
    height = TITLE_H + NAME_H + SUB_H + quarters * (n * ROW_H + QROW_H) + TOTAL_H + PAD
    draw = Canvas((width, height), PAPER)
    layout = CanvasLayout(draw)

    def text(kind: str, cell: Box, value: str, size: int, fill: Any, bg: tuple[int, int, int], *,
             seat: int | None = None, bold: bool = False, align: str = "center", min_size: int | None = None) -> None:
        """A text on its cell's flat colour ``bg`` (every cell of the grid has one)."""
        box = draw.text(cell, value, size, fill, bg, bold=bold, align=align, min_size=min_size)
        layout.texts.append(Drawn(kind, value, box, cell, seat))

    def rule(x0: int, y0: int, x1: int, y1: int) -> None:
        """A strong 2 px rule along a row or a column: the pixels of draw.line(width=2), drawn as the
        rectangle they make (a wide line is drawn as a polygon, ~10x slower)."""
        draw.rectangle((x0, y0, x1 + (x0 == x1), y1 + (y0 == y1)), fill=STRONG)

    def col(seat: int) -> tuple[int, int, int]:
        x0 = PAD + LEFT_W + seat * pair_w
        return x0, x0 + bid_w, x0 + pair_w

    # title
    deals = sheet.get("deals", [])
    title_text = f"{title(GAME, lang)} · {w['score_grid']}"
    if deals:
        title_text += f" · {w['after_deal']} {len(deals)}"
    text("title", (PAD, 0, width - PAD, TITLE_H), title_text, 22, INK, PAPER, bold=True, align="left")
    # header: names over their column pair, then "bid | pts"
    y = TITLE_H
    draw.rectangle((PAD, y, width - PAD, y + NAME_H + SUB_H), fill=HEAD)
    for seat in range(n):
        x0, xm, x1 = col(seat)
        lines = wrap2(names[seat], 17, x1 - x0 - 8)
        if len(lines) == 1:
            text("name", (x0, y, x1, y + NAME_H), names[seat], 17, INK, HEAD, seat=seat, bold=True, min_size=13)
        else:
            text("name", (x0, y + 2, x1, y + NAME_H // 2), lines[0], 15, INK, HEAD, seat=seat, bold=True)
            text("name", (x0, y + NAME_H // 2, x1, y + NAME_H - 2), lines[1], 15, INK, HEAD, seat=seat, bold=True)
        text("sub", (x0, y + NAME_H, xm, y + NAME_H + SUB_H), w["bid"], 13, GREY, HEAD, seat=seat)
        text("sub", (xm, y + NAME_H, x1, y + NAME_H + SUB_H), w["points"], 13, GREY, HEAD, seat=seat)
    y += NAME_H + SUB_H
    by_no = {int(d.get("deal_no", i + 1)): d for i, d in enumerate(deals)}
    results = {int(r.get("quarter", i + 1)): r for i, r in enumerate(sheet.get("quarter_results", []))}
    sizes = _hand_sizes(sheet, quarters)
    for q in range(quarters):
        for k in range(n):
            deal_no = q * n + k + 1
            row = (PAD, y, width - PAD, y + ROW_H)
            ground = CURRENT if current_deal == deal_no else PAPER
            if current_deal == deal_no:
                draw.rectangle(row, fill=CURRENT)
            deal = by_no.get(deal_no)
            label = str(sizes[q])
            if deal and deal.get("trump") in SUIT_SYMBOLS:
                label += " " + SUIT_SYMBOLS[deal["trump"]]
            if current_deal == deal_no:
                label = "▶ " + label
            scores = tuple((deal["bids"][s], deal["tricks"][s], deal["points"][s]) for s in range(n)) if deal else ()
            part, drawn = _deal_row(y, width, pair_w, bid_w, ground, current_deal == deal_no, label, scores)
            draw.extend(part)
            layout.texts += drawn
            y += ROW_H
        # quarter summary
        draw.rectangle((PAD, y, width - PAD, y + QROW_H), fill=SUMMARY)
        text("quarter", (PAD, y, PAD + LEFT_W, y + QROW_H), f"{q + 1} {w['q_short']}", 15, INK, SUMMARY, bold=True)
        result = results.get(q + 1)
        if result:
            for seat in range(n):
                x0, _, x1 = col(seat)
                raw, prem, pen = result["raw"][seat], result["premium"][seat], result["penalty"][seat]
                final = result["final"][seat]
                color = RED if final < 0 else GREEN if prem else INK
                if prem or pen:
                    note = quarter_note(raw, prem, pen, lang)
                    if text_width(note, 13) <= x1 - x0 - 8:
                        text("quarter_note", (x0, y + 2, x1, y + 20), note, 13, GREY, SUMMARY, seat=seat)
                        text("quarter_final", (x0, y + 20, x1, y + QROW_H - 2), num(final), 16, color, SUMMARY,
                             seat=seat, bold=True)
                        continue
                text("quarter_final", (x0, y, x1, y + QROW_H), num(final), 16, color, SUMMARY, seat=seat, bold=True)
        rule(PAD, y + QROW_H, width - PAD, y + QROW_H)
        y += QROW_H
    # grand total
    # The running totals (finished quarters plus the deals of the current one), not the finished quarters
    # alone, which read 0 all through the first quarter.
    totals = list(totals) if totals is not None else sheet.get("totals") or []
    finished = len(results) >= quarters
    best = max(totals) if totals else None
    text("total_label", (PAD, y, PAD + LEFT_W, y + TOTAL_H), w["total"], 14, INK, PAPER, bold=True, min_size=10)
    for seat in range(min(n, len(totals))):
        x0, _, x1 = col(seat)
        won = finished and totals[seat] == best
        if won:
            draw.rectangle((x0 + 1, y + 1, x1 - 1, y + TOTAL_H - 1), fill=WIN)
        text("total", (x0, y, x1, y + TOTAL_H), num(totals[seat]), 18, RED if totals[seat] < 0 else INK,
             WIN if won else PAPER, seat=seat, bold=True)
    y += TOTAL_H
    # vertical lines: thin between bid and points, strong between players
    top = TITLE_H
    rule(PAD + LEFT_W, top, PAD + LEFT_W, y)
    block_top = top + NAME_H
    for q in range(quarters):
        block_bottom = TITLE_H + NAME_H + SUB_H + q * (n * ROW_H + QROW_H) + n * ROW_H
        for seat in range(n):
            _, xm, _ = col(seat)
            draw.line((xm, block_top, xm, block_bottom), fill=LINE)
        block_top = block_bottom + QROW_H
    for seat in range(n):
        _, _, x1 = col(seat)
        rule(x1, top, x1, y)
    draw.rectangle((PAD, top, width - PAD, y), outline=STRONG, width=2)
    return layout


def render_grid(sheet: dict[str, Any], names: list[str], current_deal: int | None = None, lang: str = "en",
                totals: list[int] | None = None) -> bytes:
    """PNG of the score grid (see ``layout_grid``)."""
    return layout_grid(sheet, names, current_deal, lang, totals).png()


def caption_grid(sheet: dict[str, Any], names: list[str], lang: str = "en", totals: list[int] | None = None) -> str:
    """The grid's facts as the picture's caption: each quarter's result, the running totals."""
    w = picture_words(lang)
    n = int(sheet.get("players") or len(names))
    deals = sheet.get("deals", [])
    lines = [f"<b>{html.escape(title(GAME, lang))} · {w['score_grid']}</b>"
             + (f" · {w['after_deal']} {len(deals)}" if deals else "")]
    for result in sheet.get("quarter_results", []):
        parts = []
        for seat in range(n):
            note = quarter_note(result["raw"][seat], result["premium"][seat], result["penalty"][seat], lang)
            final = num(result["final"][seat])
            parts.append(f"{caption_name(names, seat, 20)} {final}" + (f" ({note})" if note != final else ""))
        lines.append(f"{result['quarter']} {w['q_short']}: " + ", ".join(parts))
    totals = list(totals) if totals is not None else sheet.get("totals") or []  # running, as on the picture
    if totals:
        lines.append(f"<b>{w['total']}</b>: " + ", ".join(
            f"{caption_name(names, s, 24)} {num(totals[s])}" for s in range(min(n, len(totals)))))
    return fit_caption(lines)
