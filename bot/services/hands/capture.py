"""A ``capture`` hand's card-by-card builder (the declaration's ``hand="capture"``): a player picks the hand
card, toggles table cards and confirms; the game's presentation checks each press and builds the action, the
engine checks the capture. Every press passes the same checks as any play button (the table runs, the presser
owns the seat, the version is current, it is their turn); the selection travels in the button's data, so
nothing is stored until the capture is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.presentation.registry import hand_kind, presentation
from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.hands import in_group
from bot.services.publish import mark_pressed
from bot.services.slots import hand_slot
from bot.services.types import Actor, Answer
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui.i18n import t
from engine.core import State
from engine.events import json_view

if TYPE_CHECKING:
    from bot.services.play import Play


class CaptureBuilder:
    """The card-by-card builder of games with a ``capture`` hand: every press
    checked as a play button (``Play.turn``), then by the game (``builder_press``), then applied."""

    def __init__(self, core: TableCore, play: Play) -> None:
        self.core = core
        self.play = play

    async def capture(self, table_id: int, version: int, card: str, mask: int, submit: bool, actor: Actor,
                      lang: str, update_id: int | None = None) -> Answer:
        """Open or update the builder for ``card`` with the cards of ``mask`` chosen, or submit it."""
        action = None
        async with self.core.lock(table_id):
            async with self.core.store.transaction() as tx:
                checked = await self.play.turn(tx, table_id, version, actor, lang,
                                               once=update_id if submit else None)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                present = presentation(row.game)
                if hand_kind(row.game) != "capture":
                    return Answer(t(lang, "That move is not available."), alert=True)
                press = present.builder_press(state, seat, card, mask, submit, lang)
                if press.refusal is not None:
                    return Answer(press.refusal, alert=True)
                if press.action is None:  # a card that leaves no way to finish is marked 🚫 on the keyboard
                    await self._builder_message(tx, row, seats, state, seat, card, mask)
                else:
                    action = press.action
                    mark_pressed(row, seat)  # a person's press, as a play button's: their next turn may be an edit
                    await self.play.apply(tx, row, seats, state, seat, action)
        self.core.outbox.wake()
        if action is None:
            return Answer()
        self.play.schedule_ai(table_id)
        return Answer(presentation(row.game).action_label(action, lang))

    async def _builder_message(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State, seat: int,
                               card: str, mask: int) -> None:
        """The seat's hand message with the builder keyboard in place of the hand keyboard."""
        user = seats[seat]
        assert user.user_id is not None
        user_lang = await tx.user_lang(user.user_id)
        names = [s.name for s in seats]
        view = json_view(state.view(seat))
        shown = presentation(row.game)
        text = shown.hand_text(view, names, user_lang, await tx.chat_title(row.chat_id), True)
        line, markup = shown.builder_keyboard(state, row.id, row.version, card, mask, user_lang)
        text += "\n\n🧩 " + line
        # The seat's current hand message (numbered per deal AND per turn ping), the one whose "Back" and
        # moves edit it: not a slot named by the deal, which made the builder a second message of its own.
        slot = hand_slot(row, seat)
        await out.edit_text(tx, user.user_id, slot, text, markup)
        # and its copy in the group
        await in_group.mirror(tx, row, user, text, markup, True, self.core.outbox.ephemeral)
