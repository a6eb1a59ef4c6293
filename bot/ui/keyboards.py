"""Inline keyboards: the lobby, the language choice, and a player's legal actions.

Actions that share their first two words (``play JK over`` / ``play JK under``) become one
button that opens a second step, so a hand keyboard shows each card once.
"""

from __future__ import annotations

from collections.abc import Sequence

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.ui.callbacks import Lang, Lobby, Menu, Move
from bot.ui.i18n import t
from bot.ui.words import action_label, group_label


def group_actions(legal: Sequence[str]) -> list[list[int]]:
    """Indices of ``legal`` grouped by their first two words, in first-seen order."""
    groups: dict[str, list[int]] = {}
    for i, action in enumerate(legal):
        words = action.split()
        key = " ".join(words[:2]) if len(words) > 2 else action
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def _rows(buttons: list[InlineKeyboardButton]) -> list[list[InlineKeyboardButton]]:
    longest = max((len(b.text) for b in buttons), default=0)
    width = 1 if longest > 14 else 2 if longest > 9 else 4 if longest > 4 else 6
    return [buttons[i:i + width] for i in range(0, len(buttons), width)]


def play_keyboard(game: str, table_id: int, version: int, legal: Sequence[str], lang: str,
                  group: int | None = None) -> InlineKeyboardMarkup:
    """The top level of a player's choices, or the second step of one group."""
    groups = group_actions(legal)
    buttons: list[InlineKeyboardButton] = []
    if group is None or not 0 <= group < len(groups):
        for g, members in enumerate(groups):
            if len(members) == 1:
                i = members[0]
                data = Move(t=table_id, v=version, i=i).pack()
                buttons.append(InlineKeyboardButton(text=action_label(game, legal[i], lang), callback_data=data))
            else:
                data = Menu(t=table_id, v=version, g=g).pack()
                text = group_label(game, legal[members[0]], lang) + " …"
                buttons.append(InlineKeyboardButton(text=text, callback_data=data))
        return InlineKeyboardMarkup(inline_keyboard=_rows(buttons))
    for i in groups[group]:
        buttons.append(InlineKeyboardButton(text=action_label(game, legal[i], lang),
                                            callback_data=Move(t=table_id, v=version, i=i).pack()))
    rows = _rows(buttons)
    rows.append([InlineKeyboardButton(text="« " + t(lang, "Back"),
                                      callback_data=Menu(t=table_id, v=version, g=-1).pack())])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def lobby_keyboard(table_id: int, lang: str, has_options: bool) -> InlineKeyboardMarkup:
    def b(text: str, op: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(text=text, callback_data=Lobby(t=table_id, op=op).pack())

    rows = [
        [b("✋ " + t(lang, "Join"), "join"), b(t(lang, "Leave"), "leave")],
        [b("🤖 " + t(lang, "Add AI"), "ai"), b("▶️ " + t(lang, "Start"), "start")],
    ]
    last = [b("✖️ " + t(lang, "Cancel"), "cancel")]
    if has_options:
        last.insert(0, b("⚙️ " + t(lang, "House rules"), "opts"))
    rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def options_keyboard(table_id: int, lang: str, choices: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    """One button per option that has a short list of values: pressing it moves to the next value."""
    rows = [[InlineKeyboardButton(text=f"{name}: {value}", callback_data=Lobby(t=table_id, op="opt", k=name).pack())]
            for name, value in choices]
    rows.append([InlineKeyboardButton(text="« " + t(lang, "Back"), callback_data=Lobby(t=table_id, op="back").pack())])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def join_link_keyboard(bot_username: str, payload: str, lang: str) -> InlineKeyboardMarkup:
    url = f"https://t.me/{bot_username}?start={payload}"
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text=t(lang, "Open the bot"), url=url)]])


def language_keyboard(scope: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(text="English", callback_data=Lang(scope=scope, lang="en").pack()),
        InlineKeyboardButton(text="Русский", callback_data=Lang(scope=scope, lang="ru").pack()),
    ]])
