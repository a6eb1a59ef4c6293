"""The Karusele table picture: the cards and builds on the table, the stock, and each player's
captures, so the group follows a fishing game the way it follows the trick games.

Only public facts are drawn: the table's cards (a build's cards, its value and its owner), the
stock's size, hand sizes and what each player has captured; ``view["hand"]`` is never read.
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from bot.presentation import (
    FELT,
    FELT_DARK,
    GOLD,
    MARGIN,
    PLATE,
    SOFT,
    TABLE_W,
    WHITE,
    Box,
    Drawn,
    GameWords,
    Layout,
    card_image,
    card_width,
    draw_fitted,
    num,
    title,
)

t = GameWords("karusele").t  # the game's own catalog (games/karusele/locale), then the bot's

H = 620
HEADER = (0, 0, TABLE_W, 52)
TABLE = (62, 420)  # y range of the felt with the table's cards
PLATES = (432, 608)
CARD_H = 104
PER_ROW = 7


class _Painter:
    def __init__(self, view: dict[str, Any], names: list[str], lang: str) -> None:
        self.view, self.names, self.lang = view, names, lang
        self.n = int(view.get("players") or len(names))
        self.img = Image.new("RGB", (TABLE_W, H), FELT)
        self.draw = ImageDraw.Draw(self.img)
        self.layout = Layout(self.img)

    def text(self, kind: str, cell: Box, text: str, size: int, fill: Any, *, seat: int | None = None,
             bold: bool = False, align: str = "center") -> None:
        box = draw_fitted(self.img, cell, text, size, fill, bold=bold, align=align, min_size=12)
        self.layout.texts.append(Drawn(kind, text, box, cell, seat))

    def name(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return "?"

    def card(self, card: str, x: int, y: int) -> None:
        face = card_image(card, CARD_H)
        self.img.paste(face, (x, y), face)
        self.layout.cards.append(card)

    def header(self) -> None:
        v = self.view
        self.draw.rectangle(HEADER, fill=FELT_DARK)
        parts = [title("karusele", self.lang)]
        if v.get("deal_no"):
            parts.append(t(self.lang, "deal {k}", k=v["deal_no"]))
        parts.append(t(self.lang, "stock {n}", n=v.get("stock_count", 0)))
        if v.get("target"):
            parts.append(t(self.lang, "game to {n}", n=v["target"]))
        right = TABLE_W - MARGIN
        if v.get("clock") and not v.get("over"):  # the table's time control, set by the bot
            right = TABLE_W * 5 // 8
            self.text("clock", (right, 0, TABLE_W - MARGIN, 52), str(v["clock"]), 20, WHITE, align="right")
        self.text("header", (MARGIN, 0, right, 52), " · ".join(parts), 24, WHITE, bold=True, align="left")

    def table(self) -> None:
        items = self.view.get("table") or []
        y0, y1 = TABLE
        self.draw.rounded_rectangle((MARGIN, y0, TABLE_W - MARGIN, y1), radius=14, fill=FELT_DARK)
        if not items:
            self.text("empty", (MARGIN, y0, TABLE_W - MARGIN, y1), "—", 28, SOFT)
            return
        rows = [items[i:i + PER_ROW] for i in range(0, len(items), PER_ROW)][:2]
        row_h = (y1 - y0) // 2
        cw = card_width(CARD_H)
        slot = (TABLE_W - 2 * MARGIN) // PER_ROW
        for r, row in enumerate(rows):
            top = y0 + 8 + r * row_h if len(rows) > 1 else y0 + (y1 - y0 - CARD_H - 40) // 2
            for i, item in enumerate(row):
                x0 = MARGIN + i * slot
                cards = [str(c) for c in item.get("cards") or []]
                step = min(cw // 3, (slot - cw - 8) // max(len(cards) - 1, 1)) if len(cards) > 1 else 0
                left = x0 + (slot - (cw + step * (len(cards) - 1))) // 2
                if item.get("build"):
                    self.draw.rounded_rectangle((x0 + 3, top - 4, x0 + slot - 3, top + CARD_H + 36), radius=10,
                                                outline=GOLD, width=2)
                for k, card in enumerate(cards):
                    self.card(card, left + k * step, top)
                if item.get("build"):
                    label = f"= {item.get('value')} · {self.name(item.get('owner'))}"
                    self.text("build", (x0 + 4, top + CARD_H + 2, x0 + slot - 4, top + CARD_H + 32), label, 18, GOLD,
                              seat=item.get("owner"), bold=True)

    def plates(self) -> None:
        v = self.view
        y0, y1 = PLATES
        width = (TABLE_W - 2 * MARGIN) // max(self.n, 1)
        captured = v.get("captured") or []
        counts = v.get("hand_counts") or []
        scores = v.get("scores") or []
        for seat in range(self.n):
            x0 = MARGIN + seat * width
            x1 = x0 + width - 6
            acting = seat == v.get("to_act") and not v.get("over")
            self.draw.rounded_rectangle((x0, y0, x1, y1), radius=12, fill=PLATE, outline=GOLD if acting else None,
                                        width=3)
            dealer = " 🂠" if seat == v.get("dealer") else ""
            self.text("name", (x0 + 8, y0 + 4, x1 - 8, y0 + 38), ("▶ " if acting else "") + self.name(seat) + dealer,
                      22, GOLD if acting else WHITE, seat=seat, bold=True)
            lines = []
            if seat < len(counts):
                lines.append(t(self.lang, "{n} cards in hand", n=counts[seat]))
            if seat < len(captured):
                got = captured[seat]
                lines.append(t(self.lang, "captured {n} ({spades}♠)", n=got.get("cards", 0),
                               spades=got.get("spades", 0)))
                lines.append(t(self.lang, "{n} points this deal", n=got.get("side_points", 0)))
            if seat < len(scores):
                lines.append(f"Σ {num(scores[seat])}")
            for k, line in enumerate(lines):
                top = y0 + 40 + k * 33
                self.text("plate", (x0 + 8, top, x1 - 8, top + 30), line, 17, SOFT, seat=seat)


def layout_karusele(view: dict[str, Any], names: list[str], lang: str = "en") -> Layout:
    """Draw the Karusele table for ``view``; returns the image plus every text box and card drawn."""
    p = _Painter(view, names, lang)
    p.header()
    p.table()
    p.plates()
    return p.layout


def render_karusele(view: dict[str, Any], names: list[str], lang: str = "en") -> bytes:
    """PNG of the Karusele table: the table's cards and builds, the stock, the captures; never a hand."""
    return layout_karusele(view, names, lang).png()
