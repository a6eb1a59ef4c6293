"""A seat whose player missed too many deadlines: the AI plays it for the rest of the game
("autopilot"), or until someone who is not seated takes it (table option ``absent=replace``).

Its own module because moves (``on_autopilot``, bot/services/play.py) and the clocks (``hand_to_ai``) both
need it, and neither should import the other; the seat stays the player's in the record and
``TableUi.autopilot`` lists it."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.services import outbox as out
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui import words
from bot.ui.callbacks import TakeSeat
from bot.ui.i18n import t


def on_autopilot(row: TableRow, seat: int) -> bool:
    return seat in row.ui.autopilot


def take_keyboard(table_id: int, seat: int, lang: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(
        text="🙋 " + t(lang, "Take the seat"), callback_data=TakeSeat(t=table_id, s=seat).pack())]])


async def hand_to_ai(tx: Tx, row: TableRow, seats: list[SeatRow], seat: int, absent: str, lang: str) -> None:
    """Put the seat on autopilot and tell the group (in the caller's transaction; the caller saves ``row``)."""
    pilot = row.ui.autopilot
    if seat not in pilot:
        pilot.append(seat)
    who = words.name(seats[seat].name)
    if absent == "replace":
        text = t(lang, "{who} missed too many moves: the AI plays their seat until someone takes it.", who=who)
        await out.send_text(tx, row.chat_id, "🤖 " + text, take_keyboard(row.id, seat, lang), thread_id=row.thread_id)
    else:
        text = t(lang, "{who} missed too many moves: the AI plays their seat for the rest of the game.", who=who)
        await out.send_text(tx, row.chat_id, "🤖 " + text, thread_id=row.thread_id)


async def drop_vote(tx: Tx, table_id: int, user_id: int | None) -> None:
    """A pause/resume vote belongs to the seat's player: leaving, being replaced or handed over drops it."""
    clock = await tx.clock(table_id)
    if clock is not None and user_id in clock.votes:
        clock.votes = [v for v in clock.votes if v != user_id]
        await tx.save_clock(clock)
