"""A toggle hand's turn in the DM (the declaration's ``hand="toggle"``): toggle hand cards, ask the solver to lay
them down, look at the proposed table, settle an ambiguous joker, confirm; or draw, pass, knock, end the turn.

Every press passes the checks of any play button (the table runs, the presser owns the seat, the version is
current, it is their turn) and is one transaction. The selection and the proposal are kept in the table row
(``bot/services/hands/selection.py``), so a restart loses nothing and applies nothing half-way: the only move
is Confirm, which plays the proposal's explicit lay-down (the engine checks it again) exactly once; a Confirm
pressed twice finds the version moved on. The rules questions go to the engine's state
(``engine.rummy.base.RummyState``: may the seat lay down, the canonical lay-down), the words to the game's
presentation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.presentation.registry import hand_kind, presentation
from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.hands import in_group, jokers, selection
from bot.services.hands.selection import Proposal, Selection
from bot.services.hands.toggle_hand import toggle_hand, under_way
from bot.services.hands.toggle_keyboard import PAGE, joker_keyboard, proposal_keyboard
from bot.services.publish import Publisher, mark_pressed
from bot.services.types import Actor, Answer
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui.callbacks import TOGGLE_OPS
from bot.ui.i18n import nt, t
from engine.cards import card_str
from engine.core import IllegalAction, State
from engine.rummy.base import RummyState, lay_text, meld_kind, parse_lay, table_str

if TYPE_CHECKING:
    from bot.services.play import Play


def toggle_forced(game: str, state: State) -> bool:
    """A toggle hand's move nobody could choose otherwise (a must-meld draw, a pass): the table plays it."""
    return hand_kind(game) == "toggle" and isinstance(state, RummyState) and state.forced_action() is not None


def proposal_slot(row: TableRow, seat: int, sel: Selection) -> str:
    return f"rp{row.id}:{seat}:{row.version}:{sel.serial}"


def _not_available(lang: str) -> Answer:
    return Answer(t(lang, "That move is not available."), alert=True)


