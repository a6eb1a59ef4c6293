"""League pictures: the table (/top), a player's record (/stats) and a head-to-head (/h2h).

Specs are plain data built by bot/league/service.py, with every word already translated (the
catalogs live in the bot, not here) and names already cleaned; this module only lays them out.
Every text is fitted to its cell (long, Cyrillic, emoji and RTL names shrink, then end in "…").
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from bot.render.layout import Drawn, Layout
from bot.render.text import Box, draw_fitted

W = 860
PAD = 16
TITLE_H = 56
SUB_H = 34
HEAD_H = 34
ROW_H = 46
BG = (14, 84, 52)
ROW = (9, 60, 37)
ROW_ALT = (12, 70, 44)
GOLD = (255, 205, 60)
WHITE = (255, 255, 255)
MUTED = (190, 215, 200)
INK = (25, 30, 28)
UP = (110, 230, 120)
DOWN = (255, 120, 110)
ARROWS = {1: ("▲", UP), -1: ("▼", DOWN), 0: ("=", MUTED), 2: ("•", MUTED)}


class _Canvas:
    def __init__(self, height: int) -> None:
        self.img = Image.new("RGB", (W, height), BG)
        self.draw = ImageDraw.Draw(self.img)
        self.layout = Layout(self.img)

    def text(self, kind: str, cell: Box, value: str, size: int, fill: Any, *, bold: bool = False,
             align: str = "center", seat: int | None = None) -> None:
        box = draw_fitted(self.img, cell, value, size, fill, bold=bold, align=align, min_size=max(10, size - 8))
        self.layout.texts.append(Drawn(kind, value, box, cell, seat))

    def header(self, title: str, subtitle: str) -> int:
        self.text("title", (PAD, 0, W - PAD, TITLE_H), title, 28, WHITE, bold=True, align="left")
        self.text("subtitle", (PAD, TITLE_H - 6, W - PAD, TITLE_H + SUB_H - 6), subtitle, 18, MUTED, align="left")
        return TITLE_H + SUB_H

    def columns(self, y: int, cols: list[tuple[int, int, str]], labels: list[str]) -> None:
        for (x0, x1, align), label in zip(cols, labels, strict=True):
            self.text("head", (x0, y, x1, y + HEAD_H), label, 16, MUTED, align=align)

    def band(self, y: int, height: int, fill: Any) -> None:
        """A row's rounded band, across the picture."""
        self.draw.rounded_rectangle((PAD, y + 3, W - PAD, y + height - 3), radius=9, fill=fill)

    def footer(self, y: int, spec: dict[str, Any]) -> None:
        if spec.get("footer"):
            self.text("footer", (PAD, y, W - PAD, y + SUB_H), spec["footer"], 15, MUTED, align="left")


def ranked_canvas(spec: dict[str, Any], cols: list[tuple[int, int, str]], rows: int, row_h: int = ROW_H, *,
                  footer: bool = True) -> tuple[_Canvas, int]:
    """A picture of ``rows`` rows under a title, a subtitle and the column labels (the league's /top and /stats,
    a tournament's standings), with room for the spec's footer (``footer``: the picture shows one); the canvas
    and the y of the first row."""
    y = TITLE_H + SUB_H
    height = y + HEAD_H + max(1, rows) * row_h + (SUB_H if footer and spec.get("footer") else 0) + PAD
    c = _Canvas(height)
    c.header(spec["title"], spec.get("subtitle", ""))
    c.columns(y, cols, spec["labels"])
    return c, y + HEAD_H


def _num(value: float | int | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.1f}".replace("-", "−")
    return str(value).replace("-", "−")


# -- /top ------------------------------------------------------------------------------------------
TOP_COLS = [(PAD, PAD + 60, "center"), (PAD + 64, 470, "left"), (470, 590, "right"), (590, 680, "right"),
            (680, 770, "right"), (770, W - PAD, "center")]


def layout_top(spec: dict[str, Any]) -> Layout:
    rows = spec["rows"]
    c, y = ranked_canvas(spec, TOP_COLS, len(rows))
    for i, r in enumerate(rows):
        first = r["rank"] == 1
        fill, ink = (GOLD, INK) if first else (ROW if i % 2 else ROW_ALT, WHITE)
        c.band(y, ROW_H, fill)
        cells = [((TOP_COLS[k][0], y, TOP_COLS[k][1], y + ROW_H), TOP_COLS[k][2]) for k in range(len(TOP_COLS))]
        c.text("rank", cells[0][0], str(r["rank"]), 22, ink, bold=True, seat=i)
        c.text("name", cells[1][0], r["name"], 22, ink, bold=first, align="left", seat=i)
        rating = _num(r["rating"]) + ("?" if r["provisional"] else "")
        c.text("rating", cells[2][0], rating, 22, ink, bold=True, align="right", seat=i)
        c.text("games", cells[3][0], _num(r["games"]), 20, ink, align="right", seat=i)
        c.text("wins", cells[4][0], _num(r["wins"]), 20, ink, align="right", seat=i)
        arrow, color = ARROWS[r["trend"]]
        c.text("trend", cells[5][0], arrow, 22, INK if first else color, bold=True, seat=i)
        y += ROW_H
    if not rows:
        c.text("empty", (PAD, y, W - PAD, y + ROW_H), spec.get("empty", "—"), 20, MUTED)
        y += ROW_H
    c.footer(y, spec)
    return c.layout


