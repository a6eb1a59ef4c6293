"""The toggle hand's keyboards: the hand as toggle buttons (sorted by suit and rank, one row per suit),
the turn's verbs (the presentation's ``toggle_verbs``), the proposal's Confirm/Back and the joker question.

Telegram allows 100 buttons and 64 bytes of data per button: a hand of more than ``PAGE`` cards
(a long deal of a double pack) is shown in pages, and each button carries only one card index (the
selection is kept on the server, see ``selection.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.presentation.base import Presentation
from bot.services.hands.selection import Selection
from bot.ui.callbacks import Toggle
from bot.ui.i18n import t
from engine.cards import parse_card, pretty, rank_of, suit_of

PAGE = 80  # card buttons per page: with the verbs and page buttons well under Telegram's 100
ROW = 8  # Telegram shows at most 8 buttons in a row


def display_order(hand: Sequence[str]) -> list[int]:
    """Hand indices by suit (S H D C) and ascending rank (runs read left to right), jokers last."""
    def key(i: int) -> tuple[int, int]:
        code = parse_card(hand[i])
        return (9, 0) if code >= 64 else (suit_of(code), rank_of(code))
    return sorted(range(len(hand)), key=key)


def hand_keyboard(present: Presentation, table_id: int, version: int, hand: Sequence[str], sel: Selection,
                  verbs: Sequence[str], may_lay: bool, lang: str) -> InlineKeyboardMarkup:
    """The hand's cards (selected ones ticked), its pages, Lay down / Hint / Clear, and the legal ``verbs``
    (each carries its index in the presentation's ``toggle_verbs``)."""
    order = display_order(hand)
    pages = max(1, -(-len(order) // PAGE))
    page = min(max(sel.page, 0), pages - 1)
    shown = order[page * PAGE:(page + 1) * PAGE]
    chosen = set(sel.chosen)
    rows: list[list[InlineKeyboardButton]] = []
    suit = None
    for i in shown:
        code = parse_card(hand[i])
        this = 9 if code >= 64 else suit_of(code)
        if suit != this or len(rows[-1]) >= ROW:
            rows.append([])
            suit = this
        on = i in chosen
        data = Toggle(t=table_id, v=version, op="off" if on else "on", a=i).pack()
        rows[-1].append(InlineKeyboardButton(text=("✅" if on else "") + pretty(code), callback_data=data))
    if pages > 1:
        rows.append([InlineKeyboardButton(text=f"{'▶' if p == page else ''}{p + 1}/{pages}",
                                          callback_data=Toggle(t=table_id, v=version, op="pg", a=p).pack())
                     for p in range(pages)])
    if may_lay:
        def button(text: str, op: str) -> InlineKeyboardButton:
            return InlineKeyboardButton(text=text, callback_data=Toggle(t=table_id, v=version, op=op).pack())
        rows.append([button("🃏 " + t(lang, "Lay down") + f" ({len(chosen)})", "lay"),
                     button("💡 " + t(lang, "Hint"), "hint"), button("↩️ " + t(lang, "Clear"), "undo")])
    verb_row = [InlineKeyboardButton(text=present.verb_label(v, lang),
                                     callback_data=Toggle(t=table_id, v=version, op="do",
                                                          a=present.toggle_verbs.index(v)).pack())
                for v in verbs]
    if verb_row:
        rows.append(verb_row)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def proposal_keyboard(table_id: int, version: int, serial: int, lang: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(text="✅ " + t(lang, "Confirm"), callback_data=Toggle(t=table_id, v=version, op="ok",
                                                                               a=serial).pack()),
        InlineKeyboardButton(text="« " + t(lang, "Back"),
                             callback_data=Toggle(t=table_id, v=version, op="back").pack()),
    ]])


def joker_keyboard(table_id: int, version: int, choices: Sequence[int], lang: str) -> InlineKeyboardMarkup:
    buttons = [InlineKeyboardButton(text=f"🃏 = {pretty(c)}", callback_data=Toggle(t=table_id, v=version, op="jk",
                                                                               a=k).pack())
               for k, c in enumerate(choices)]
    rows = [buttons[i:i + 4] for i in range(0, len(buttons), 4)]
    rows.append([InlineKeyboardButton(text="« " + t(lang, "Back"),
                                      callback_data=Toggle(t=table_id, v=version, op="back").pack())])
    return InlineKeyboardMarkup(inline_keyboard=rows)
