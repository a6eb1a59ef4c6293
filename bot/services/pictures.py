"""Which pictures the group gets, and drawing them (Pillow, in bot/render).

Services describe a picture as plain data (``{"kind": "table", "view": ..., "names": ..., "lang": ...}``)
and the outbox draws it when it is about to send it (see ``outbox.send_picture``).
"""

from __future__ import annotations

from typing import Any

import games
from bot.ui.names import plain_name
from bot.ui.words import present


class Pictures:
    """The seam between services and the renderer: what can be drawn (the game's declaration), and
    drawing it (the game's presentation)."""

    def has_table(self, game: str) -> bool:
        return games.declaration(game).table_picture

    def has_grid(self, game: str) -> bool:
        """Games with a score picture: Carnival its grid, the other trick games the generic sheet."""
        return games.declaration(game).score_sheet != "none"

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return present(view["game"]).table_caption(view, names, lang)

    def grid_caption(self, sheet: dict[str, Any], names: list[str], lang: str, game: str,
                     totals: list[int] | None = None) -> str:
        return present(game).score_caption(sheet, names, lang, totals)

    def standings_caption(self, names: list[str], totals: list[int], lang: str) -> str:
        from bot.render import caption_standings

        return caption_standings(names, totals, lang)

    @staticmethod
    def render(spec: dict[str, Any]) -> bytes:
        """Draw a picture spec (runs in a worker thread; pure)."""
        from bot.render import render_standings

        spec = {**spec, "names": [plain_name(n) for n in spec.get("names") or []]}  # no RTL tricks in pictures
        kind = spec["kind"]
        if kind == "table":
            return present(spec["view"]["game"]).draw_table(spec["view"], spec["names"], spec["lang"])
        if kind == "grid":
            game = spec.get("game", "carnival")  # pictures queued before specs named their game were grids
            return present(game).draw_score(spec["sheet"], spec["names"], spec["lang"], spec.get("totals"),
                                                    spec.get("current"))
        if kind == "standings":
            return render_standings(spec["names"], spec["totals"], spec["lang"])
        if kind.startswith("league_"):  # the league's pictures (bot/render/league.py)
            from bot.render.league import render_league

            return render_league(spec)
        raise ValueError(f"unknown picture kind {kind!r}")

    @staticmethod
    def warm_up() -> None:
        """Pay the renderer's one-time costs (palette, fonts) before the first move needs a picture."""
        from bot.render.layout import fixed_palette

        fixed_palette()