# -- /stats ----------------------------------------------------------------------------------------
STATS_COLS = [(PAD, 250, "left"), (250, 320, "right"), (320, 390, "right"), (390, 480, "right"),
              (480, 570, "right"), (570, 660, "right"), (672, W - PAD, "center")]
STATS_ROW_H = 58


def sparkline(draw: ImageDraw.ImageDraw, box: Box, values: list[float], color: Any) -> None:
    """The rating history as a small line chart; a single point is a dot."""
    x0, y0, x1, y1 = box
    if not values:
        return
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    step = (x1 - x0) / max(1, len(values) - 1)
    points = [(x0 + i * step, y1 - (v - lo) / span * (y1 - y0)) for i, v in enumerate(values)]
    draw.line((x0, y1, x1, y1), fill=(40, 100, 70), width=1)
    if len(points) > 1:
        draw.line(points, fill=color, width=3, joint="curve")
    px, py = points[-1]
    draw.ellipse((px - 4, py - 4, px + 4, py + 4), fill=GOLD)


def layout_stats(spec: dict[str, Any]) -> Layout:
    games = spec["games"]
    c, y = ranked_canvas(spec, STATS_COLS, len(games), STATS_ROW_H, footer=False)
    for i, g in enumerate(games):
        c.band(y, STATS_ROW_H, ROW if i % 2 else ROW_ALT)
        values = [g["title"], _num(g["games"]), _num(g["wins"]), f"{g['avg_place']:.2f}", _num(g["best_score"]),
                  _num(g["rating"]) + ("?" if g["rating"] is not None and g["provisional"] else "")]
        kinds = ["game", "games", "wins", "avg_place", "best", "rating"]
        for k, (kind, value) in enumerate(zip(kinds, values, strict=True)):
            x0, x1, align = STATS_COLS[k]
            c.text(kind, (x0, y, x1, y + STATS_ROW_H), value, 20, WHITE, bold=k in (0, 5), align=align, seat=i)
        x0, x1, _ = STATS_COLS[-1]
        sparkline(c.draw, (x0 + 6, y + 12, x1 - 10, y + STATS_ROW_H - 12), g["history"], UP)
        y += STATS_ROW_H
    if not games:
        c.text("empty", (PAD, y, W - PAD, y + STATS_ROW_H), spec.get("empty", "—"), 20, MUTED)
    return c.layout


# -- /h2h ------------------------------------------------------------------------------------------
H2H_COLS = [(PAD, 330, "left"), (330, 460, "right"), (460, 590, "right"), (590, 720, "right"),
            (720, W - PAD, "right")]


def layout_h2h(spec: dict[str, Any]) -> Layout:
    per_game = spec["per_game"]
    y = TITLE_H + 96
    height = y + HEAD_H + max(1, len(per_game)) * ROW_H + PAD
    c = _Canvas(height)
    c.text("title", (PAD, 0, W - PAD, TITLE_H), spec["title"], 26, WHITE, bold=True, align="left")
    half = W // 2
    c.text("name", (PAD, TITLE_H, half - 40, TITLE_H + 36), spec["a"], 24, WHITE, bold=True, seat=0)
    c.text("name", (half + 40, TITLE_H, W - PAD, TITLE_H + 36), spec["b"], 24, WHITE, bold=True, seat=1)
    c.text("score", (PAD, TITLE_H + 36, half - 40, TITLE_H + 90), _num(spec["a_ahead"]), 44, GOLD, bold=True, seat=0)
    c.text("score", (half - 40, TITLE_H + 36, half + 40, TITLE_H + 90), ":", 40, WHITE, bold=True)
    c.text("score", (half + 40, TITLE_H + 36, W - PAD, TITLE_H + 90), _num(spec["b_ahead"]), 44, GOLD, bold=True,
           seat=1)
    c.columns(y, H2H_COLS, spec["labels"])
    y += HEAD_H
    for i, (title, meetings, a, b, level) in enumerate(per_game):
        c.band(y, ROW_H, ROW if i % 2 else ROW_ALT)
        for k, value in enumerate((title, _num(meetings), _num(a), _num(b), _num(level))):
            x0, x1, align = H2H_COLS[k]
            c.text("cell", (x0, y, x1, y + ROW_H), value, 20, WHITE, bold=k == 0, align=align)
        y += ROW_H
    if not per_game:
        c.text("empty", (PAD, y, W - PAD, y + ROW_H), spec.get("empty", "—"), 20, MUTED)
    return c.layout


LAYOUTS = {"league_top": layout_top, "league_stats": layout_stats, "league_h2h": layout_h2h}


def layout_league(spec: dict[str, Any]) -> Layout:
    return LAYOUTS[spec["kind"]](spec)


def render_league(spec: dict[str, Any]) -> bytes:
    """PNG of a league picture spec (``kind`` is league_top, league_stats or league_h2h)."""
    return layout_league(spec).png()
