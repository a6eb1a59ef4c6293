"""The ``buttons`` hand (and the move buttons of a ``capture`` hand): one button per legal move.

Actions that share their first two words (``play JK over`` / ``play JK under``) become one button that
opens a second step, so a hand keyboard shows each card once; a verb with too many card sets is chosen card
by card (``pick_keyboard``). Words and grouping come from the game's presentation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.presentation.registry import presentation
from bot.ui.callbacks import Menu, Move, Pick
from bot.ui.i18n import t
from engine.cards import pretty_text

MULTI_SELECT_OVER = 40  # a verb with more choices than this is chosen card by card


def multi_select_verbs(legal: Sequence[str], game: str = "") -> dict[str, list[int]]:
    """Verbs that take a set of cards and have too many combinations for one button each
    (a game's ``Presentation.pick_verbs`` limits which verbs may be chosen card by card)."""
    allowed = presentation(game).pick_verbs if game else None
    by_verb: dict[str, list[int]] = {}
    for i, action in enumerate(legal):
        by_verb.setdefault(action.split()[0], []).append(i)
    return {verb: idx for verb, idx in by_verb.items()
            if len(idx) > MULTI_SELECT_OVER and (allowed is None or verb in allowed)}


def selection_candidates(legal: Sequence[str], verb: str) -> list[str]:
    """The cards a selection for ``verb`` can contain, each as often as an action may use it."""
    most: dict[str, int] = {}
    for action in legal:
        words = action.split()
        if words[0] != verb:
            continue
        counts: dict[str, int] = {}
        for card in words[1:]:
            counts[card] = counts.get(card, 0) + 1
        for card, n in counts.items():
            most[card] = max(most.get(card, 0), n)
    return [card for card, n in most.items() for _ in range(n)]


def selected_action(legal: Sequence[str], verb: str, mask: int) -> int | None:
    """The index of the legal action whose cards are exactly the selection, if there is one."""
    candidates = selection_candidates(legal, verb)
    chosen = sorted(card for i, card in enumerate(candidates) if mask >> i & 1)
    for i, action in enumerate(legal):
        words = action.split()
        if words[0] == verb and sorted(words[1:]) == chosen:
            return i
    return None


def group_actions(legal: Sequence[str], game: str = "") -> list[list[int]]:
    """Indices of ``legal`` grouped by their first two words, in first-seen order (multi-select
    verbs are left out: they get one button that opens the card-by-card choice). A game's
    ``Presentation.group_key`` may group differently (e.g. by the hand card)."""
    multi = multi_select_verbs(legal, game)
    custom = presentation(game).group_key if game else None
    groups: dict[str, list[int]] = {}
    for i, action in enumerate(legal):
        words = action.split()
        if words[0] in multi:
            continue
        if custom is not None:
            key = custom(action)
        else:
            key = " ".join(words[:2]) if len(words) > 2 else action
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def _rows(buttons: list[dict[str, str]]) -> list[list[dict[str, str]]]:
    longest = max((len(b["text"]) for b in buttons), default=0)
    width = 1 if longest > 14 else 2 if longest > 9 else 4 if longest > 4 else 6
    return [buttons[i:i + width] for i in range(0, len(buttons), width)]


def _button(text: str, data: str) -> dict[str, str]:
    """A button as the Bot API's JSON (what ``InlineKeyboardButton(...).model_dump(exclude_none=True)`` gives)."""
    return {"text": text, "callback_data": data}


def _pack(prefix: str, *values: int) -> str:
    """``CallbackData.pack`` for integer fields, without building the model (a hand keyboard packs a
    dozen): ints hold no separator and a few of them stay far under the 64 bytes."""
    return ":".join([prefix, *map(str, values)])


_MOVE, _MENU = Move.__prefix__, Menu.__prefix__


def _play_rows(game: str, table_id: int, version: int, legal: Sequence[str], lang: str,
               group: int | None) -> list[list[dict[str, str]]] | None:
    """The rows of ``play_markup`` as JSON buttons; None when it is a pick keyboard."""
    shown = presentation(game)
    groups = group_actions(legal, game)
    multi = multi_select_verbs(legal, game)
    if multi and not groups and len(multi) == 1:
        return None
    buttons: list[dict[str, str]] = []
    if group is None or not 0 <= group < len(groups):
        for verb in multi:
            data = Pick(t=table_id, v=version, w=verb, m=0).pack()
            buttons.append(_button(shown.action_label(verb, lang) + " …", data))
        for g, members in enumerate(groups):
            if len(members) == 1:
                i = members[0]
                buttons.append(_button(shown.action_label(legal[i], lang), _pack(_MOVE, table_id, version, i)))
            else:
                text = shown.group_label(legal[members[0]], lang) + " …"
                buttons.append(_button(text, _pack(_MENU, table_id, version, g)))
        return _rows(buttons)
    for i in groups[group]:
        buttons.append(_button(shown.action_label(legal[i], lang), _pack(_MOVE, table_id, version, i)))
    rows = _rows(buttons)
    # a game's own rows under a second step (a capture hand: its builder)
    rows += [[b.model_dump(mode="json", exclude_none=True) for b in row]
             for row in shown.menu_buttons(table_id, version, [legal[i] for i in groups[group]], lang)]
    rows.append([_button("« " + t(lang, "Back"), _pack(_MENU, table_id, version, -1))])
    return rows


def play_markup(game: str, table_id: int, version: int, legal: Sequence[str], lang: str,
                group: int | None = None) -> dict[str, Any]:
    """The top level of a player's choices, or the second step of one group, as the JSON the outbox stores
    and sends: built without pydantic models, it is the keyboard of every hand message of every move (~70 us
    a keyboard as models, bench/bot.py --sample)."""
    rows = _play_rows(game, table_id, version, legal, lang, group)
    if rows is None:
        multi = multi_select_verbs(legal, game)
        markup = pick_keyboard(game, table_id, version, legal, next(iter(multi)), 0, lang, back=False)
        return markup.model_dump(mode="json", exclude_none=True)
    return {"inline_keyboard": rows}


def pick_keyboard(game: str, table_id: int, version: int, legal: Sequence[str], verb: str, mask: int,
                  lang: str, back: bool = True) -> InlineKeyboardMarkup:
    """Toggle cards on and off, then submit: for actions like ``discard C C C``."""
    candidates = selection_candidates(legal, verb)
    label = presentation(game).action_label(verb, lang)
    buttons: list[dict[str, str]] = []
    for i, card in enumerate(candidates):
        mark = "✅ " if mask >> i & 1 else ""
        data = Pick(t=table_id, v=version, w=verb, m=mask ^ (1 << i)).pack()
        buttons.append(_button(mark + pretty_text(card), data))
    rows: list[list[Any]] = [[InlineKeyboardButton.model_validate(b) for b in row] for row in _rows(buttons)]
    count = bin(mask).count("1")
    ready = selected_action(legal, verb, mask) is not None
    done = f"{label} ({count}) ✔️" if ready else f"{label} ({count})"
    last = [InlineKeyboardButton(text=done, callback_data=Pick(t=table_id, v=version, w=verb, m=mask, go=1).pack())]
    if back:
        last.append(InlineKeyboardButton(text="« " + t(lang, "Back"),
                                         callback_data=Menu(t=table_id, v=version, g=-1).pack()))
    rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)
