"""The rummies' presentation: every rummy's ``games/<id>/present.py`` is one instance of
``RummyPresentation``. Words, the text table, the table picture and the penalty sheet come from this
package; the DM hand is the bot's toggle hand (the declaration's ``hand="toggle"``), which asks this
presentation for its words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import Presentation
from engine.core import State
from engine.rummy.base import RummyState, parse_lay
from engine.rummy.largest import largest_lay
from games.rummies import marks, picture
from games.rummies import words as rwords


class RummyPresentation(Presentation):
    pick_verbs: frozenset[str] | None = frozenset()  # the hand is toggled card by card
    toggle_verbs = ("draw", "pass", "knock", "end", "abandon")
    takeback_verbs = frozenset({"abandon"})  # the penalty for giving up a started lay-down (RULES.md 9.1)

    def action_label(self, action: str, lang: str) -> str:
        return rwords.action_label(action, lang) or action

    def event_line(self, event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
        return rwords.event_line(event, names, lang)

    def table_lines(self, view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
        return rwords.table_lines(view, names, lang)

    def hand_text(self, view: dict[str, Any], names: Sequence[str], lang: str, chat_title: str, live: bool,
                  chosen: Sequence[int] = ()) -> str:
        return rwords.hand_text(view, names, lang, chat_title, live, chosen)

    def mark_view(self, view: dict[str, Any], events: Sequence[dict[str, Any]],
                  memory: dict[str, Any]) -> dict[str, Any]:
        """The melds the last lay-down changed, marked on the table (``marks.py``)."""
        return marks.mark_view(memory, view, events)

    # -- the toggle hand's words ---------------------------------------------------------------
    def verb_label(self, verb: str, lang: str) -> str:
        return rwords.verb_label(verb, lang) or verb

    def refusal(self, reason: str, lang: str) -> str:
        return rwords.reason(reason, lang)

    def lay_text(self, cards: Sequence[int]) -> str:
        return rwords.meld_text(cards)

    def proposal_lines(self, view: dict[str, Any], lang: str) -> list[str]:
        return rwords.table_text(view, lang, 3000)

    def hint(self, state: State, seat: int) -> list[int]:
        """The cards of the largest lay-down that goes now (the AI's own choice: the solver's best subset,
        or, when a game's rule refuses that, the largest lay-down of the engine's sample)."""
        assert isinstance(state, RummyState)
        lay = largest_lay(state)
        if lay is None:
            lays = [a for a in state.legal_actions() if a.startswith("lay ")]
            lay = max(lays, key=lambda a: (len(parse_lay(a)[0]), a)) if lays else None
        return parse_lay(lay)[0] if lay is not None else []

    # -- pictures ---------------------------------------------------------------------------------
    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        return picture.render_table(view, names, lang)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return rwords.caption(view, names, lang)

    def draw_score(self, sheet: dict[str, Any], names: list[str], lang: str, totals: list[int] | None = None,
                   current: Any = None) -> bytes:
        return picture.render_sheet(self.game, sheet, names, lang)

    def score_caption(self, sheet: dict[str, Any], names: list[str], lang: str,
                      totals: list[int] | None = None) -> str:
        return picture.sheet_caption(self.game, sheet, names, lang)
