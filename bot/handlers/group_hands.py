"""Hands in the group: the table message's "🂠 My hand" press, the chat's setting (admins, /settings) and the
bot's own rights there (an administrator may bring a hand to its player unasked)."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message

from bot.handlers.context import is_admin
from bot.handlers.lobby import _answer_press
from bot.services.hands.in_group import GroupHands
from bot.services.seats import SeatService
from bot.services.types import Actor, Answer
from bot.ui.callbacks import Hands, MyHand
from bot.ui.i18n import LANGS, t


def prompt(lang: str) -> str:
    """The group's /settings question about hands."""
    return t(lang, "Where players see their hands (admins):")


def mode_set(mode: str, lang: str) -> str:
    if mode == "dm":
        return t(lang, "Hands: in DMs only.")
    return t(lang, "Hands: in the group, each to its player alone, and in DMs.")


async def my_hand(query: CallbackQuery, callback_data: MyHand, group_hands: GroupHands, actor: Actor) -> None:
    """Show the presser their hand, to them alone, in the group the press came from."""
    message = query.message
    if message is None or message.chat.type not in ("group", "supergroup") or \
            getattr(message, "ephemeral_message_id", None):
        await _answer_press(query, Answer(t(actor.lang, "This button is not valid any more."), alert=True))
        return
    await _answer_press(query, await group_hands.show(callback_data.t, actor, message.chat.id, query.id, actor.lang))


def is_hands_prompt(query: CallbackQuery) -> bool:
    """Whether the pressed message is the group's /settings question about hands (and nothing else)."""
    message = query.message
    return (isinstance(message, Message) and message.chat.type != "private"
            and (message.text or "") in {prompt(lang) for lang in LANGS})


async def set_hands(query: CallbackQuery, callback_data: Hands, group_hands: GroupHands, seats: SeatService,
                    actor: Actor) -> None:
    if not is_hands_prompt(query) or query.message is None:
        await _answer_press(query, Answer(t(actor.lang, "This button is not for you."), alert=True))
        return
    if not await is_admin(query, actor.user_id):
        await _answer_press(query, Answer(t(actor.lang, "Only admins can change where hands are shown."), alert=True))
        return
    if not await group_hands.set_mode(query.message.chat.id, callback_data.m):
        await _answer_press(query, Answer(t(actor.lang, "This button is not valid any more."), alert=True))
        return
    await _answer_press(query, Answer(mode_set(callback_data.m, actor.lang)))
    await seats.close_prompt(query.message.chat.id, query.message.message_id)


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="group_hands")
    router.callback_query.register(my_hand, MyHand.filter())
    router.callback_query.register(set_hands, Hands.filter())
    return router
