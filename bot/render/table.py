"""The table picture for a group chat: seats around a felt table, the trick in front of them.

Seats go clockwise around a rectangle (top row left to right, then bottom row right to left),
so the play order reads naturally for 2 to 7 seats and nothing overlaps. Each seat has a
plate (number, name, dealer chip, bid/tricks, score, cards left) and, on the table in front
of it, its play in the trick shown: the current trick, or when that is empty the last
completed trick with its winner marked. Only public cards are drawn: trick, last trick and
the trump card; ``view["hand"]`` is never read. Keys the layout does not know are ignored,
so any trick game's view (engine/tricks.py keys) renders. A game's presentation may add two: ``banner``
(a line saying what the deal is about: Variety's contract) and ``roles`` (a word per seat on its plate:
Calabrasella's soloist).

The table is recorded on a ``Canvas`` (bot/render/canvas.py) and drawn straight on the palette: the felt and
plates are mapped once per palette, every text is on a known colour, and each seat's cards are an island
mapped alone and kept. Mapping the whole 960x700 RGB drawing cost ~1 ms of the picture's ~5 (bench/render.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from bot.render.canvas import Canvas, CanvasLayout
from bot.render.cards import card_width, paste_card
from bot.render.layout import Drawn
from bot.render.text import Box, fit
from bot.render.words import cards_count, game_name, num, words
from engine.cards import SUIT_SYMBOLS

W = 960
H = 700
MARGIN = 12
FELT = (14, 84, 52)
FELT_DARK = (9, 60, 37)
PLATE = (7, 44, 27)
CHIP = (60, 110, 80)  # a seat number's chip, when not to act
WHITE = (255, 255, 255)
SOFT = (200, 225, 210)
GOLD = (255, 205, 60)
RED_SUIT = (230, 60, 60)
CARD_H = 116
TRUMP_H = 96

HEADER = (0, 0, W, 52)
TOP_PLATES = (62, 152)
TOP_CARDS = (160, 306)
CENTER = (314, 430)
BOTTOM_CARDS = (438, 584)
BOTTOM_PLATES = (596, 686)


def seat_slots(n: int) -> list[tuple[int, int, bool]]:
    """For each seat: (x0, x1, on_top) of its column, clockwise from the top-left."""
    top = (n + 1) // 2
    bottom = n - top
    col = (W - 2 * MARGIN) / max(top, 1)
    slots: list[tuple[int, int, bool]] = []
    for i in range(top):
        x0 = MARGIN + i * col
        slots.append((round(x0), round(x0 + col), True))
    start = (W - bottom * col) / 2
    for j in range(bottom):
        x0 = start + (bottom - 1 - j) * col  # right to left: clockwise
        slots.append((round(x0), round(x0 + col), False))
    return slots


def _shown_trick(view: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    """The trick to draw and whether it is the finished last trick."""
    trick = view.get("trick")
    if trick and trick.get("plays"):
        return trick, False
    last = view.get("last_trick")
    if last and last.get("plays"):
        return last, True
    return trick, False


def _suit_text(letter: str | None) -> str:
    return SUIT_SYMBOLS.get(letter or "", "")


@lru_cache(maxsize=1)
def _felt() -> Image.Image:
    """The empty table: felt, the header band and the centre band (nothing else overlaps them), copied per picture."""
    img = Image.new("RGB", (W, H), FELT)
    draw = ImageDraw.Draw(img)
    draw.rectangle(HEADER, fill=FELT_DARK)
    draw.rounded_rectangle((MARGIN, CENTER[0], W - MARGIN, CENTER[1]), radius=14, fill=FELT_DARK)
    return img


@lru_cache(maxsize=64)
def _plate(width: int, height: int, acting: bool, dealer: bool) -> Image.Image:
    """A seat's plate on the felt: frame, seat-number chip and dealer chip, without their text.

    Drawn once per shape (a table has 2-3 widths): the rounded shapes cost more than the plate's texts.
    """
    img = Image.new("RGB", (width + 1, height + 1), FELT)  # Pillow's boxes include their far edge
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((0, 0, width, height), radius=12, fill=PLATE,
                           outline=GOLD if acting else (90, 140, 110), width=4 if acting else 2)
    draw.rounded_rectangle((8, 8, 40, 36), radius=8, fill=GOLD if acting else CHIP)
    if dealer:
        draw.ellipse((width - 38, 8, width - 8, 36), fill=WHITE)
    return img


def plate_box(slot: tuple[int, int, bool]) -> tuple[int, int, int, int]:
    """Where a seat's plate goes in its slot (x0, x1, top row?): inset 6 px, at most 320 px wide, centred."""
    x0, x1, top = slot
    y0, y1 = TOP_PLATES if top else BOTTOM_PLATES
    px0, px1 = x0 + 6, x1 - 6
    if px1 - px0 > 320:
        mid = (px0 + px1) // 2
        px0, px1 = mid - 160, mid + 160
    return px0, y0, px1, y1


