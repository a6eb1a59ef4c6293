"""Moves from the table app (bot/webapp/): the same services and checks as a button press.

A move arrives as its action text; it is turned into what the button would have carried (the index in
the version's legal list, a toggle hand's verb) and handed to ``Play.press`` / ``ToggleTurns.toggle``,
so the seat, turn, version and legality checks and their answers are the buttons' own. A rummy
lay-down arrives as the whole table after the move (the melds the player arranged); the cards it adds
are the player's, and the engine checks the layout exactly as it checks the keyboard's Confirm, then
``Play.apply`` plays the same explicit lay-down action. ``request`` is the app's request id as an
update id (negative, never one of Telegram's): a repeated request is answered "Already done.".
"""

from __future__ import annotations

from collections import Counter

from bot.presentation.registry import hand_kind, presentation
from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.hands import jokers, selection
from bot.services.hands.toggle import ToggleTurns, proposal_slot
from bot.services.play import Play
from bot.services.publish import mark_pressed
from bot.services.types import Actor, Answer
from bot.ui.i18n import t
from engine import melds as meld_rules
from engine.cards import JOKER, card_str, rank_of
from engine.core import IllegalAction
from engine.rummy.base import RummyState, flat, lay_text, parse_lay, table_str
from engine.rummy.notation import LayError


class AppMoves:
    """Built by ``build_services`` with the play service and the toggle hands (their checks, their moves)."""

    def __init__(self, core: TableCore, play: Play, toggles: ToggleTurns) -> None:
        self.core = core
        self.play = play
        self.toggles = toggles

    async def move(self, table_id: int, version: int, action: str, actor: Actor, lang: str,
                   request: int) -> Answer:
        """One move named by its text: the button that plays it, pressed."""
        async with self.core.store.read() as tx:
            loaded = await self.core.load(tx, table_id)
        if loaded is None or loaded.row.status != "playing":
            return Answer(t(lang, "This game is not running."), alert=True)
        row = loaded.row
        if hand_kind(row.game) == "toggle":
            verbs = presentation(row.game).toggle_verbs
            op_arg = verbs.index(action) if action in verbs else len(verbs)
            return await self.toggles.toggle(table_id, version, "do", op_arg, actor, lang, update_id=request)
        seat = next((s.seat for s in loaded.seats if s.user_id == actor.user_id), None)
        legal: list[str] = []
        if seat is not None and row.version == version:
            state = self.core.state(row)
            if state.to_act == seat:
                legal = state.legal_actions(seat)
        index = legal.index(action) if action in legal else len(legal)  # not listed: the press says why
        return await self.play.press(table_id, version, index, actor, lang, update_id=request)

    async def lay(self, table_id: int, version: int, layout: list[str], actor: Actor, lang: str,
                  request: int) -> Answer:
        """A rummy lay-down given as the whole new table: checked by the engine, played like Confirm."""
        moved = False
        async with self.core.lock(table_id):
            async with self.core.store.transaction() as tx:
                checked = await self.play.turn(tx, table_id, version, actor, lang, once=request)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                present = presentation(row.game)
                if hand_kind(row.game) != "toggle" or not isinstance(state, RummyState):
                    return Answer(t(lang, "That move is not available."), alert=True)
                if not state.may_lay():
                    return Answer(t(lang, "You may not lay cards down now."), alert=True)
                try:
                    _, melds = parse_lay("lay / " + " | ".join(layout))
                except LayError as exc:
                    return Answer(present.refusal(str(exc), lang), alert=True)
                cards = list((Counter(flat(melds or [])) - Counter(flat(state.table))).elements())
                if not cards:
                    return Answer(t(lang, "Tap the cards to lay down first."), alert=True)
                settled = settle_jokers(state, melds or [])
                try:
                    action = state.canonical_action(lay_text(cards, settled))
                except IllegalAction as exc:
                    return Answer(present.refusal(exc.reason, lang), alert=True)
                sel = selection.load(row, seat)
                if sel.proposal is not None:  # the keyboard's proposal is out of date once this plays
                    await out.clear_keyboard(tx, seats[seat].user_id or 0, proposal_slot(row, seat, sel))
                mark_pressed(row, seat)
                await self.play.apply(tx, row, seats, state, seat, action)
                moved = True
        self.core.outbox.wake()
        if moved:
            self.play.schedule_ai(table_id)
        return Answer(present.action_label(action, lang))

    async def propose(self, table_id: int, cards: list[str], actor: Actor, lang: str) -> list[str] | Answer:
        """The solver's table with these hand cards laid down (nothing is played): the app's Propose. No cards:
        the largest part of the hand that goes down now (the keyboard's Hint)."""
        async with self.core.store.read() as tx:
            loaded = await self.core.load(tx, table_id)
        if loaded is None or loaded.row.status != "playing":
            return Answer(t(lang, "This game is not running."), alert=True)
        row = loaded.row
        seat = next((s.seat for s in loaded.seats if s.user_id == actor.user_id), None)
        if seat is None:
            return Answer(t(lang, "You are not playing at this table."), alert=True)
        state = self.core.state(row)
        if not isinstance(state, RummyState) or state.to_act != seat or not state.may_lay():
            return Answer(t(lang, "You may not lay cards down now."), alert=True)
        try:
            named = parse_lay("lay " + " ".join(cards))[0] if cards else presentation(row.game).hint(state, seat)
            if not named:  # no cards named, and none of the hand goes down now
                return Answer(t(lang, "Nothing goes down now."), alert=True)
            action = state.canonical_action("lay " + " ".join(card_str(c) for c in named))
        except (IllegalAction, LayError) as exc:
            reason = exc.reason if isinstance(exc, IllegalAction) else str(exc)
            return Answer(presentation(row.game).refusal(reason, lang), alert=True)
        _, table = parse_lay(action)
        return table_str(table or [])


def settle_jokers(state: RummyState, layout: list[list[int]]) -> list[list[int]]:
    """A joker dragged from the hand comes as a plain ``JK``; the engine wants the card it stands for. Each
    such joker is given a meaning that makes its meld valid, the one its place among the cards the player
    arranged says (in ``7H JK 9H`` it is 8H; after ``5H 6H`` it is 7H) where there is one."""
    out = [list(m) for m in layout]
    for i, meld in enumerate(out):
        for j, x in enumerate(meld):
            if x != JOKER:
                continue
            options = [c for c in jokers.meanings(state.variant, meld, j)
                       if meld_rules.is_valid(state.variant, jokers.settle(out, i, j, c)[i])]
            if not options:
                continue
            wanted = set()
            if j > 0 and meld[j - 1] != JOKER:
                wanted.add(rank_of(meld_rules.stands_for(meld[j - 1])) + 1)
            if j + 1 < len(meld) and meld[j + 1] != JOKER:
                wanted.add(rank_of(meld_rules.stands_for(meld[j + 1])) - 1)
            chosen = next((c for c in options if rank_of(c) in wanted), options[0])
            out = jokers.settle(out, i, j, chosen)
            meld = out[i]
    return out
