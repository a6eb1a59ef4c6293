"""The lobby's clock keyboard: one button per setting, pressing steps it to its next value."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.ui.callbacks import Clk
from bot.ui.clock_words import describe, span
from bot.ui.i18n import t


def clock_button(table_id: int, lang: str) -> InlineKeyboardButton:
    """The main lobby keyboard's way in."""
    return InlineKeyboardButton(text="⏱ " + t(lang, "Clock"), callback_data=Clk(t=table_id, k="open").pack())


def clock_keyboard(table_id: int, lang: str, per_move: float, bank: float, strikes: int,
                   absent: str) -> InlineKeyboardMarkup:
    """The settings keyboard, showing the table's current settings."""

    def b(text: str, key: str) -> list[InlineKeyboardButton]:
        return [InlineKeyboardButton(text=text, callback_data=Clk(t=table_id, k=key).pack())]

    return InlineKeyboardMarkup(inline_keyboard=[
        b("⏱ " + describe(per_move, 0.0, lang), "pm"),
        b("🏦 " + (t(lang, "bank {time}", time=span(bank, lang)) if bank else t(lang, "no bank")), "bk"),
        b("❌ " + (t(lang, "strikes: {n}", n=strikes) if strikes else t(lang, "strikes: never")), "st"),
        b("🤖 " + (t(lang, "then: the AI plays the seat") if absent == "ai"
                   else t(lang, "then: someone may take the seat")), "ab"),
        b("« " + t(lang, "Back"), "back"),
    ])
