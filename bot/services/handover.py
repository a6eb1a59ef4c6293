"""A seat whose player missed too many deadlines: the AI plays it for the rest of the game
("autopilot"), or until someone who is not seated takes it (table option ``absent=replace``).

Its own module because moves (``on_autopilot``, bot/services/play.py) and the clocks (``hand_to_ai``) both
need it, and neither should import the other; the seat stays the player's in the record and
``TableUi.autopilot`` lists it."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.services import outbox as out
from bot.services.slots import hand_slot
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


async def retire_hands(tx: Tx, row: TableRow, seat: int, user_id: int) -> None:
    """The seat was ``user_id``'s and someone else takes it now: their DM never shows its cards again. Their
    queued hand updates go and the seat's hand slots forget their messages (the next player's hand takes the same
    slot names); the current hand says the seat is no longer theirs, with no keyboard, as their copy in the group
    does; older ones (deals and turns gone by) only lose their keyboards. In the seat change's transaction."""
    current = await tx.slot_message(hand_slot(row, seat))
    for message_id in await tx.forget_hand(user_id, f"h{row.id}:{seat}:"):
        if message_id != current:
            await tx.enqueue(user_id, "clear_markup", {"message_id": message_id})
            continue
        lang = await tx.user_lang(user_id)
        slot = f"t{row.id}:lost:{seat}:{user_id}"  # pruned with the table's other t<id>: slots
        await tx.set_slot(slot, user_id, message_id)
        text = "\n".join(filter(None, [words.name(await tx.chat_title(row.chat_id) or ""),
                                       f"<b>{words.title(row.game, lang)}</b>",
                                       "🪑 " + t(lang, "This is no longer your seat: the hand is not yours to play.")]))
        await out.edit_text(tx, user_id, slot, text, None, priority=out.REPLY)


async def drop_vote(tx: Tx, table_id: int, user_id: int | None) -> None:
    """A pause/resume vote belongs to the seat's player: leaving, being replaced or handed over drops it."""
    clock = await tx.clock(table_id)
    if clock is not None and user_id in clock.votes:
        clock.votes = [v for v in clock.votes if v != user_id]
        await tx.save_clock(clock)
