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
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from aiogram import Bot
from aiogram import methods as api
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import EphemeralMessageParameters

if TYPE_CHECKING:
    from bot.store.rows import OutboxRow

log = logging.getLogger(__name__)

USED_PRESSES = 4096  # presses remembered as answered with a message (a merged row must not send twice)
REFUSED_FOR = 6 * 3600.0  # seconds a user whose app refused an ephemeral message gets none unasked
REFUSED_USERS = 65536  # users remembered so (the oldest forgotten first)
# Refusals that say nothing about the receiver's app: the press was too old or another's, the bot lacks the
# rights, the message is gone. Any other refusal of a send is taken as the app's.
NOT_THE_APP = ("too old", "query", "rights", "not found", "another user", "other chat")


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

    def __init__(self, counts: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self._used: OrderedDict[str, None] = OrderedDict()
        # Whether ephemeral messages count against a group's 20 messages a minute (Telegram does not say; the
        # setting ``ephemeral_counts``): if so they queue with the group's messages, else each player's apart.
        self.counts = counts
        # Users whose app refused an ephemeral send, until when: no hand goes to them unasked meanwhile (each would
        # cost a group call for nothing; their DM has every hand). Kept in memory, not in the store: it is a
        # guess about one app that a restart may well have changed, costs one call per worker to relearn, and
        # a press of "My hand" tries again at once (a success forgets it).
        self._refused: OrderedDict[int, float] = OrderedDict()
        self._clock = clock

    def refused(self, user_id: int) -> bool:
        """Whether the user's app refused an ephemeral message lately (REFUSED_FOR)."""
        until = self._refused.get(user_id)
        if until is None:
            return False
        if until <= self._clock():
            del self._refused[user_id]
            return False
        return True

    def _learn(self, user_id: int, failure: str | None) -> None:
        if failure is None:
            self._refused.pop(user_id, None)
        elif not any(word in failure.lower() for word in NOT_THE_APP):
            self._refused[user_id] = self._clock() + REFUSED_FOR
            self._refused.move_to_end(user_id)
            if len(self._refused) > REFUSED_USERS:
                self._refused.popitem(last=False)

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
        chat = int(p.get("g") or row.chat_id)  # a hand's own queue (outbox.hand_queue) names its group
        message_id = message_id or p.get("mid")  # a copy named by the row itself (a seat that changed hands)
        if message_id and press is None:
            try:
                await bot(EditEphemeral(chat_id=chat, receiver_user_id=user, ephemeral_message_id=message_id,
                                        text=p["text"], reply_markup=p.get("markup")))
                return None, None
            except TelegramBadRequest as exc:
                text = exc.message.lower()
                if "not modified" in text:
                    return None, None
                if "not found" not in text:
                    log.info("ephemeral hand in %s not edited: %s", chat, exc.message)
                    return 0, exc.message
                # gone (expired, the app restarted): a new one, if the bot may send it
        if press is None and (not p.get("admin") or p.get("mid") or self.refused(user)):
            return 0, None  # nothing on screen, and only the player's press may bring it back
        params = EphemeralMessageParameters(receiver_user_id=user, callback_query_id=press)
        try:
            raw = cast(dict[str, Any], await bot(SendEphemeral(
                chat_id=chat, text=p["text"], reply_markup=p.get("markup"),
                message_thread_id=p.get("thread") or None, ephemeral_message_parameters=params)))
        except TelegramBadRequest as exc:
            self._answered(press)
            self._learn(user, exc.message)
            log.info("ephemeral hand in %s not sent: %s", chat, exc.message)
            return 0, exc.message
        self._answered(press)
        self._learn(user, None)
        return int(raw.get("ephemeral_message_id") or 0), None
