"""The rummy pictures: the table (every meld, legible on a phone) and the deal-end score sheet.

The table: a header (game, deal, stock), one chip per player with their card count (the seat to
act marked), then the melds grouped as Manipulation lays them out (sets, runs, Tahiti's loose
singles), each meld a fan of overlapping cards that shows every card's corner. The card height is
the largest that keeps the picture under ``MAX_H`` (a 104-card table with 30+ melds wraps and
shrinks); melds the last move changed get a gold frame; a joker carries a tag with the card it
stands for, drawn over the cards after it so the whole card (rank and suit) reads. The same drawing
shows a player's proposed lay-down (``view["proposal"]``; a joker whose card they still choose,
``view["asks"]``, names the choice), its title on as many lines as the cards need.
Only public facts are read: the view of no seat (a proposal adds the proposer's named cards).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from bot.presentation import Drawn, Layout, card_image, card_width, draw_fitted, nt, t, text_width, title, to_png
from bot.presentation import font as font_of
from bot.presentation import name as html_name
from engine import melds
from engine.cards import card_str, pretty
from games.rummies.words import grouped, parse_table

W = 1000
MARGIN = 16
MAX_H = 1600
HEIGHTS = (112, 96, 82, 70, 60, 52, 44, 38)
STEP = 0.40  # the share of a card's width each next card of a meld shows
FELT = (14, 84, 52)
PLATE = (7, 44, 27)
WHITE = (255, 255, 255)
SOFT = (200, 225, 210)
GOLD = (255, 205, 60)
RED = (200, 30, 40)
BLACK = (20, 20, 24)


def _meld_width(n: int, h: int) -> int:
    cw = card_width(h)
    return cw + round((n - 1) * cw * STEP)


def _flow(table: Sequence[Sequence[int]], groups: list[tuple[str, list[int]]], h: int,
          top: int) -> tuple[list[tuple[int, int, int]], list[tuple[str, int]], int]:
    """Positions (meld, x, y) and group labels (kind, y) for card height ``h``; the bottom y."""
    gap = max(8, h // 6)
    label_h = 26
    y = top
    placed: list[tuple[int, int, int]] = []
    labels: list[tuple[str, int]] = []
    for kind, idx in groups:
        labels.append((kind, y))
        y += label_h
        x = MARGIN
        for i in idx:
            w = _meld_width(len(table[i]), h)
            if x > MARGIN and x + w > W - MARGIN:
                x = MARGIN
                y += h + gap
            placed.append((i, x, y))
            x += w + gap
        y += h + gap
    return placed, labels, y


def _joker_groups(meld: Sequence[int], asks: dict[int, list[int]]) -> list[tuple[int, str, int]]:
    """(first position, tag text, colour card) per run of jokers next to each other in a meld: one tag names
    every card they stand for (``4♥ 5♥``); a joker whose card the proposer still chooses names the
    choice (``5♥/5♦``)."""
    out: list[tuple[int, str, int]] = []
    k = 0
    while k < len(meld):
        if not melds.is_placed_joker(meld[k]):
            k += 1
            continue
        first, parts = k, []
        while k < len(meld) and melds.is_placed_joker(meld[k]):
            options = asks.get(k) or [melds.stands_for(meld[k])]
            parts.append("/".join(pretty(c) for c in options))
            k += 1
        out.append((first, " ".join(parts), melds.stands_for(meld[first])))
    return out


def _joker_tag(img: Image.Image, x: int, y: int, h: int, text: str, card: int, right_edge: int) -> Drawn:
    """A white tag on the lower half of a joker saying what it stands for, drawn over the cards after it (their
    corners stay in sight above it); moved left if it would pass ``right_edge`` (its meld's end)."""
    draw = ImageDraw.Draw(img)
    cw = card_width(h)
    size = max(10, round(h * 0.24))
    font = font_of(size, True)
    width = max(cw - 2, round(font.getlength(text)) + 8)
    left = min(x, right_edge - width)
    box = (left + 2, y + round(h * 0.58), left + width, y + round(h * 0.58) + size + 6)
    draw.rounded_rectangle(box, radius=4, fill=WHITE, outline=GOLD, width=2)
    color = RED if card_str(card)[-1] in "HD" else BLACK
    draw.text((box[0] + 4, box[1] + 2), text, font=font, fill=color)
    return Drawn("joker", text, box, box)


def _title_lines(text: str) -> list[str]:
    """The title on as many lines as it needs (a big lay-down names 30 cards), split at spaces."""
    width = W - 2 * MARGIN
    if text_width(text, 26, True) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line and text_width(trial, 26, True) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def _header(view: dict[str, Any], names: Sequence[str], lang: str) -> list[tuple[str, bool]]:
    """Header lines: (text, highlighted)."""
    head = title(view.get("game", ""), lang)
    if view.get("proposal"):
        cards = " ".join(pretty(melds.parse_table_card(c)) for c in view.get("cards", []))
        return [(head + " · " + t(lang, "your lay-down: {cards}", cards=cards), False)]
    bits = [head]
    if view.get("deal_no"):
        bits.append(t(lang, "deal {k}", k=view["deal_no"]))
    bits.append(t(lang, "stock {n}", n=view.get("stock_count", 0)))
    lines = [(" · ".join(bits), False)]
    for seat, n in enumerate(view.get("hand_counts") or []):
        name = names[seat] if seat < len(names) else f"P{seat + 1}"
        lines.append((f"{name}: " + nt(lang, "{n} card", "{n} cards", int(n)), seat == view.get("to_act")))
    return lines


def table_layout(view: dict[str, Any], names: Sequence[str], lang: str = "en") -> Layout:
    """The table picture with what it says: the title lines (``title``) and each joker tag (``joker``)."""
    table = parse_table(view.get("table") or [])
    kinds = view.get("table_kinds") or [("set" if len(m) > 1 and len({melds.stands_for(x) & 15 for x in m}) == 1
                                          else "single" if len(m) == 1 else "run") for m in table]
    groups = grouped(table, kinds)
    changed = set(view.get("changed") or [])
    asks: dict[int, dict[int, list[int]]] = {}
    for meld_i, pos, *options in view.get("asks") or []:
        asks.setdefault(meld_i, {})[pos] = [melds.parse_table_card(c) if isinstance(c, str) else c for c in options]
    head = _header(view, names, lang)
    titles = _title_lines(head[0][0])
    below = 34 * (len(titles) - 1)  # the extra title lines push everything down
    title_font = font_of(26, True)
    # chips flow in rows under the title
    chips: list[tuple[str, bool, int, int]] = []
    x, y = MARGIN, MARGIN + 40 + below
    for text, hot in head[1:]:
        w = min(W - 2 * MARGIN, text_width(text + (" ◀" if hot else ""), 20, True) + 20)
        if x > MARGIN and x + w > W - MARGIN:
            x, y = MARGIN, y + 36
        chips.append((text + (" ◀" if hot else ""), hot, x, y))
        x += w + 8
    top = (y + 44) if chips else MARGIN + 48 + below
    h = HEIGHTS[-1]
    for h in HEIGHTS:
        _, _, bottom = _flow(table, groups, h, top)
        if bottom + MARGIN <= MAX_H:
            break
    placed, labels, bottom = _flow(table, groups, h, top)
    height = max(bottom + MARGIN, 240)
    img = Image.new("RGB", (W, height), FELT)
    out = Layout(img)
    draw = ImageDraw.Draw(img)
    for k, line in enumerate(titles):
        draw.text((MARGIN, MARGIN + 34 * k), line, font=title_font, fill=WHITE)
        width = text_width(line, 26, True)
        out.texts.append(Drawn("title", line, (MARGIN, MARGIN + 34 * k, MARGIN + width, MARGIN + 34 * k + 30),
                               (0, 0, W, height)))
    for text, hot, cx, cy in chips:
        w = min(W - 2 * MARGIN, text_width(text, 20, True) + 20)
        draw.rounded_rectangle((cx, cy, cx + w, cy + 30), radius=8, fill=GOLD if hot else PLATE)
        draw_fitted(img, (cx, cy, cx + w, cy + 30), text, 20, BLACK if hot else WHITE, bold=True, align="left",
                    pad=10)
    label_font = font_of(18, True)
    words_for = {"set": t(lang, "Sets"), "run": t(lang, "Runs"), "single": t(lang, "Loose cards")}
    for kind, ly in labels:
        draw.text((MARGIN, ly + 2), words_for.get(kind, kind), font=label_font, fill=SOFT)
    if not table:
        draw.text((MARGIN, top + 30), t(lang, "The table is empty."), font=label_font, fill=SOFT)
    cw = card_width(h)
    for i, mx, my in placed:
        meld = table[i]
        if i in changed:
            pad = max(3, h // 20)
            draw.rounded_rectangle((mx - pad, my - pad, mx + _meld_width(len(meld), h) + pad, my + h + pad),
                                   radius=pad * 2, fill=GOLD)
        for k, x_card in enumerate(meld):
            face = "JK" if melds.is_placed_joker(x_card) else card_str(x_card)
            out.cards.append(face)
            im = card_image(face, h)
            img.paste(im, (mx + round(k * cw * STEP), my), im)
        for k, text, card in _joker_groups(meld, asks.get(i, {})):
            out.texts.append(_joker_tag(img, mx + round(k * cw * STEP), my, h, text, card,
                                        mx + _meld_width(len(meld), h)))
    return out


def layout_table(view: dict[str, Any], names: Sequence[str], lang: str = "en") -> Image.Image:
    return table_layout(view, names, lang).image


def render_table(view: dict[str, Any], names: Sequence[str], lang: str = "en") -> bytes:
    return to_png(layout_table(view, names, lang))


# -- the score sheet ---------------------------------------------------------------------------------
PAPER = (250, 247, 238)
INK = (30, 30, 40)
LINE = (190, 185, 170)
GREY = (120, 120, 130)
GREEN = (20, 120, 60)


def sheet_rows(game: str, sheet: dict[str, Any], n: int, lang: str) -> list[tuple[str, list[str], list[str]]]:
    """(label, big cells, small cells) per row: the running total big, the deal's penalty or
    points small; Carousel's game bonus and the settlement as rows of their own."""
    rows = []
    for deal in sheet.get("deals", []):
        totals = [str(v) for v in deal.get("totals", [0] * n)]
        if deal.get("bonus"):
            small = [f"+{p}" if p else "" for p in deal.get("points", [0] * n)]
            rows.append((t(lang, "Bonus"), totals, small))
            continue
        if "penalties" in deal:
            totals = [str(-v) for v in deal.get("totals", [0] * n)]
            small = [("−" + str(p)) if p else "0" for p in deal["penalties"]]
        else:
            small = [f"{p:+d}" for p in deal.get("points", [0] * n)]
        rows.append((t(lang, "Deal {k}", k=deal.get("deal_no", "")), totals, small))
    if sheet.get("settlement"):
        rows.append((t(lang, "Settlement"), [f"{v:+d}" for v in sheet["settlement"]], [""] * n))
    return rows


def layout_sheet(game: str, sheet: dict[str, Any], names: Sequence[str], lang: str = "en") -> Image.Image:
    n = len(names)
    rows = sheet_rows(game, sheet, n, lang)
    left, col = 150, max(110, min(200, (W - 150 - 2 * MARGIN) // max(n, 1)))
    width = left + col * n + 2 * MARGIN
    row_h, head_h = 44, 96
    height = head_h + row_h * max(len(rows), 1) + 60
    img = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(img)
    big, small, name_font = font_of(22, True), font_of(15), font_of(18, True)
    lowest = bool(sheet.get("lowest_wins") or "penalties" in sheet)
    caption = t(lang, "penalty points (lowest wins)") if lowest else t(lang, "points (highest wins)")
    draw.text((MARGIN, MARGIN), f"{title(game, lang)} · {caption}", font=font_of(24, True), fill=INK)
    for s, name in enumerate(names):
        x = MARGIN + left + s * col
        draw_fitted(img, (x, 50, x + col - 6, 86), name, 18, INK, bold=True, align="left", pad=6)
    y = head_h
    for label, cells, smalls in rows:
        draw.line((MARGIN, y, width - MARGIN, y), fill=LINE, width=1)
        draw.text((MARGIN, y + 10), label, font=name_font, fill=GREY)
        for s in range(n):
            x = MARGIN + left + s * col + 6
            draw.text((x, y + 8), cells[s] if s < len(cells) else "", font=big, fill=INK)
            draw.text((x + 70, y + 14), smalls[s] if s < len(smalls) else "", font=small, fill=GREY)
        y += row_h
    draw.line((MARGIN, y, width - MARGIN, y), fill=INK, width=2)
    totals = sheet.get("penalties") if lowest and sheet.get("penalties") is not None else sheet.get("totals", [])
    if totals:
        best = min(totals) if lowest else max(totals)
        draw.text((MARGIN, y + 14), t(lang, "Total"), font=name_font, fill=INK)
        for s, v in enumerate(totals):
            draw.text((MARGIN + left + s * col + 6, y + 10), str(v), font=big, fill=GREEN if v == best else INK)
    return img


def render_sheet(game: str, sheet: dict[str, Any], names: Sequence[str], lang: str = "en") -> bytes:
    return to_png(layout_sheet(game, sheet, names, lang))


def sheet_caption(game: str, sheet: dict[str, Any], names: Sequence[str], lang: str) -> str:
    lowest = "penalties" in sheet
    totals = sheet.get("penalties") if lowest else sheet.get("totals", [])
    parts = ", ".join(f"{html_name(nm)} {v}" for nm, v in zip(names, totals or [], strict=False))
    head = f"<b>{title(game, lang)}</b>: " + t(lang, "score sheet")
    return head + "\n" + (t(lang, "Penalties: {totals}", totals=parts) if lowest
                          else t(lang, "Totals: {totals}", totals=parts))
