"""The bot's own membership of a group: removed (pause the chat's tables) or added back (resume)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import ChatMemberUpdated

from bot.services.hands.in_group import GroupHands
from bot.services.presence import PresenceService

GONE = ("left", "kicked")
PRESENT = ("member", "administrator", "creator", "restricted")


async def bot_membership(update: ChatMemberUpdated, presence: PresenceService, group_hands: GroupHands) -> None:
    old, new = update.old_chat_member.status, update.new_chat_member.status
    if new in GONE and old not in GONE:
        await presence.bot_removed(update.chat.id)
    elif new in PRESENT and old in GONE:
        await presence.bot_added(update.chat.id)
    # An administrator may bring a hand to its player unasked (bot/services/hands/in_group.py).
    await group_hands.bot_rights(update.chat.id, new in ("administrator", "creator"))


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="membership")
    router.my_chat_member.register(bot_membership, F.chat.type.in_({"group", "supergroup"}))
    return router
