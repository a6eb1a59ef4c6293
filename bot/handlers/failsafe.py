"""No press is left spinning: a press handler that fails answers "something went wrong; nothing changed"
in the presser's language, and the failure is logged once (identical ones from one user are counted, not
written again: bot/retry.py ``QuietErrors``). A transient Telegram error (429, 5xx, the network) is passed
on instead: the intake handles the update again (bot/intake.py), and that run answers the press."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, TelegramObject

from bot.retry import QuietErrors, is_transient
from bot.services.types import Actor
from bot.ui.i18n import t

log = logging.getLogger(__name__)


class PressFailsafe(BaseMiddleware):
    """An outer callback-query middleware, inside ``Context`` (it reads the actor's language)."""

    def __init__(self) -> None:
        self.errors = QuietErrors(log)
        self.failed = 0

    async def __call__(self, handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
                       event: TelegramObject, data: dict[str, Any]) -> Any:
        try:
            return await handler(event, data)
        except Exception as exc:
            if is_transient(exc) or not isinstance(event, CallbackQuery):
                raise
            self.failed += 1
            actor = data.get("actor")
            lang = actor.lang if isinstance(actor, Actor) else "en"
            self.errors.report(event.from_user.id, f"press {event.data!r}", exc)
            try:
                await event.answer(t(lang, "Something went wrong; nothing changed."), show_alert=True)
            except TelegramAPIError:  # answered before the failure, or too old: nothing more to tell
                pass
            return None
