"""The bot's side of a game, as one typed interface: ``Presentation``.

Each game with a chat table has ``games/<id>/present.py`` defining ``PRESENTATION``, an instance of a
subclass of ``Presentation``. The bot asks it for every per-game word and picture (button labels, log
lines, the table and hand texts, the score sheet's columns and legend, the table picture, keyboard
grouping, when to post a fresh table message, the words of its kind of hand); what a game does not
override is the trick-game default. The registry (``bot/presentation/registry.py``) finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import games
from bot.render.captions import caption_sheet, caption_table
from bot.render.palette import INK, RED, STRONG
from bot.render.sheet import render_sheet
from bot.render.table import render_table
from bot.ui import words
from bot.ui.i18n import GameWords, t
from games.declaration import Declaration

if TYPE_CHECKING:
    from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

    from engine.core import State


class NoPresentation(LookupError):
    """A registered game whose ``present.py`` is missing or wrong (or a game that is not registered)."""


@dataclass(frozen=True)
class BuilderPress:
    """What a press on a game's card-by-card builder comes to: ``refusal`` (one line for the presser), or
    ``action`` (a submitted build, in the engine's notation, to play), or neither (show the builder)."""

    refusal: str | None = None
    action: str | None = None


class Presentation:
    """Defaults are the trick games' words and pictures; a game overrides what differs.

    ``pick_verbs``: the verbs whose many card sets are chosen card by card (None: any verb with more
    than ``MULTI_SELECT_OVER`` actions; an empty set: never). The kind of hand (the declaration's
    ``hand``) says which of the hand methods below the bot calls: ``builder_*`` for a ``capture`` hand,
    ``toggle_verbs``, ``verb_label``, ``refusal``, ``lay_text``, ``proposal_lines``, ``hint`` for a
    ``toggle`` hand."""

    pick_verbs: frozenset[str] | None = None

    # -- the card-by-card builder (a ``capture`` hand) -------------------------------------------------
    def builder_press(self, state: State, seat: int, card: str, mask: int, submit: bool, lang: str) -> BuilderPress:
        """Checks a builder press (``card`` from the seat's hand, the table cards of ``mask`` chosen) against
        the state; on ``submit``, the action it builds. Games without a builder refuse every press."""
        return BuilderPress(refusal=t(lang, "That move is not available."))

    def builder_keyboard(self, state: State, table_id: int, version: int, card: str, mask: int,
                         lang: str) -> tuple[str, InlineKeyboardMarkup]:
        """The builder's line (under the hand text) and keyboard for a press ``builder_press`` let through."""
        raise NoPresentation(f"{self.game} has no card-by-card builder")

    # -- the toggle hand (a ``toggle`` hand: cards toggled, a lay-down proposed and confirmed) ----------
    toggle_verbs: tuple[str, ...] = ()  # the moves besides a lay-down, one button each (in this order)
    # Those of ``toggle_verbs`` that give up a lay-down in progress (Machiavelli's abandon): offered, when
    # the engine allows them, only while the player has one (cards chosen, or a proposal shown).
    takeback_verbs: frozenset[str] = frozenset()

    def verb_label(self, verb: str, lang: str) -> str:
        """The button of a toggle hand's verb."""
        return self.action_label(verb, lang)

    def refusal(self, reason: str, lang: str) -> str:
        """One line saying why the engine refused a lay-down (its reason), in ``lang``."""
        return reason

    def lay_text(self, cards: Sequence[int]) -> str:
        """Cards of a lay-down or a meld (engine ints) as text."""
        raise NoPresentation(f"{self.game} has no toggle hand")

    def proposal_lines(self, view: dict[str, Any], lang: str) -> list[str]:
        """The proposed table as text lines (when the bot sends no pictures)."""
        raise NoPresentation(f"{self.game} has no toggle hand")

    def hint(self, state: State, seat: int) -> list[int]:
        """The cards (engine ints) the Hint button selects: the best lay-down now (empty: none)."""
        return []

    def __init__(self, game: str) -> None:
        self.game = game
        self.declaration: Declaration = games.declaration(game)
        self.words = GameWords(game)

    # -- words ------------------------------------------------------------------------------
    def title(self, lang: str) -> str:
        """The game's one name in ``lang``."""
        return self.words.t(lang, self.declaration.title)

    def action_label(self, action: str, lang: str) -> str:
        """The text of a button for ``action``."""
        return words.trick_action_label(action, lang)

    def event_line(self, event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
        """One log line for the group, or None for an event the log does not show."""
        return words.trick_event_line(event, names, lang)

    def table_lines(self, view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
        """What the group (or a player, above their hand) needs to know about the table now."""
        return words.trick_table_lines(view, names, lang)

    def option_label(self, key: str, lang: str) -> str:
        """What a house rule does, in ``lang`` (the declaration's description)."""
        return self.words.t(lang, self.declaration.option(key).description)

    def hand_text(self, view: dict[str, Any], names: Sequence[str], lang: str, chat_title: str, live: bool,
                  chosen: Sequence[int] = ()) -> str:
        """A player's DM: the table facts, their hand, and whether it is their turn (``chosen``: the hand
        cards a toggle hand has selected)."""
        lines = [words.name(chat_title)] if chat_title else []
        lines += self.table_lines(view, names, lang)
        if view.get("hand") is not None:
            lines.append("")
            lines.append(t(lang, "Your hand: {cards}", cards=words.cards(view["hand"]) or "—"))
        if view.get("over"):
            lines.append(t(lang, "The game is over."))
        elif live:
            extra = ""
            if view.get("forbidden_bid") is not None:
                extra = " " + t(lang, "(you may not bid {n})", n=view["forbidden_bid"])
            lines.append("👉 <b>" + t(lang, "Your turn.") + "</b>" + extra)
        else:
            lines.append(t(lang, "Waiting for {who}.", who=words.seat_names(names, view.get("to_act"))))
        return "\n".join(lines)

    # -- keyboards --------------------------------------------------------------------------
    def group_key(self, action: str) -> str:
        """Actions with the same key share one button that opens a second step (default: the first two
        words of actions with more than two: ``play JK over`` / ``play JK under``)."""
        parts = action.split()
        return " ".join(parts[:2]) if len(parts) > 2 else action

    def group_label(self, first_action: str, lang: str) -> str:
        """The button that opens a second step (``play JK`` → 🃏)."""
        parts = first_action.split()
        if parts[0] == "play":
            return words.cards([parts[1]])
        return self.action_label(" ".join(parts[:2]), lang)

    def menu_buttons(self, table_id: int, version: int, actions: Sequence[str],
                     lang: str) -> list[list[InlineKeyboardButton]]:
        """The game's own rows under a second step (a capture hand: the button that opens its builder)."""
        return []

    def log_fold(self, event: dict[str, Any], names: Sequence[str], lang: str) -> tuple[str, str] | None:
        """For a game whose lines go to the group's log (``forced_moves_play``): an event that repeats
        often, as (the line's head, this event's part); a run of them folds into one line, the head and
        the parts joined by commas (Svinya's kept cards). None: the event's own line."""
        return None

    # -- the table message --------------------------------------------------------------------
    def table_chapter(self, view: dict[str, Any]) -> str | None:
        """Games without deals (or with long ones): a key that changes when the group should get a
        fresh table message rather than an edit (None: one message per deal)."""
        return None

    def mark_view(self, view: dict[str, Any], events: Sequence[dict[str, Any]],
                  memory: dict[str, Any]) -> dict[str, Any]:
        """The public view to show after ``events``, with what the game marks on it (the rummies: the melds
        the last lay-down changed). ``memory``: the table's own notes, saved with the table; a game keeps
        its keys there. Default: the view as it is."""
        return view

    # -- pictures -----------------------------------------------------------------------------
    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        """PNG of the table (games whose declaration says ``table_picture``)."""
        return render_table(view, names, lang)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return caption_table(view, names, lang)

    def draw_score(self, sheet: dict[str, Any], names: list[str], lang: str, totals: list[int] | None = None,
                   current: Any = None) -> bytes:
        """PNG of the score sheet: the generic sheet (``score_sheet="sheet"``); a game whose declaration says
        ``grid`` draws its own score picture (it overrides this)."""
        if self.declaration.score_sheet == "sheet":
            return render_sheet(self, sheet, names, _totals(sheet, totals), lang)
        raise NoPresentation(f"{self.game} declares no score sheet of the generic kind")

    def score_caption(self, sheet: dict[str, Any], names: list[str], lang: str,
                      totals: list[int] | None = None) -> str:
        if self.declaration.score_sheet == "sheet":
            return caption_sheet(self, sheet, names, _totals(sheet, totals), lang)
        raise NoPresentation(f"{self.game} declares no score sheet of the generic kind")

    # -- the generic score sheet's columns (bot/render/sheet.py) ----------------------------------
    def sheet_title(self, lang: str) -> str:
        return self.title(lang)

    def sheet_row_label(self, deal: dict[str, Any], lang: str) -> str:
        """The left label of a deal's row: its number and the facts of that deal (default: the trump)."""
        label = str(deal.get("deal_no", ""))
        if deal.get("annulled"):
            return f"{label} ✕"
        shown = words.suit_symbol(deal.get("trump"))
        return f"{label} · {shown}" if shown else label

    def sheet_mark(self, deal: dict[str, Any], seat: int) -> str:
        """The small mark left of a seat's points in a deal ("" when none)."""
        return ""

    def sheet_colors(self, deal: dict[str, Any], seat: int) -> tuple[Any, Any, bool]:
        """(mark colour, points colour, points bold) of a seat's cell."""
        return STRONG, RED if deal["points"][seat] < 0 else INK, False

    def sheet_legend(self, lang: str) -> str | None:
        """One line under the sheet that explains the marks (None: no legend)."""
        return None



Label = Callable[[str, str], "str | None"]
Line = Callable[[dict[str, Any], Sequence[str], str], "str | None"]
Lines = Callable[[dict[str, Any], Sequence[str], str], list[str]]


class ModuleWords(Presentation):
    """A presentation whose words are functions of the game's module: ``lines`` (the table text), ``line``
    (an event's log line; None: the trick-game line, "": the log does not show it) and ``label`` (a button's
    text; None or "": the trick-game label)."""

    def __init__(self, game: str, *, lines: Lines, line: Line | None = None, label: Label | None = None) -> None:
        super().__init__(game)
        self._lines, self._line, self._label = lines, line, label

    def action_label(self, action: str, lang: str) -> str:
        label = self._label(action, lang) if self._label is not None else None
        return label or super().action_label(action, lang)

    def event_line(self, event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
        line = self._line(event, names, lang) if self._line is not None else None
        return super().event_line(event, names, lang) if line is None else line or None

    def table_lines(self, view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
        return self._lines(view, names, lang)


def _totals(sheet: dict[str, Any], totals: list[int] | None) -> list[int]:
    return list(totals if totals is not None else sheet.get("totals") or [])
