"""A tournament's standings: rank, player, points, the first tiebreak (opponents' points), tables played
and byes; withdrawn players struck through in grey. The spec comes with every word translated
(bot/tournaments/service.py); this module only lays it out, in the league's look."""

from __future__ import annotations

from typing import Any

from bot.render.layout import Layout
from bot.render.league import GOLD, INK, MUTED, PAD, ROW, ROW_ALT, ROW_H, WHITE, W, ranked_canvas

COLS = [(PAD, PAD + 60, "center"), (PAD + 64, 470, "left"), (470, 570, "right"), (570, 670, "right"),
        (670, 760, "right"), (760, W - PAD - 14, "right")]


def layout_tournament(spec: dict[str, Any]) -> Layout:
    rows = spec["rows"]
    c, y = ranked_canvas(spec, COLS, len(rows))
    for i, r in enumerate(rows):
        first = r["rank"] == 1 and not r["out"]
        fill, ink = (GOLD, INK) if first else (ROW if i % 2 else ROW_ALT, MUTED if r["out"] else WHITE)
        c.band(y, ROW_H, fill)
        cells = [(COLS[k][0], y, COLS[k][1], y + ROW_H) for k in range(len(COLS))]
        name = r["name"] + (" ✖" if r["out"] else "")
        c.text("rank", cells[0], str(r["rank"]), 22, ink, bold=True, seat=i)
        c.text("name", cells[1], name, 22, ink, bold=first, align="left", seat=i)
        c.text("points", cells[2], str(r["points"]), 22, ink, bold=True, align="right", seat=i)
        c.text("opponents", cells[3], str(r["opponents"]), 20, ink, align="right", seat=i)
        c.text("played", cells[4], str(r["played"]), 20, ink, align="right", seat=i)
        c.text("byes", cells[5], str(r["byes"]), 20, ink, align="right", seat=i)
        y += ROW_H
    c.footer(y, spec)
    return c.layout


def render_tournament(spec: dict[str, Any]) -> bytes:
    return layout_tournament(spec).png()
