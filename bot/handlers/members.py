"""Who is an admin or a member of a group, asked of Telegram (getChatMember) once per short while.

Why: the answer is needed on presses (Start, Cancel, house rules) and every call is an HTTP round trip
on the connection pool that also answers callback queries. 2,000 simultaneous Start presses made 701
fail on timeouts when each asked. Now an answer is kept for ``TTL`` seconds (a user demoted or
promoted meanwhile is seen so at most that late), simultaneous questions about the same person share
one call, and a table's creator is never asked about at all (bot/handlers/lobby.py). A "not a member"
answer is not kept: someone who just joined the group must be able to sit down at once.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import ChatMemberUnion

TTL = 30.0  # seconds an answer is trusted
SIZE = 20_000  # answers kept at most (the oldest go first)


class MemberCache:
    """getChatMember answers of one bot, kept briefly; errors are never kept."""

    def __init__(self, ttl: float = TTL, size: int = SIZE) -> None:
        self.ttl = ttl
        self.size = size
        self.asked = 0  # calls made to Telegram (tests and bench/bot.py read it)
        self._known: OrderedDict[tuple[int, int], tuple[float, ChatMemberUnion]] = OrderedDict()
        self._asking: dict[tuple[int, int], asyncio.Future[ChatMemberUnion]] = {}

    async def member(self, bot: Bot, chat_id: int, user_id: int) -> ChatMemberUnion:
        key = (chat_id, user_id)
        now = time.monotonic()
        hit = self._known.get(key)
        if hit is not None and now - hit[0] < self.ttl:
            self._known.move_to_end(key)
            return hit[1]
        pending = self._asking.get(key)
        if pending is None:
            pending = asyncio.ensure_future(bot.get_chat_member(chat_id, user_id))
            self.asked += 1
            self._asking[key] = pending
            pending.add_done_callback(lambda _: self._asking.pop(key, None))
        member = await asyncio.shield(pending)
        return member

    def keep(self, chat_id: int, user_id: int, member: ChatMemberUnion) -> None:
        self._known[(chat_id, user_id)] = (time.monotonic(), member)
        self._known.move_to_end((chat_id, user_id))
        while len(self._known) > self.size:
            self._known.popitem(last=False)


def of(bot: Bot) -> MemberCache:
    """The cache of this Bot object (kept on it: each running bot, and each test's, has its own)."""
    cache = bot.__dict__.get("_kozyr_members")
    if cache is None:
        cache = bot.__dict__["_kozyr_members"] = MemberCache()
    return cache


async def bot_is_admin(bot: Bot | None, chat_id: int) -> bool | None:
    """Whether the bot itself is the group's administrator (None: Telegram did not say)."""
    if bot is None:
        return None
    try:
        me = await of(bot).member(bot, chat_id, bot.id)
    except TelegramAPIError:
        return None
    return me.status in ("administrator", "creator")
