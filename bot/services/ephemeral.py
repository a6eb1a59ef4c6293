"""Delivering a hand shown in a group (an outbox row of method ``eph``): an ephemeral message, seen by its
receiver alone (Bot API 10.2, "Ephemeral Messages and Commands").

What the documentation allows, and so what this does: any bot may send one within 15 seconds of the user's
press, naming the press (``callback_query_id``); a bot that is the group's administrator may send one to any
member at any time. Edits (``editEphemeralMessageText``) need neither. Delivery is never guaranteed and the
message may disappear (expired, the app restarted): an edit of a message that is gone is answered "not found",
and only then is a new one sent, if the bot may. Nothing here is the durable copy of a hand: the DM is.

The row's slot names the seat's ephemeral message (``e<table>:<seat>``; the slot's message id is the
``ephemeral_message_id``, 0 when none is on screen).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, cast

from aiogram import Bot
from aiogram import methods as api
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import EphemeralMessageParameters

if TYPE_CHECKING:
    from bot.store.rows import OutboxRow

log = logging.getLogger(__name__)

USED_PRESSES = 4096  # presses remembered as answered with a message (a merged row must not send twice)


class SendEphemeral(api.SendMessage):
    """sendMessage with ``ephemeral_message_parameters`` and the stored keyboard as is; the answer is read raw."""

    __returning__ = dict[str, Any]
    __raw_fields__ = frozenset({"reply_markup"})
    reply_markup: dict[str, Any] | None = None  # type: ignore[assignment]

    if TYPE_CHECKING:
        def __init__(self, **kwargs: Any) -> None: ...


class EditEphemeral(api.EditEphemeralMessageText):
    """editEphemeralMessageText with the stored keyboard as is."""

    __raw_fields__ = frozenset({"reply_markup"})
    reply_markup: dict[str, Any] | None = None  # type: ignore[assignment]

    if TYPE_CHECKING:
        def __init__(self, **kwargs: Any) -> None: ...


class EphemeralSender:
    """Delivers ``eph`` rows. Returns what the slot names from now on (None: unchanged) and why it failed (None:
    it did not): a refusal is final for that row (the hand stays in the DM, where every move can be made)."""

    def __init__(self) -> None:
        self._used: OrderedDict[str, None] = OrderedDict()

    def _fresh(self, press: str | None) -> str | None:
        """The press id if no message answered it yet (a row merged while in flight keeps the id it carried)."""
        return None if press is None or press in self._used else press

    def _answered(self, press: str | None) -> None:
        """The press was answered with a message, or refused for good: its id sends nothing more (a 429 or a
        network error retries the same row, and the id with it)."""
        if press is not None:
            self._used[press] = None
            if len(self._used) > USED_PRESSES:
                self._used.popitem(last=False)

    async def deliver(self, bot: Bot, row: OutboxRow, message_id: int | None) -> tuple[int | None, str | None]:
        p = row.payload
        press = self._fresh(p.get("cq"))
        user = int(p["user"])
        if message_id and press is None:
            try:
                await bot(EditEphemeral(chat_id=row.chat_id, receiver_user_id=user, ephemeral_message_id=message_id,
                                        text=p["text"], reply_markup=p.get("markup")))
                return None, None
            except TelegramBadRequest as exc:
                text = exc.message.lower()
                if "not modified" in text:
                    return None, None
                if "not found" not in text:
                    log.info("ephemeral hand in %s not edited: %s", row.chat_id, exc.message)
                    return 0, exc.message
                # gone (expired, the app restarted): a new one, if the bot may send it
        if press is None and not p.get("admin"):
            return 0, None  # nothing on screen, and only the player's press may bring it back
        params = EphemeralMessageParameters(receiver_user_id=user, callback_query_id=press)
        try:
            raw = cast(dict[str, Any], await bot(SendEphemeral(
                chat_id=row.chat_id, text=p["text"], reply_markup=p.get("markup"),
                message_thread_id=p.get("thread") or None, ephemeral_message_parameters=params)))
        except TelegramBadRequest as exc:
            self._answered(press)
            log.info("ephemeral hand in %s not sent: %s", row.chat_id, exc.message)
            return 0, exc.message
        self._answered(press)
        return int(raw.get("ephemeral_message_id") or 0), None
