"""The rummies' presentation (``bot.presentation.Presentation``): every rummy's
``games/<id>/present.py`` is one instance of it. Words, the text table, the table picture and the
penalty sheet come from this package; the DM hand (toggle buttons, the proposal) is
bot/services/rummy_turns.py, which publishing calls for every rummy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import Presentation
from bot.rummy import words as rwords


class RummyPresentation(Presentation):
    pick_verbs: frozenset[str] | None = frozenset()  # the hand is toggled card by card (rummy_turns)

    def action_label(self, action: str, lang: str) -> str:
        return rwords.action_label(action, lang) or action

    def event_line(self, event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
        return rwords.event_line(event, names, lang)

    def table_lines(self, view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
        return rwords.table_lines(view, names, lang)

    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        from bot.rummy.render import render_table

        return render_table(view, names, lang)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return rwords.caption(view, names, lang)

    def draw_score(self, sheet: dict[str, Any], names: list[str], lang: str, totals: list[int] | None = None,
                   current: Any = None) -> bytes:
        from bot.rummy.render import render_sheet

        return render_sheet(self.game, sheet, names, lang)

    def score_caption(self, sheet: dict[str, Any], names: list[str], lang: str,
                      totals: list[int] | None = None) -> str:
        from bot.rummy.render import sheet_caption

        return sheet_caption(self.game, sheet, names, lang)
