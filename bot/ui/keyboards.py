"""Inline keyboards of the lobby, the language choice and the seats (a player's hand keyboards are the
hand kinds' own: ``bot/services/hands/``)."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.ui.callbacks import Hands, Here, Lang, Lobby, Tour, TourOut
from bot.ui.clock_keyboards import clock_button
from bot.ui.i18n import t


def lobby_keyboard(table_id: int, lang: str, has_options: bool) -> InlineKeyboardMarkup:
    def b(text: str, op: str, k: str = "") -> InlineKeyboardButton:
        return InlineKeyboardButton(text=text, callback_data=Lobby(t=table_id, op=op, k=k).pack())

    rows = [
        [b("✋ " + t(lang, "Join"), "join"), b(t(lang, "Leave"), "leave")],
        [b("🤖 " + t(lang, "Add AI"), "ai"), b("▶️ " + t(lang, "Start"), "start")],
        [b("🐣 " + t(lang, "Easy AI"), "ai", "easy"), b("🧠 " + t(lang, "Strong AI"), "ai", "strong")],
    ]
    last = [b("✖️ " + t(lang, "Cancel"), "cancel")]
    if has_options:
        last.insert(0, b("⚙️ " + t(lang, "House rules"), "opts"))
    rows.append(last)
    rows.append([clock_button(table_id, lang)])  # the table's time control (bot/ui/clock_keyboards.py)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def options_keyboard(table_id: int, lang: str, choices: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    """One button per option that has a short list of values: pressing it moves to the next value."""
    rows = [[InlineKeyboardButton(text=f"{name}: {value}", callback_data=Lobby(t=table_id, op="opt", k=name).pack())]
            for name, value in choices]
    rows.append([InlineKeyboardButton(text="« " + t(lang, "Back"), callback_data=Lobby(t=table_id, op="back").pack())])
    return InlineKeyboardMarkup(inline_keyboard=rows)


HAND_LINK, TABLES_LINK = "hand", "mytables"  # deep-link payloads: /start hand does what /hand does in the DM
DM_LINKS = (HAND_LINK, TABLES_LINK)


def join_link_keyboard(bot_username: str, payload: str, lang: str) -> InlineKeyboardMarkup:
    url = f"https://t.me/{bot_username}?start={payload}"
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text=t(lang, "Open the bot"), url=url)]])


def dm_link_keyboard(bot_username: str, payload: str, lang: str) -> InlineKeyboardMarkup:
    """One button that opens the bot's DM with ``/start payload`` (a command that answers only there)."""
    url = f"https://t.me/{bot_username}?start={payload}"
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text=t(lang, "Open my DM"), url=url)]])


def language_keyboard(scope: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(text="English", callback_data=Lang(scope=scope, lang="en").pack()),
        InlineKeyboardButton(text="Русский", callback_data=Lang(scope=scope, lang="ru").pack()),
    ]])


def leave_keyboard(table_id: int, seat: int, lang: str) -> InlineKeyboardMarkup:
    """Confirm handing a seat over mid-game (the seat travels in the data: a press names it): to an AI,
    or to an AI until someone from the group takes it with a Join button."""
    def b(text: str, op: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(text=text, callback_data=Lobby(t=table_id, op=op, k=str(seat)).pack())

    return InlineKeyboardMarkup(inline_keyboard=[
        [b("🤖 " + t(lang, "Yes, an AI takes the seat"), "quit")],
        [b("🙋 " + t(lang, "Yes, someone from the group may take it"), "offer")],
        [b(t(lang, "No, stay"), "stay")],
    ])


def take_seat_keyboard(table_id: int, seat: int, lang: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(
        text="✋ " + t(lang, "Take this seat"), callback_data=Lobby(t=table_id, op="take", k=str(seat)).pack())]])


def tournament_keyboard(tournament_id: int, lang: str) -> InlineKeyboardMarkup:
    """A tournament's registration message: enter or leave; an admin starts it now or cancels it."""
    def b(text: str, op: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(text=text, callback_data=Tour(t=tournament_id, op=op).pack())

    return InlineKeyboardMarkup(inline_keyboard=[
        [b("✋ " + t(lang, "Join"), "join"), b(t(lang, "Leave"), "leave")],
        [b("▶️ " + t(lang, "Start now"), "start"), b("✖️ " + t(lang, "Cancel"), "cancel")],
    ])


def withdraw_keyboard(tournament_id: int, lang: str) -> InlineKeyboardMarkup:
    """Confirm withdrawing from a running tournament (the prompt's buttons are its asker's alone)."""
    def b(text: str, op: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(text=text, callback_data=Tour(t=tournament_id, op=op).pack())

    return InlineKeyboardMarkup(inline_keyboard=[[b("🚪 " + t(lang, "Yes, withdraw"), "wd"),
                                                  b(t(lang, "No, stay"), "stay")]])


def withdraw_player_keyboard(tournament_id: int, player: int, lang: str) -> InlineKeyboardMarkup:
    """The organizer confirms withdrawing ``player`` (the prompt's buttons are its asker's alone)."""
    def b(text: str, op: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(text=text, callback_data=TourOut(t=tournament_id, u=player, op=op).pack())

    return InlineKeyboardMarkup(inline_keyboard=[[b("🚪 " + t(lang, "Yes, withdraw"), "wd"),
                                                  b(t(lang, "No, keep them"), "stay")]])


def choose_table_keyboard(op: str, choices: list[tuple[int, str]]) -> InlineKeyboardMarkup:
    """One button per table (its id and a label): the press does ``op`` to that table."""
    return InlineKeyboardMarkup(inline_keyboard=[
        [InlineKeyboardButton(text=label[:64], callback_data=Here(t=table_id, op=op).pack())]
        for table_id, label in choices])


def hands_keyboard(lang: str) -> InlineKeyboardMarkup:
    """/settings in a group (admins): where the players see their hands."""
    return InlineKeyboardMarkup(inline_keyboard=[
        [InlineKeyboardButton(text="🂠 " + t(lang, "In the group and in DMs"), callback_data=Hands(m="group").pack())],
        [InlineKeyboardButton(text="✉️ " + t(lang, "In DMs only"), callback_data=Hands(m="dm").pack())],
    ])
