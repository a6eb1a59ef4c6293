"""Which pictures the group gets, and drawing them (Pillow, in bot/render).

Services describe a picture as plain data (``{"kind": "table", "view": ..., "names": ..., "lang": ...}``)
and the outbox draws it when it is about to send it (see ``outbox.send_picture``).
"""

from __future__ import annotations

from typing import Any

from bot.rummy import RUMMIES
from bot.ui.names import plain_name

TRICK_GAMES = frozenset({"carnival", "oh_hell", "klaberjass", "calabrasella", "variety"})
TABLE_GAMES = TRICK_GAMES | {"karusele"} | RUMMIES  # games with a table picture (Karusele: bot/render/karusele.py;
# the rummies: bot/rummy/render.py)
GRID_GAMES = frozenset({"carnival"})


class Pictures:
    """The seam between services and the renderer: what can be drawn, and drawing it."""

    def has_table(self, game: str) -> bool:
        return game in TABLE_GAMES

    def has_grid(self, game: str) -> bool:
        """Every trick game gets a score picture: Carnival its grid, the others the generic sheet."""
        return game in TRICK_GAMES or game in RUMMIES

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        from bot.render import caption_table

        if view.get("game") in RUMMIES:
            from bot.rummy.words import caption

            return caption(view, names, lang)
        if view.get("game") == "karusele":  # the table's own words, as the text table has them
            from bot.render.captions import _cap
            from bot.ui.words import table_lines

            return _cap(table_lines(view, names, lang))
        return caption_table(view, names, lang)

    def grid_caption(self, sheet: dict[str, Any], names: list[str], lang: str, game: str = "carnival",
                     totals: list[int] | None = None) -> str:
        from bot.render import caption_grid, caption_sheet

        if game in RUMMIES:
            from bot.rummy.render import sheet_caption

            return sheet_caption(game, sheet, names, lang)
        if game in GRID_GAMES:
            return caption_grid(sheet, names, lang, totals)
        return caption_sheet(game, sheet, names, list(totals if totals is not None else sheet.get("totals") or []),
                             lang)

    def standings_caption(self, names: list[str], totals: list[int], lang: str) -> str:
        from bot.render import caption_standings

        return caption_standings(names, totals, lang)

    @staticmethod
    def render(spec: dict[str, Any]) -> bytes:
        """Draw a picture spec (runs in a worker thread; pure)."""
        from bot.render import render_grid, render_sheet, render_standings, render_table

        spec = {**spec, "names": [plain_name(n) for n in spec.get("names") or []]}  # no RTL tricks in pictures
        kind = spec["kind"]
        if kind == "table":
            if spec["view"].get("game") in RUMMIES:
                from bot.rummy.render import render_table as render_rummy

                return render_rummy(spec["view"], spec["names"], spec["lang"])
            if spec["view"].get("game") == "karusele":
                from bot.render.karusele import render_karusele

                return render_karusele(spec["view"], spec["names"], spec["lang"])
            return render_table(spec["view"], spec["names"], spec["lang"])
        if kind == "grid":
            game = spec.get("game", "carnival")
            if game in RUMMIES:
                from bot.rummy.render import render_sheet as render_rummy_sheet

                return render_rummy_sheet(game, spec["sheet"], spec["names"], spec["lang"])
            if game in GRID_GAMES:
                return render_grid(spec["sheet"], spec["names"], spec.get("current"), spec["lang"], spec.get("totals"))
            totals = spec.get("totals")
            return render_sheet(game, spec["sheet"], spec["names"],
                                list(totals if totals is not None else spec["sheet"].get("totals") or []), spec["lang"])
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