class _Painter:
    def __init__(self, view: dict[str, Any], names: list[str], lang: str, pair_kind: str | None) -> None:
        self.view = view
        self.pair_kind = pair_kind
        self.n = int(view.get("players") or len(names))
        self.names = [names[i] if i < len(names) else f"P{i + 1}" for i in range(self.n)]
        self.w = words(lang)
        self.lang = lang
        self.canvas = Canvas((W, H), FELT, base=_felt())
        self.layout = CanvasLayout(self.canvas)

    def text(self, kind: str, cell: Box, text: str, size: int, fill: Any, ground: tuple[int, int, int], *,
             seat: int | None = None, bold: bool = False, align: str = "center", min_size: int | None = None) -> Box:
        """A text on the flat colour ``ground`` under its cell (every text of the table has one): a line of one
        run is then pasted as a copy already inked on that colour (``text._inked``), not blended through its mask,
        and on the palette as a tile mapped once (``canvas.Canvas``)."""
        box = self.canvas.text(cell, text, size, fill, ground, bold=bold, align=align, min_size=min_size)
        self.layout.texts.append(Drawn(kind, text, box, cell, seat))
        return box

    def short(self, seat: int, size: int = 24, width: int = 300) -> str:
        """A seat's name cut to ``width`` px, for use inside a sentence."""
        return fit(self.names[seat], size, width, True)

    def cards(self, cards: list[str], x: int, y: int, step: int, height: int = CARD_H, marked: bool = False) -> None:
        """Cards side by side from (x, y), ``step`` apart, on a gold mark when ``marked``: one island of the canvas."""
        total = card_width(height) + step * (len(cards) - 1)
        mark = (x - 6, y - 4, x + total + 6, y + height + 4)

        def paint(img: Image.Image, origin: tuple[int, int]) -> None:
            ox, oy = origin
            if marked:
                ImageDraw.Draw(img).rounded_rectangle((mark[0] - ox, mark[1] - oy, mark[2] - ox, mark[3] - oy),
                                                      radius=12, fill=GOLD)
            for i, card in enumerate(cards):
                paste_card(img, card, height, (x + i * step - ox, y - oy))

        box = (mark[0], mark[1], mark[2] + 1, mark[3] + 1) if marked else (x, y, x + total, y + height)
        self.canvas.island(box, paint, key=("cards", tuple(cards), x, y, step, height, marked))
        self.layout.cards.extend(cards)

    # --- parts -------------------------------------------------------------------------------------

    def header(self) -> None:
        v, w = self.view, self.w
        parts = [game_name(v.get("game"), self.lang)]
        if v.get("quarter"):
            parts.append(f"{w['quarter']} {v['quarter']}")
        if v.get("deal_no"):
            deal = f"{w['deal']} {v['deal_no']}"
            if v.get("deals_total"):
                deal += f"/{v['deals_total']}"
            parts.append(deal)
        if v.get("hand_size"):
            parts.append(cards_count(int(v['hand_size']), self.lang))
        self.text("header", (MARGIN, 0, W * 2 // 3, 52), " · ".join(parts), 24, WHITE, FELT_DARK, bold=True,
                  align="left")
        phase = v.get("phase")
        label = {"bid": w["bidding"], "play": w["playing"], "over": w["game_over"]}.get(phase or "", phase or "")
        if v.get("over"):
            label = w["game_over"]
        if label:
            self.text("phase", (W * 2 // 3, 0, W - MARGIN, 52), label, 22, GOLD, FELT_DARK, align="right")

    def plate(self, seat: int, slot: tuple[int, int, bool]) -> None:
        v, w = self.view, self.w
        px0, y0, px1, y1 = plate_box(slot)
        acting = v.get("to_act") == seat and not v.get("over")
        dealer = v.get("dealer") == seat
        self.canvas.image(_plate(px1 - px0, y1 - y0, acting, dealer), (px0, y0))
        # line 1: seat number chip, name, dealer chip
        chip = (px0 + 8, y0 + 8, px0 + 40, y0 + 36)
        self.text("seat_no", chip, str(seat + 1), 18, PLATE if acting else WHITE, GOLD if acting else CHIP, seat=seat,
                  bold=True)
        right = px1 - 8
        if dealer:
            dchip = (px1 - 38, y0 + 8, px1 - 8, y0 + 36)
            self.text("dealer", dchip, "D", 18, PLATE, WHITE, seat=seat, bold=True)
            right = px1 - 44
        self.text("name", (px0 + 44, y0 + 4, right, y0 + 40), self.names[seat], 22, WHITE, PLATE, seat=seat,
                  bold=True, align="left", min_size=17)
        # line 2: the seat's role in the deal (a game's ``roles``), bid and tricks taken
        parts = []
        roles = v.get("roles")
        if isinstance(roles, list) and seat < len(roles) and roles[seat]:
            parts.append(str(roles[seat]))
        bids = v.get("bids")
        if isinstance(bids, list) and seat < len(bids):
            parts.append(f"{w['bid']} {bids[seat] if bids[seat] is not None else '–'}")
        tricks = v.get("tricks")
        if isinstance(tricks, list) and seat < len(tricks):
            parts.append(f"{w['took']} {tricks[seat]}")
        if parts:
            self.text("bid_tricks", (px0 + 8, y0 + 40, px1 - 8, y0 + 64), " · ".join(parts), 19, WHITE, PLATE,
                      seat=seat, align="left")
        # line 3: score and cards left
        parts = []
        scores = v.get("scores")
        if isinstance(scores, list) and seat < len(scores):
            parts.append(f"{w['score']} {num(scores[seat])}")
        counts = v.get("hand_counts")
        if isinstance(counts, list) and seat < len(counts):
            parts.append(f"{w['hand']} {counts[seat]}")
        if parts:
            self.text("score", (px0 + 8, y0 + 64, px1 - 8, y0 + 86), " · ".join(parts), 17, SOFT, PLATE, seat=seat,
                      align="left")

    def play(self, seat: int, slot: tuple[int, int, bool], trick: dict[str, Any], finished: bool) -> None:
        plays = trick.get("plays") or []
        order = next((i for i, p in enumerate(plays) if p.get("seat") == seat), None)
        if order is None:
            return
        entry = plays[order]
        cards = [str(c) for c in entry.get("cards") or []]
        x0, x1, top = slot
        y0, y1 = TOP_CARDS if top else BOTTOM_CARDS
        cw = card_width(CARD_H)
        step = round(cw * 0.62)
        total = cw + step * (len(cards) - 1)
        cx = (x0 + x1) // 2
        left = cx - total // 2
        marked = trick.get("winner") if finished else trick.get("best")
        if cards or marked == seat:
            self.cards(cards, left, y0, step, marked=marked == seat)
        # the tag under the cards: play order, lead mode, placement, pair, winner
        tag = [str(order + 1)]
        if order == 0:
            tag.append(self.w["leads"])
            if trick.get("lead_mode") in ("high", "low"):
                tag.append(self.w[trick["lead_mode"]])
            if self.pair_kind and trick.get("kind") == self.pair_kind:
                tag.append(self.w["pair_short"] + " ×2")
        if entry.get("place") in ("over", "under"):
            tag.append(self.w[entry["place"]])
        if marked == seat:
            tag.append("★ " + (self.w["won_it"] if finished else self.w["best"]))  # under the winner's card
        self.text("play_tag", (x0 + 4, y0 + CARD_H + 4, x1 - 4, y1), " · ".join(tag), 18,
                  GOLD if marked == seat else WHITE, FELT, seat=seat, bold=marked == seat)

    def center(self, trick: dict[str, Any] | None, finished: bool) -> None:
        v, w = self.view, self.w
        y0, y1 = CENTER
        x = MARGIN + 12
        trump_card = v.get("trump_card")
        trump = v.get("trump")
        if "trump" in v or trump_card:
            if trump_card:
                self.cards([str(trump_card)], x, y0 + (y1 - y0 - TRUMP_H) // 2, 0, TRUMP_H)
                x += card_width(TRUMP_H) + 12
            # "No trump" stands alone: "Trump: no trump" did not fit the box and was cut ("Trump: no t…")
            label = f"{w['trump']}: " + (_suit_text(trump) or str(trump)) if trump else w["no_trump"].capitalize()
            color = RED_SUIT if trump in ("H", "D") else WHITE
            self.text("trump", (x, y0 + 8, x + 190, y0 + 58), label, 24, color, FELT_DARK, bold=True, align="left")
            x += 200
        lines: list[tuple[str, str]] = []
        if v.get("banner"):
            lines.append(("banner", str(v["banner"])))  # what the deal is about, in the game's words
        if trick and trick.get("plays"):
            if finished:
                winner = trick.get("winner")
                name = self.short(winner) if isinstance(winner, int) and winner < self.n else "?"
                lines.append(("trick_label", f"{w['last_trick']}: {w['won_by']} {name}"))
            else:
                lead = trick.get("leader")
                label = w["trick"]
                if self.pair_kind and trick.get("kind") == self.pair_kind:
                    label = f"{w['pair']} (×2)"
                if isinstance(lead, int) and lead < self.n:
                    label += f": {self.short(lead)} {w['leads']}"
                lines.append(("trick_label", label))
        actor = v.get("to_act")
        if isinstance(actor, int) and actor < self.n and not v.get("over"):
            verb = {"bid": w["to_bid"], "play": w["to_play"]}.get(v.get("phase") or "", w["to_act"])
            line = f"▶ {self.short(actor)} {verb}"
            if v.get("phase") == "bid" and v.get("forbidden_bid") is not None:
                line += f" ({w['not_bid']} {v['forbidden_bid']})"
            lines.append(("to_act", line))
        elif not lines and v.get("phase") == "play":
            lines.append(("trick_label", w["waiting"]))
        if v.get("clock") and not v.get("over"):
            lines.append(("clock", str(v["clock"])))  # the table's time control, set by the bot
        if not lines:
            return
        band = (y1 - y0 - 16) // len(lines)
        for i, (kind, line) in enumerate(lines):
            cell = (x, y0 + 8 + i * band, W - MARGIN - 12, y0 + 8 + (i + 1) * band)
            size = 20 if kind == "clock" else 24 if i == 0 else 22
            self.text(kind, cell, line, size, GOLD if kind in ("to_act", "banner") else WHITE, FELT_DARK,
                      bold=kind in ("to_act", "banner"), align="left", min_size=14 if kind == "clock" else 16)


def layout_table(view: dict[str, Any], names: list[str], lang: str = "en",
                 pair_kind: str | None = None) -> CanvasLayout:
    """Draw the table for ``view``; returns the image plus every text box and card drawn. A trick whose
    ``kind`` is ``pair_kind`` (a game's doubled trick) is marked as a pair (×2)."""
    p = _Painter(view, names, lang, pair_kind)
    p.header()
    slots = seat_slots(p.n)
    trick, finished = _shown_trick(view)
    for seat in range(p.n):
        p.plate(seat, slots[seat])
        if trick:
            p.play(seat, slots[seat], trick, finished)
    p.center(trick, finished)
    return p.layout


def render_table(view: dict[str, Any], names: list[str], lang: str = "en", pair_kind: str | None = None) -> bytes:
    """PNG of the table for the group: the trick, seats, bids, tricks, trump; never a hidden card."""
    return layout_table(view, names, lang, pair_kind).png()


__all__ = ["layout_table", "render_table", "seat_slots"]
