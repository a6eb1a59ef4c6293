"""A tournament's standings: rank, player, points, the first tiebreak (opponents' points), tables played
and byes; withdrawn players struck through in grey. The spec comes with every word translated
(bot/tournaments/service.py); this module only lays it out, in the league's look."""

from __future__ import annotations

from typing import Any

from bot.render.layout import Layout
from bot.render.league import GOLD, HEAD_H, INK, MUTED, PAD, ROW, ROW_ALT, ROW_H, SUB_H, TITLE_H, WHITE, W, _Canvas

COLS = [(PAD, PAD + 60, "center"), (PAD + 64, 470, "left"), (470, 570, "right"), (570, 670, "right"),
        (670, 760, "right"), (760, W - PAD - 14, "right")]


def layout_tournament(spec: dict[str, Any]) -> Layout:
    rows = spec["rows"]
    y = TITLE_H + SUB_H
    height = y + HEAD_H + max(1, len(rows)) * ROW_H + (SUB_H if spec.get("footer") else 0) + PAD
    c = _Canvas(height)
    c.header(spec["title"], spec.get("subtitle", ""))
    c.columns(y, COLS, spec["labels"])
    y += HEAD_H
    for i, r in enumerate(rows):
        first = r["rank"] == 1 and not r["out"]
        fill, ink = (GOLD, INK) if first else (ROW if i % 2 else ROW_ALT, MUTED if r["out"] else WHITE)
        c.draw.rounded_rectangle((PAD, y + 3, W - PAD, y + ROW_H - 3), radius=9, fill=fill)
        cells = [(COLS[k][0], y, COLS[k][1], y + ROW_H) for k in range(len(COLS))]
        name = r["name"] + (" ✖" if r["out"] else "")
        c.text("rank", cells[0], str(r["rank"]), 22, ink, bold=True, seat=i)
        c.text("name", cells[1], name, 22, ink, bold=first, align="left", seat=i)
        c.text("points", cells[2], str(r["points"]), 22, ink, bold=True, align="right", seat=i)
        c.text("opponents", cells[3], str(r["opponents"]), 20, ink, align="right", seat=i)
        c.text("played", cells[4], str(r["played"]), 20, ink, align="right", seat=i)
        c.text("byes", cells[5], str(r["byes"]), 20, ink, align="right", seat=i)
        y += ROW_H
    if spec.get("footer"):
        c.text("footer", (PAD, y, W - PAD, y + SUB_H), spec["footer"], 15, MUTED, align="left")
    return c.layout


def render_tournament(spec: dict[str, Any]) -> bytes:
    return layout_tournament(spec).png()
