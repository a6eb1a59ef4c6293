"""/hint: a move suggestion for the player's turn, in the DM only (a hint in the group would show
everybody what the player is about to do)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.services.hints import Hints
from bot.services.ports import Replies
from bot.services.types import Actor, Where
from bot.ui.i18n import t


async def hint(message: Message, hints: Hints, replies: Replies, actor: Actor) -> None:
    text = await hints.hint(actor, actor.lang)
    await replies.say(Where(message.chat.id, 0, "", actor.lang), text)


async def hint_in_group(message: Message, replies: Replies, actor: Actor, where: Where | None) -> None:
    lang = where.lang if where else actor.lang
    await replies.say(where or Where(message.chat.id, 0, "", lang),
                      t(lang, "Ask me for a /hint in our private chat: here everybody would see it."))


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="hint")
    router.message.register(hint, Command("hint"), F.chat.type == "private")
    router.message.register(hint_in_group, Command("hint"), F.chat.type.in_({"group", "supergroup"}))
    return router
