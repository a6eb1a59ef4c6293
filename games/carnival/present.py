"""Carnival words: the trick games' defaults, plus the Carnival pair (two tricks at once) and the
quarters' results. Its score picture is the quarter grid (the declaration's ``score_sheet="grid"``,
drawn by ``grid.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import GameWords, Presentation, caption_table, render_table, words
from engine.cards import pretty_text
from games.carnival.grid import caption_grid, render_grid

t = GameWords("carnival").t  # the game's own catalog (games/carnival/locale), then the bot's

PAIR = "carnival"  # the engine's ``kind`` of a trick played as a pair: the table picture marks it ×2


class Carnival(Presentation):
    """Carnival: a pair played as one move, and a line per quarter."""

    def action_label(self, action: str, lang: str) -> str:
        verb, _, cards = action.partition(" ")
        if verb == "carnival":
            return "🎭 " + pretty_text(cards)
        return super().action_label(action, lang)

    def event_line(self, event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
        kind = event.get("type")
        if kind == "trick" and event.get("count", 1) == 2:
            return t(lang, "🎭 {who} takes the Carnival (2 tricks)", who=words.seat_names(names, event.get("winner")))
        if kind == "quarter_end":
            final = event.get("final") or event.get("result", {}).get("final")
            if final:
                parts = [f"{words.name(n)} {p:+d}" for n, p in zip(names, final, strict=False)]
                return t(lang, "Quarter {q} over: {points}", q=event.get("quarter", "?"), points=", ".join(parts))
            return None
        return super().event_line(event, names, lang)

    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        return render_table(view, names, lang, pair_kind=PAIR)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return caption_table(view, names, lang, pair_kind=PAIR)

    def draw_score(self, sheet: dict[str, Any], names: list[str], lang: str, totals: list[int] | None = None,
                   current: Any = None) -> bytes:
        """The quarter grid (``grid.py``)."""
        return render_grid(sheet, names, current, lang, totals)

    def score_caption(self, sheet: dict[str, Any], names: list[str], lang: str,
                      totals: list[int] | None = None) -> str:
        return caption_grid(sheet, names, lang, totals)


PRESENTATION = Carnival("carnival")
