"""The Karusele capture builder (issue 13): a player picks the hand card, toggles table cards and
confirms; the engine checks the capture. Every press passes the same checks as any play button
(the table runs, the presser owns the seat, the version is current, it is their turn); the
selection travels in the button's data, so nothing is stored until the capture is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.types import Actor, Answer
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui import words
from bot.ui.i18n import t
from engine.cards import parse_card
from engine.core import IllegalAction
from games.karusele import present as ui
from games.karusele.moves import capture_parts, capture_words
from games.karusele.rules import KaruseleState

if TYPE_CHECKING:
    from bot.services.tables import Play


class CaptureBuilder:
    """The Karusele capture builder: every press checked as a play button (``Play.turn``), then applied."""

    def __init__(self, core: TableCore, play: Play) -> None:
        self.core = core
        self.play = play

    async def capture(self, table_id: int, version: int, card: str, mask: int, submit: bool, actor: Actor,
                      lang: str, update_id: int | None = None) -> Answer:
        """Open or update the builder for ``card`` with the cards of ``mask`` chosen, or submit it."""
        action = None
        async with self.core.lock(table_id):
            async with self.core.store.transaction() as tx:
                if submit and update_id is not None and not await tx.mark_update(update_id):
                    return Answer(t(lang, "Already done."))
                checked = await self.play.turn(tx, table_id, version, actor, lang)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                if not words.present(row.game).capture_builder:
                    return Answer(t(lang, "That move is not available."), alert=True)
                if not isinstance(state, KaruseleState):
                    return Answer(t(lang, "That move is not available."), alert=True)
                try:
                    code = parse_card(card)
                except ValueError:
                    return Answer(t(lang, "That move is not available."), alert=True)
                table = state.table
                hand = state.hands[seat]
                _, optional = capture_parts(code, table)
                if code not in hand or not 0 <= mask < 1 << len(optional) or len(optional) > ui.MAX_BUILDER_ITEMS:
                    return Answer(t(lang, "That move is not available."), alert=True)
                chosen = ui.chosen_items(optional, mask)
                if not submit:  # a card that leaves no way to finish is marked 🚫 on the keyboard
                    await self._builder_message(tx, row, seats, state, seat, card, mask)
                else:
                    try:
                        action = state.canonical(capture_words(code, table, chosen))
                    except IllegalAction as exc:
                        params = getattr(exc, "params", {})
                        text = ui.refusal_text(getattr(exc, "template", ""), params, lang)
                        return Answer(text, alert=True)
                    await self.play.apply(tx, row, seats, state, seat, action)
        self.core.outbox.wake()
        if action is None:
            return Answer()
        self.play.schedule_ai(table_id)
        return Answer(words.action_label(row.game, action, lang))

    async def _builder_message(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: KaruseleState, seat: int,
                               card: str, mask: int) -> None:
        """The seat's hand message with the builder keyboard in place of the hand keyboard."""
        user = seats[seat]
        assert user.user_id is not None
        user_lang = await tx.user_lang(user.user_id)
        names = [s.name for s in seats]
        view = state.view(seat)
        text = words.hand_text(view, names, user_lang, await tx.chat_title(row.chat_id), True)
        text += "\n\n🧩 " + ui.builder_line(card, state.table, user_lang)
        markup = ui.builder_keyboard(row.id, row.version, card, state.table, mask, user_lang)
        slot = f"h{row.id}:{seat}:{row.ui.get('hand_deal')}"
        await out.edit_text(tx, user.user_id, slot, text, markup)
