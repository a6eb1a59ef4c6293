"""Middlewares: drop repeated updates, and give every handler the actor and the chat it acts in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, Chat, Message, TelegramObject, Update, User

from bot.handlers import members
from bot.services.people import People
from bot.services.ports import Replies
from bot.services.types import Actor, Where
from bot.ui.i18n import lang_of, t
from bot.ui.names import plain_name


def _forget_handled_updates() -> None:
    """aiogram caches ``Update.event_type`` in an ``lru_cache`` keyed by the update itself, so the last 128
    updates stay alive with everything in them (their messages, keyboards, people's names): ~1.7 MB the bot
    never reads again (the dispatcher asks once per update). Emptied when an update is handled."""
    prop = getattr(Update, "event_type", None)
    cache_clear = getattr(getattr(prop, "fget", None), "cache_clear", None)
    if cache_clear is not None:
        cache_clear()


class Dedup(BaseMiddleware):
    """Telegram may deliver an update twice (a restart before the offset was confirmed):
    an update id already handled is dropped. Nothing is written here: the intake records the id
    when the handler ends (``inbox_done``, bot/intake.py), and moves record it in their own
    transaction, so a move can never be applied twice. An update this process just took into the inbox was
    checked there, and nobody else handles it: the SQLite store says so (``admitted``) and no query is made."""

    def __init__(self, people: People) -> None:
        self.people = people
        self.in_flight = 0  # updates being handled now (graceful stop and tests wait for zero)
        self.latest: int | None = None  # the newest update id handled (retention keeps ids near it)

    async def __call__(self, handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
                       event: TelegramObject, data: dict[str, Any]) -> Any:
        assert isinstance(event, Update)
        self.in_flight += 1
        try:
            if await self.people.seen_update(event.update_id):
                if event.callback_query is not None and event.bot is not None:
                    # A press whose move committed just before a crash may never have been answered:
                    # stop the button's spinner (if it was answered, Telegram refuses; that is fine).
                    try:
                        await event.bot.answer_callback_query(event.callback_query.id)
                    except TelegramAPIError:
                        pass
                return None
            data["update_id"] = event.update_id
            self.latest = event.update_id
            return await handler(event, data)
        finally:
            self.in_flight -= 1
            _forget_handled_updates()


class Context(BaseMiddleware):
    """Records who the user is (name, language) and builds ``actor`` and ``where`` for handlers; the store
    is reached through the people service (bot/services/people.py)."""

    def __init__(self, people: People, replies: Replies) -> None:
        self.people = people
        self.replies = replies
        self._known: dict[int, tuple[str, str | None, str]] = {}
        self._chats: set[int] = set()

    async def __call__(self, handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
                       event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        chat: Chat | None = data.get("event_chat")
        if isinstance(event, Message) and (user is None or user.is_bot or event.sender_chat is not None):
            # An anonymous admin (the group itself) or a channel: nobody the bot could seat or check.
            if chat is not None and (event.text or "").startswith("/"):
                await self._as_yourself(event, chat)
                return None
            return await handler(event, data)
        if user is None or user.is_bot:
            return await handler(event, data)
        lang_hint = lang_of(user.language_code)
        full_name = plain_name(user.full_name)  # no direction overrides or invisible characters, anywhere
        known = (full_name, user.username, lang_hint)
        if self._known.get(user.id) != known or (chat is not None and chat.type != "private"
                                                 and chat.id not in self._chats):
            group = chat.id if chat is not None and chat.type != "private" else None
            await self.people.remember(user.id, full_name, user.username, lang_hint, group,
                                       chat.title or "" if chat is not None else "")
            self._known[user.id] = known
            if chat is not None and chat.type != "private":
                self._chats.add(chat.id)
        row, chat_lang = await self.people.profile(user.id, chat.id if chat is not None and chat.type != "private"
                                                   else None)
        lang = row.lang if row else lang_hint
        data["actor"] = Actor(user.id, full_name, lang, bool(row and row.started))
        if chat is not None and chat.type != "private":
            thread = 0
            message = event.message if isinstance(event, CallbackQuery) else event
            if isinstance(message, Message) and message.is_topic_message and message.message_thread_id:
                thread = message.message_thread_id
            data["where"] = Where(chat.id, thread, chat.title or "", chat_lang or lang)
        else:
            data["where"] = None
        return await handler(event, data)

    async def _as_yourself(self, message: Message, chat: Chat) -> None:
        """One line asking for the command again from the person's own account."""
        lang = await self.people.chat_lang(chat.id) if chat.type != "private" else "en"
        thread = message.message_thread_id if message.is_topic_message and message.message_thread_id else 0
        await self.replies.say(Where(chat.id, thread, chat.title or "", lang),
                               t(lang, "Please send commands as yourself, not on behalf of the group or a channel."))


async def is_admin(event: Message | CallbackQuery, user_id: int) -> bool:
    """Whether the user is the group's creator or an administrator (asks Telegram, or remembers its
    answer for a few seconds: bot/handlers/members.py)."""
    chat = event.chat if isinstance(event, Message) else (event.message.chat if event.message else None)
    if chat is None or chat.type == "private" or event.bot is None:
        return False
    cache = members.of(event.bot)
    member = await cache.member(event.bot, chat.id, user_id)
    cache.keep(chat.id, user_id, member)
    return member.status in ("creator", "administrator")


async def is_member(bot: Bot | None, chat_id: int, user_id: int) -> bool:
    """Whether the user belongs to the group now (asks Telegram; any error counts as no). Only a yes
    is remembered: someone who just joined is let in at once."""
    if bot is None:
        return False
    cache = members.of(bot)
    try:
        member = await cache.member(bot, chat_id, user_id)
    except TelegramAPIError:
        return False
    if member.status in ("creator", "administrator", "member") or (
            member.status == "restricted" and bool(getattr(member, "is_member", False))):
        cache.keep(chat_id, user_id, member)
        return True
    return False
