"""A seat's hand, once written, goes out: to the DM (sent new or edited in place), its keyboard noted, and its
copy in the group following it (bot/services/hands/in_group.py).

Its own module because every kind of hand (the move buttons in bot/services/publish.py, the toggle hand in
bot/services/hands/toggle_hand.py) is delivered the same way, and a change in how (a slot, a priority, the
table app's button) must reach them all.
"""

from __future__ import annotations

from typing import Any

from bot.services import outbox as out
from bot.services.ephemeral import EphemeralSender
from bot.services.hands import in_group
from bot.services.slots import hand_slot, note_hand_keyboard
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui.app_links import AppLinks, with_button


async def deliver_hand(tx: Tx, row: TableRow, seat: SeatRow, text: str, markup: dict[str, Any] | None,
                       lang: str, *,
                       live: bool, new: bool, dm: bool, over: bool, app: AppLinks | None,
                       hands: EphemeralSender) -> None:
    """Send (``new``) or edit the seat's hand message with ``text`` and ``markup`` (the table app's button
    added while the game is not ``over``); ``dm=False``: only its copy in the group."""
    assert seat.user_id is not None
    if app is not None and not over:  # the table app, opened from the DM
        markup = with_button(markup, app.dm_button(row.id, lang))
    slot = hand_slot(row, seat.seat)
    priority = out.REPLY if live else out.GAME
    if dm:
        if new:
            await out.send_text(tx, seat.user_id, text, markup, slot=slot, priority=priority)
        else:
            await out.edit_text(tx, seat.user_id, slot, text, markup, priority=priority)
        note_hand_keyboard(row, seat.seat, markup)
    await in_group.mirror(tx, row, seat, text, markup, live, hands)
