"""A player's DM hand sent again as a new message: /hand asks for it, and a hand that could not be shown in a
group falls back to it. A new message notifies and lands under the newest ones, where an edit would go unseen;
the old one loses its keyboard (where it has one), so only one hand can be pressed."""

from __future__ import annotations

from bot.services import outbox as out
from bot.services.core import Loaded, TableCore
from bot.services.ports import HandPublisher
from bot.services.slots import hand_slot
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow


async def resend_hand(tx: Tx, core: TableCore, publisher: HandPublisher, loaded: Loaded, seat: SeatRow) -> None:
    """In the caller's transaction, under the table's lock; the caller wakes the outbox after the commit."""
    row = loaded.row
    assert seat.user_id is not None
    state = core.state(row)
    if seat.seat not in row.ui.bare:
        await out.clear_keyboard(tx, seat.user_id, hand_slot(row, seat.seat))
    row.ui.hand_n[str(seat.seat)] = int(row.ui.hand_n.get(str(seat.seat), 0)) + 1  # the next slot: a new message
    live = state.to_act == seat.seat and seat.seat not in row.ui.autopilot
    await publisher.hand_message(tx, row, seat, state, loaded.names, live=live, new=True)
    await tx.save_table(row, touch=False)
