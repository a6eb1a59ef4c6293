"""Carnival words: the trick games' defaults, plus the Carnival pair (two tricks at once) and the
quarters' results. Its score picture is the quarter grid (the declaration's ``score_sheet="grid"``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import Presentation
from bot.ui import words
from bot.ui.i18n import GameWords
from engine.cards import pretty_text

t = GameWords("carnival").t  # the game's own catalog (games/carnival/locale), then the bot's


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


PRESENTATION = Carnival("carnival")
