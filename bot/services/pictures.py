"""Pictures for the table, the score grid and the standings (Pillow, in bot/render).

A thin seam: the services ask for PNG bytes and fall back to text when a game has no
picture. Rendering is pure and fast enough to run inline (see bench/render.py).
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

TRICK_GAMES = {"carnival", "oh_hell", "klaberjass", "calabrasella", "variety"}


class Pictures:
    def table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes | None:
        if view.get("game") not in TRICK_GAMES:
            return None
        from bot.render import render_table

        return render_table(view, names, lang)

    def grid(self, game: str, sheet: dict[str, Any], names: list[str], current: int | None, lang: str) -> bytes | None:
        if game != "carnival":
            return None
        from bot.render import render_grid

        return render_grid(sheet, names, current, lang)

    def standings(self, names: list[str], totals: list[int], lang: str) -> bytes | None:
        from bot.render import render_standings

        return render_standings(names, totals, lang)