class ToggleTurns:
    """The toggle hands' presses; built by ``build_services`` (bot/app.py) with the core, the play service (its
    turn checks, moves and AI loop) and the publisher (its pictures and the clocks' time)."""

    def __init__(self, core: TableCore, play: Play, publisher: Publisher) -> None:
        self.core = core
        self.play = play
        self.publisher = publisher

    async def toggle(self, table_id: int, version: int, op: str, arg: int, actor: Actor, lang: str,
                     update_id: int | None = None) -> Answer:
        """One press on a toggle hand, proposal or joker question."""
        if op not in TOGGLE_OPS:
            return _not_available(lang)
        moved = False
        async with self.core.lock(table_id):
            async with self.core.store.transaction() as tx:
                checked = await self.play.turn(tx, table_id, version, actor, lang,
                                               once=update_id if op in ("ok", "do") else None)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                if hand_kind(row.game) != "toggle" or not isinstance(state, RummyState):
                    return _not_available(lang)
                sel = selection.load(row, seat)
                answer, moved = await self._op(tx, row, seats, state, seat, sel, op, arg, lang)
        self.core.outbox.wake()
        if moved:
            self.play.schedule_ai(table_id)
        return answer

    async def _op(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: RummyState, seat: int,
                        sel: Selection, op: str, arg: int, lang: str) -> tuple[Answer, bool]:
        hand = state.hands[seat]
        names = [s.name for s in seats]
        user = seats[seat]
        present = presentation(row.game)
        if op in ("on", "off", "undo", "hint", "pg"):
            before = sel.proposal
            shown = (list(sel.chosen), sel.page)
            answer = Answer()
            if op in ("on", "off"):
                if not 0 <= arg < len(hand):
                    return _not_available(lang), False
                sel.toggle(arg, op == "on")
            elif op == "undo":
                sel.replace([])
            elif op == "pg":
                if not 0 <= arg < max(1, -(-len(hand) // PAGE)):
                    return _not_available(lang), False
                sel.page = arg
            else:
                if not state.may_lay():
                    return Answer(t(lang, "You may not lay cards down now."), alert=True), False
                best = present.hint(state, seat)
                if not best:
                    return Answer(t(lang, "Nothing goes down now."), alert=True), False
                sel.replace(_indices(hand, list(best)))
                answer = Answer(nt(lang, "{n} card goes down now", "{n} cards go down now", len(best)))
            if before is not None and sel.proposal is None:
                await out.clear_keyboard(tx, user.user_id or 0, proposal_slot(row, seat, _at(sel, before.serial)))
            if (sel.chosen, sel.page) == shown:  # nothing to redraw (Telegram refuses an identical edit)
                return answer, False
            selection.save(row, seat, sel)
            await self._hand(tx, row, user, state, names)
            await tx.save_table(row, touch=False)  # a selection is not a move: the turn's clock runs on
            return answer, False
        if op == "lay":
            return await self._lay(tx, row, seats, state, seat, sel, lang), False
        if op == "jk":
            return await self._joker(tx, row, seats, state, seat, sel, arg, lang), False
        if op == "back":
            if sel.proposal is None:
                return Answer(), False
            await out.clear_keyboard(tx, user.user_id or 0, proposal_slot(row, seat, sel))
            sel.proposal = None
            await self._save(tx, row, seat, sel)
            # the DM's hand message is still there; a hand shown in the group showed the proposal in its place
            await toggle_hand(tx, row, user, state, names, live=True, now=self.publisher.now(), app=self.publisher.app,
                              dm=False, hands=self.core.outbox.ephemeral)
            await tx.save_table(row, touch=False)
            return Answer(t(lang, "Back to your hand.")), False
        if op == "ok":
            prop = sel.proposal
            if prop is None or prop.serial != arg or prop.asks:
                return Answer(t(lang, "That button is out of date; use the latest message."), alert=True), False
            action = lay_text(prop.cards, prop.table)
            try:
                state.canonical_action(action)
            except IllegalAction as exc:
                return Answer(present.refusal(exc.reason, lang), alert=True), False
            await out.clear_keyboard(tx, user.user_id or 0, proposal_slot(row, seat, sel))
            mark_pressed(row, seat)
            await self.play.apply(tx, row, seats, state, seat, action)
            return Answer(present.action_label(action, lang)), True
        # op == "do": a verb
        verbs = present.toggle_verbs
        if not 0 <= arg < len(verbs) or not state.is_legal(seat, verbs[arg]):
            return _not_available(lang), False
        if verbs[arg] in present.takeback_verbs and not under_way(sel):  # never offered: nothing to give up
            return _not_available(lang), False
        if sel.proposal is not None:
            await out.clear_keyboard(tx, user.user_id or 0, proposal_slot(row, seat, sel))
        mark_pressed(row, seat)
        await self.play.apply(tx, row, seats, state, seat, verbs[arg])
        return Answer(present.action_label(verbs[arg], lang)), True

    async def _save(self, tx: Tx, row: TableRow, seat: int, sel: Selection) -> None:
        selection.save(row, seat, sel)
        await tx.save_table(row, touch=False)  # a selection is not a move: the turn's clock runs on

    async def _lay(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: RummyState, seat: int,
                         sel: Selection, lang: str) -> Answer:
        """Ask the solver for the table with the chosen cards; show it, or say in one line why not."""
        if not state.may_lay():
            return Answer(t(lang, "You may not lay cards down now."), alert=True)
        hand = state.hands[seat]
        chosen = [hand[i] for i in sel.chosen if 0 <= i < len(hand)]
        if not chosen:
            return Answer(t(lang, "Tap the cards to lay down first."), alert=True)
        try:
            action = state.canonical_action("lay " + " ".join(card_str(c) for c in chosen))
        except IllegalAction as exc:
            return Answer(presentation(row.game).refusal(exc.reason, lang), alert=True)
        cards, table = parse_lay(action)
        assert table is not None
        asks = jokers.ambiguous(state.variant, state.table, cards, table)
        if sel.proposal is not None:  # a proposal shown before for this very selection: replaced
            await out.clear_keyboard(tx, seats[seat].user_id or 0, proposal_slot(row, seat, sel))
        sel.serial += 1
        sel.proposal = Proposal(cards, table, sel.serial, asks)
        await self._save(tx, row, seat, sel)
        await self._proposal(tx, row, seats, state, seat, sel, new=True)
        return Answer(t(lang, "Here is the table with your cards."))

    async def _joker(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: RummyState, seat: int,
                           sel: Selection, choice: int, lang: str) -> Answer:
        prop = sel.proposal
        if prop is None or not prop.asks or not 0 <= choice < len(prop.asks[0]) - 2:
            return _not_available(lang)
        meld, pos, *options = prop.asks[0]
        table = jokers.settle(prop.table, meld, pos, options[choice])
        try:
            action = state.canonical_action(lay_text(prop.cards, table))
        except IllegalAction as exc:
            return Answer(presentation(row.game).refusal(exc.reason, lang), alert=True)
        _, settled = parse_lay(action)
        assert settled is not None
        prop.table = settled
        prop.asks = prop.asks[1:]
        await self._save(tx, row, seat, sel)
        await self._proposal(tx, row, seats, state, seat, sel, new=False)
        return Answer()

    async def _proposal(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: RummyState, seat: int,
                              sel: Selection, new: bool) -> None:
        """The proposal in the DM: a picture of the new table (a text without pictures), with Confirm
        and Back, or first the joker question."""
        prop = sel.proposal
        assert prop is not None
        present = presentation(row.game)
        user_id = seats[seat].user_id or 0
        lang = await tx.user_lang(user_id)
        melds_text = table_str(prop.table)
        view: dict[str, Any] = {
            "game": row.game, "proposal": True, "cards": [card_str(c) for c in prop.cards], "table": melds_text,
            "table_kinds": [meld_kind(m) for m in prop.table], "changed": _changed(table_str(state.table), melds_text),
            "asks": [list(ask) for ask in prop.asks],  # jokers whose card is still to choose: named on the picture
        }
        pictures = self.publisher.pictures is not None
        lines = ["🃏 " + t(lang, "Your lay-down: {cards}", cards=present.lay_text(prop.cards)),
                 t(lang, "Gold frames mark the melds that change.") if pictures
                 else t(lang, "✨ marks the melds that change.")]
        if prop.asks:
            meld, pos, *options = prop.asks[0]
            lines.append("❓ " + t(lang, "Which card does the joker in {meld} stand for?",
                                  meld=present.lay_text(prop.table[meld])))
            markup = joker_keyboard(row.id, row.version, options, lang)
        else:
            lines.append(t(lang, "Confirm to lay it down, or go back to your hand."))
            markup = proposal_keyboard(row.id, row.version, prop.serial, lang)
        slot = proposal_slot(row, seat, sel)
        text = "\n".join([*lines[:1], *present.proposal_lines(view, lang), *lines[1:]])
        # in the group, in place of the hand: as text (there the changed melds are marked with ✨)
        mirrored = text if not pictures else "\n".join(
            [lines[0], *present.proposal_lines(view, lang), t(lang, "✨ marks the melds that change."), *lines[2:]])
        await in_group.mirror(tx, row, seats[seat], mirrored, markup, True, self.core.outbox.ephemeral)
        if pictures:
            picture = {"kind": "table", "view": view, "names": [s.name for s in seats], "lang": lang}
            caption = "\n".join(lines)
            if new:
                await out.send_picture(tx, user_id, picture, caption, markup, slot=slot, priority=out.REPLY)
            else:
                await out.edit_picture(tx, user_id, slot, picture, caption, markup, priority=out.REPLY)
            return
        if new:
            await out.send_text(tx, user_id, text, markup, slot=slot, priority=out.REPLY)
        else:
            await out.edit_text(tx, user_id, slot, text, markup, priority=out.REPLY)

    async def _hand(self, tx: Tx, row: TableRow, seat: SeatRow, state: State, names: list[str]) -> None:
        """Redraw the live hand after a toggle (the same message, edited)."""
        await toggle_hand(tx, row, seat, state, names, live=True, now=self.publisher.now(), app=self.publisher.app,
                          hands=self.core.outbox.ephemeral)


def _indices(hand: list[int], cards: list[int]) -> list[int]:
    """Hand positions holding ``cards`` (a multiset: two 7♥ take two positions)."""
    used: list[int] = []
    for c in cards:
        i = next(k for k, h in enumerate(hand) if h == c and k not in used)
        used.append(i)
    return used


def _at(sel: Selection, serial: int) -> Selection:
    """A selection naming an older serial (to address that proposal's message)."""
    return Selection(sel.version, sel.chosen, serial)


def _changed(old: Sequence[str], new: Sequence[str]) -> list[int]:
    """Indices of ``new`` melds that ``old`` did not hold (a multiset: a double pack has identical melds)."""
    left = Counter(old)
    found: list[int] = []
    for i, meld in enumerate(new):
        if left[meld] > 0:
            left[meld] -= 1
        else:
            found.append(i)
    return found
