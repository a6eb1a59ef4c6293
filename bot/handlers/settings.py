"""/settings: the language of a user's DMs, or of a group (admins)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.handlers.context import is_admin
from bot.handlers.group_hands import prompt as hands_prompt
from bot.handlers.lobby import _answer_press
from bot.services.people import People
from bot.services.ports import Replies
from bot.services.seats import SeatService
from bot.services.types import Actor, Answer, Where
from bot.ui.callbacks import Lang
from bot.ui.i18n import LANGS, t
from bot.ui.keyboards import hands_keyboard, language_keyboard


async def settings(message: Message, replies: Replies, actor: Actor, where: Where | None) -> None:
    if where is None:
        await replies.say(Where(message.chat.id, 0, "", actor.lang),
                          t(actor.lang, "Language of your messages:"), language_keyboard("u"))
    else:
        # where the players see their hands (bot/handlers/group_hands.py answers the press), then the language
        await replies.say(where, hands_prompt(where.lang), hands_keyboard(where.lang))
        await replies.say(where, t(where.lang, "Language of this chat (admins):"), language_keyboard("c"))


PROMPTS = {"u": "Language of your messages:", "c": "Language of this chat (admins):"}


def is_language_prompt(query: CallbackQuery, scope: str, user_id: int) -> bool:
    """Whether the pressed message is a /settings language prompt of ``scope``: the personal one only in the
    presser's own DM (the only place it is sent), the chat's in a group. A press on any other message (a lobby,
    a seat offer) must not take its keyboard off."""
    message = query.message
    if not isinstance(message, Message):
        return False
    if scope == "u" and (message.chat.type != "private" or message.chat.id != user_id):
        return False
    if scope == "c" and message.chat.type == "private":
        return False
    return (message.text or "") in {t(lang, PROMPTS[scope]) for lang in LANGS}


async def set_language(query: CallbackQuery, callback_data: Lang, people: People, seats: SeatService,
                       actor: Actor) -> None:
    lang = callback_data.lang
    if lang not in LANGS or callback_data.scope not in PROMPTS:
        await _answer_press(query, Answer(t(actor.lang, "This button is not valid any more."), alert=True))
        return
    if not is_language_prompt(query, callback_data.scope, actor.user_id):
        await _answer_press(query, Answer(t(actor.lang, "This button is not for you."), alert=True))
        return
    if callback_data.scope == "c":
        if query.message is None or not await is_admin(query, actor.user_id):
            await _answer_press(query, Answer(t(actor.lang, "Only admins can change the chat's language."), alert=True))
            return
        await people.set_language("c", query.message.chat.id, lang)
    else:
        await people.set_language("u", actor.user_id, lang)
    await _answer_press(query, Answer(t(lang, "Language set: English")))
    if query.message is not None:  # the choice is made: the buttons go
        await seats.close_prompt(query.message.chat.id, query.message.message_id)


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="settings")
    router.message.register(settings, Command("settings"))
    router.callback_query.register(set_language, Lang.filter())
    return router
