"""The bot's side of a game, as one typed interface: ``Presentation``.

Each game with a chat table has ``games/<id>/present.py`` defining ``PRESENTATION``, an instance of a
subclass of ``Presentation``. The bot asks it for every per-game word and picture (button labels, log
lines, the table text, the score sheet's columns and legend, the table picture, keyboard grouping, when
to post a fresh table message); what a game does not override is the trick-game default. The registry
(``presentation(game)``) imports the module named by ``games.REGISTERED``; a game without one, or one
that defines the wrong thing, is an error, never a silent default.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import games
from bot.ui import words
from bot.ui.i18n import GameWords
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
    than ``keyboards.MULTI_SELECT_OVER`` actions; an empty set: never). ``capture_builder``: the game's
    captures may be built card by card (Karusele's builder, ``bot/services/capture.py``)."""

    pick_verbs: frozenset[str] | None = None
    capture_builder: bool = False  # Karusele's card-by-card capture (bot/services/capture.py) applies

    # -- the card-by-card builder (games with ``capture_builder``) ----------------------------------
    def builder_press(self, state: State, seat: int, card: str, mask: int, submit: bool, lang: str) -> BuilderPress:
        """Checks a builder press (``card`` from the seat's hand, the table cards of ``mask`` chosen) against
        the state; on ``submit``, the action it builds. Games without a builder refuse every press."""
        from bot.ui.i18n import t

        return BuilderPress(refusal=t(lang, "That move is not available."))

    def builder_keyboard(self, state: State, table_id: int, version: int, card: str, mask: int,
                         lang: str) -> tuple[str, InlineKeyboardMarkup]:
        """The builder's line (under the hand text) and keyboard for a press ``builder_press`` let through."""
        raise NoPresentation(f"{self.game} has no card-by-card builder")

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
        """The game's own rows under a second step (Karusele: the capture builder)."""
        return []

    # -- the table message --------------------------------------------------------------------
    def table_chapter(self, view: dict[str, Any]) -> str | None:
        """Games without deals (or with long ones): a key that changes when the group should get a
        fresh table message rather than an edit (None: one message per deal)."""
        return None

    # -- pictures -----------------------------------------------------------------------------
    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        """PNG of the table (games whose declaration says ``table_picture``)."""
        from bot.render import render_table

        return render_table(view, names, lang)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        from bot.render import caption_table

        return caption_table(view, names, lang)

    def draw_score(self, sheet: dict[str, Any], names: list[str], lang: str, totals: list[int] | None = None,
                   current: Any = None) -> bytes:
        """PNG of the score sheet, as the declaration's ``score_sheet`` kind says."""
        from bot.render import render_grid, render_sheet

        kind = self.declaration.score_sheet
        if kind == "grid":
            return render_grid(sheet, names, current, lang, totals)
        if kind == "sheet":
            return render_sheet(self, sheet, names, _totals(sheet, totals), lang)
        raise NoPresentation(f"{self.game} declares no score sheet")

    def score_caption(self, sheet: dict[str, Any], names: list[str], lang: str,
                      totals: list[int] | None = None) -> str:
        from bot.render import caption_grid, caption_sheet

        kind = self.declaration.score_sheet
        if kind == "grid":
            return caption_grid(sheet, names, lang, totals)
        if kind == "sheet":
            return caption_sheet(self, sheet, names, _totals(sheet, totals), lang)
        raise NoPresentation(f"{self.game} declares no score sheet")

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
        from bot.render.grid import INK, RED, STRONG

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


@cache
def presentation(game: str) -> Presentation:
    """The presentation of ``game`` (``games/<game>/present.py: PRESENTATION``); NoPresentation when the
    game is unknown, has no chat table yet, or its module is missing or defines something else."""
    try:
        declared = games.declaration(game)
    except games.UnknownGame as exc:
        raise NoPresentation(str(exc)) from None
    try:
        module = importlib.import_module(f"games.{game}.present")
    except ModuleNotFoundError as exc:
        if exc.name != f"games.{game}.present":
            raise
        why = "" if declared.chat_table else " (its declaration says: no chat table yet)"
        raise NoPresentation(f"games/{game}/present.py is missing{why}") from None
    found = getattr(module, "PRESENTATION", None)
    if not isinstance(found, Presentation) or found.game != game:
        raise NoPresentation(f"games/{game}/present.py must define PRESENTATION, a Presentation for {game!r}")
    return found
