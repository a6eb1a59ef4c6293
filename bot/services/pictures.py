"""Which pictures the group gets, and drawing them (Pillow: bot/render, and each game's presentation).

Services describe a picture as plain data (a spec: ``{"kind": "table", "view": ..., "names": ..., "lang":
...}``, one ``TypedDict`` per kind below) and the outbox draws it when it is about to send it (see
``outbox.send_picture``). Specs are stored with the outbox rows as JSON, so they stay plain dicts.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, cast

import games
from bot.presentation.registry import presentation
from bot.ui.names import plain_name


class TablePicture(TypedDict):
    """The table as the group sees it (``view`` names its game)."""

    kind: Literal["table"]
    view: dict[str, Any]
    names: list[str]
    lang: str


class _GridPictureBase(TypedDict):
    kind: Literal["grid"]
    sheet: dict[str, Any]
    names: list[str]
    lang: str


class GridPicture(_GridPictureBase, total=False):
    """A deal's score picture (``game`` missing: a spec queued before specs named their game)."""

    game: str
    totals: list[int] | None
    current: Any


class StandingsPicture(TypedDict):
    """The final places."""

    kind: Literal["standings"]
    names: list[str]
    totals: list[int]
    lang: str


def _older_grid_game() -> str:
    """The game of a grid spec that names none: before specs named their game, only the one game whose
    score picture is a grid of its own (``score_sheet="grid"``) had one."""
    return next(d.id for d in games.declarations() if d.score_sheet == "grid")


class Pictures:
    """The seam between services and the renderer: what can be drawn (the game's declaration), and
    drawing it (the game's presentation)."""

    def has_table(self, game: str) -> bool:
        return games.declaration(game).table_picture

    def has_grid(self, game: str) -> bool:
        """Games with a score picture: a game's own (``grid``) or the generic sheet."""
        return games.declaration(game).score_sheet != "none"

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return presentation(view["game"]).table_caption(view, names, lang)

    def grid_caption(self, sheet: dict[str, Any], names: list[str], lang: str, game: str,
                     totals: list[int] | None = None) -> str:
        return presentation(game).score_caption(sheet, names, lang, totals)

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
            table = cast(TablePicture, spec)
            return presentation(table["view"]["game"]).draw_table(table["view"], table["names"], table["lang"])
        if kind == "grid":
            grid = cast(GridPicture, spec)
            game = grid.get("game") or _older_grid_game()
            return presentation(game).draw_score(grid["sheet"], grid["names"], grid["lang"], grid.get("totals"),
                                                 grid.get("current"))
        if kind == "standings":
            standings = cast(StandingsPicture, spec)
            return render_standings(standings["names"], standings["totals"], standings["lang"])
        if kind == "tournament":  # a tournament's standings (bot/render/tournament.py)
            from bot.render.tournament import render_tournament

            return render_tournament(spec)
        if kind.startswith("league_"):  # the league's pictures (bot/render/league.py)
            from bot.render.league import render_league

            return render_league(spec)
        raise ValueError(f"unknown picture kind {kind!r}")

    @staticmethod
    def warm_up() -> None:
        """Pay the renderer's one-time costs (palette, fonts) before the first move needs a picture."""
        from bot.render.layout import fixed_palette

        fixed_palette()
