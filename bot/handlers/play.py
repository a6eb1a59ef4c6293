"""Play buttons on a player's hand (in the DM, or shown to them alone in the group): a move, or the second
step of a choice."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from aiogram import Router
from aiogram.types import CallbackQuery

from bot.handlers.lobby import _answer_press
from bot.services.hands.capture import CaptureBuilder
from bot.services.hands.in_group import GroupHands
from bot.services.hands.toggle import ToggleTurns
from bot.services.play import Play
from bot.services.types import Actor, Answer
from bot.ui.callbacks import Cap, Menu, Move, Pick, Toggle
from bot.ui.i18n import t


def _own_hand(query: CallbackQuery, actor: Actor) -> Actor | None:
    """Play buttons live only on the player's own hand: in their DM, or shown to them alone in a group (an
    ephemeral message whose receiver is the presser; bot/services/hands/in_group.py), where the table must be
    that group's. The same data pressed anywhere else is forged: None."""
    message = query.message
    if message is None:
        return None
    if message.chat.type == "private":
        return actor if message.chat.id == actor.user_id else None
    receiver = getattr(message, "receiver_user", None)
    if getattr(message, "ephemeral_message_id", None) and receiver is not None and receiver.id == actor.user_id:
        return replace(actor, in_chat=message.chat.id)
    return None


async def _refuse(query: CallbackQuery, actor: Actor) -> None:
    await _answer_press(query, Answer(t(actor.lang, "This button is not valid any more."), alert=True))


async def _keyboard_tables(play: Play, update_id: int) -> set[int]:
    """The tables the pressed message's own keyboard (as Telegram reported it with the press) plays at. The
    press's model leaves that keyboard out (bot/intake.py, ``without_keyboard``): it is read from the update
    as stored in the inbox."""
    markup = await play.pressed_keyboard(update_id)
    found: set[int] = set()
    for row in markup:
        for button in row:
            data = button.get("callback_data") if isinstance(button, dict) else None
            if not isinstance(data, str):
                continue
            for factory in (Move, Menu, Pick, Cap, Toggle):
                try:
                    found.add(factory.unpack(data).t)
                    break
                except (TypeError, ValueError):
                    continue
    return found


async def move(query: CallbackQuery, callback_data: Move, play: Play, actor: Actor,
               update_id: int, group_hands: GroupHands) -> None:
    d = callback_data
    await _on_own_hand(query, d.t, play, actor, update_id, group_hands,
                       lambda own: play.press(d.t, d.v, d.i, own, actor.lang, update_id))


async def menu(query: CallbackQuery, callback_data: Menu, play: Play, actor: Actor,
               update_id: int, group_hands: GroupHands) -> None:
    d = callback_data
    await _on_own_hand(query, d.t, play, actor, update_id, group_hands,
                       lambda own: play.menu(d.t, d.v, d.g, own, actor.lang))


async def pick(query: CallbackQuery, callback_data: Pick, play: Play, actor: Actor,
               update_id: int, group_hands: GroupHands) -> None:
    d = callback_data
    await _on_own_hand(query, d.t, play, actor, update_id, group_hands,
                       lambda own: play.pick(d.t, d.v, d.w, d.m, bool(d.go), own, actor.lang, update_id))


async def capture(query: CallbackQuery, callback_data: Cap, builder: CaptureBuilder, play: Play, actor: Actor,
                  update_id: int, group_hands: GroupHands) -> None:
    """A capture hand's builder: toggle a table card, or take the chosen cards."""
    d = callback_data
    await _on_own_hand(query, d.t, play, actor, update_id, group_hands,
                       lambda own: builder.capture(d.t, d.v, d.c, d.m, bool(d.go), own, actor.lang, update_id))


async def toggle(query: CallbackQuery, callback_data: Toggle, play: Play, toggles: ToggleTurns, actor: Actor,
                 update_id: int, group_hands: GroupHands) -> None:
    """A toggle hand: toggle a card, lay down, confirm, settle a joker, or a verb."""
    d = callback_data
    await _on_own_hand(query, d.t, play, actor, update_id, group_hands,
                       lambda own: toggles.toggle(d.t, d.v, d.op, d.a, own, actor.lang, update_id))


async def _on_own_hand(query: CallbackQuery, table_id: int, play: Play, actor: Actor, update_id: int,
                       group_hands: GroupHands, act: Callable[[Actor], Awaitable[Answer]]) -> None:
    """What every play button does around its own service call: refused unless pressed on the presser's own
    hand (``_own_hand``), else ``act`` as that hand's actor, and the press answered (``_answered``)."""
    own = _own_hand(query, actor)
    if own is None:
        await _refuse(query, actor)
        return
    await _answered(query, table_id, await act(own), play, actor, update_id, group_hands)


async def _answered(query: CallbackQuery, table_id: int, answer: Answer, play: Play, actor: Actor,
                    update_id: int, group_hands: GroupHands) -> None:
    """Answer the press; a press on an out-of-date keyboard also takes that keyboard away, but only
    from a message in the presser's own DM whose keyboard plays at this very table (so forged data
    cannot strip the keyboard of any other message). On the presser's own hand shown in a group, that copy is
    redrawn with the current hand at once instead (it is the hand they look at)."""
    await _answer_press(query, answer)
    if not answer.stale or query.message is None or table_id not in await _keyboard_tables(play, update_id):
        return
    own = _own_hand(query, actor)
    eph_id = getattr(query.message, "ephemeral_message_id", None)
    if own is not None and own.in_chat is not None and eph_id:
        await group_hands.redraw(table_id, actor.user_id, own.in_chat, int(eph_id))
        return
    await play.clear_stale_keyboard(table_id, actor.user_id, query.message.chat.id, query.message.message_id)


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="play")
    router.callback_query.register(move, Move.filter())
    router.callback_query.register(menu, Menu.filter())
    router.callback_query.register(pick, Pick.filter())
    router.callback_query.register(capture, Cap.filter())
    router.callback_query.register(toggle, Toggle.filter())
    return router
