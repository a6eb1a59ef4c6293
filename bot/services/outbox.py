"""The one way out to Telegram: durable per-chat queues in SQLite, paced under the limits.

Services enqueue inside their own transaction (so a move and what it tells people commit
together); the worker delivers in order per chat, merges repeated edits of one message
(only the latest content matters), waits out 429 ``retry_after``, treats "message is not
modified" as success, and never drops a row: what cannot be delivered is kept as failed.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import TYPE_CHECKING, Any, cast

from aiogram import Bot
from aiogram import methods as api
from aiogram.client.session.base import Response
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup, InputMediaPhoto

from bot.services.ephemeral import EphemeralSender
from bot.services.paid import PAID_PER_SECOND, PAYABLE, PaidBudget
from bot.store import batch
from bot.store.contract import Store
from bot.store.contract import StoreTx as Tx
from bot.store.rows import Aged
from bot.store.sqlite import OutboxRow, is_busy
from bot.ui.clip import CAPTION_LIMIT, TEXT_LIMIT, clip_html

log = logging.getLogger(__name__)

# aiogram parses every Bot API answer with ``Response[<the method's result type>]``. pydantic keeps such
# parametrized models only in a weak cache, so the garbage collector frees them and the next call builds
# the model again: 2-7 ms of CPU with the event loop blocked, about once per 20 calls under load
# (measured with bench/bot.py). Holding them here builds each once.
_RESPONSE_MODELS = tuple(Response[m.__returning__] for m in (  # type: ignore[name-defined]  # a runtime type
    api.SendMessage, api.EditMessageText, api.AnswerCallbackQuery, api.SendPhoto, api.EditMessageMedia,
    api.SendDocument, api.DeleteMessage, api.GetChatMember, api.EditMessageReplyMarkup, api.GetUpdates))


class SendText(api.SendMessage):
    """sendMessage with the row's stored keyboard as is, answered with the raw message (only its id is
    read): building the keyboard's models and parsing the whole answer cost ~0.4 ms a call."""

    __returning__ = dict[str, Any]
    __raw_fields__ = frozenset({"reply_markup"})  # sent as stored (bot/json_session.py)
    reply_markup: dict[str, Any] | None = None  # type: ignore[assignment]  # the stored JSON of a keyboard

    if TYPE_CHECKING:
        def __init__(self, **kwargs: Any) -> None: ...


class EditText(api.EditMessageText):
    """editMessageText with the stored keyboard as is; the answer (the edited message) is not parsed."""

    __returning__ = dict[str, Any] | bool
    __raw_fields__ = frozenset({"reply_markup"})
    reply_markup: dict[str, Any] | None = None  # type: ignore[assignment]

    if TYPE_CHECKING:
        def __init__(self, **kwargs: Any) -> None: ...


# Their answers' models, held for the same reason as _RESPONSE_MODELS.
_RAW_RESPONSES = (Response[dict[str, Any]], Response[dict[str, Any] | bool])

LOCKED_RETRY = 5.0  # seconds before a row whose delivery met a locked database is tried again
LOG_LIMIT = 3500  # a merged log message stays well under Telegram's 4096 characters

# Priority classes: a chat's queue sends its most urgent class first, in order within a class.
# Replies to commands and turn pings go first (someone is waiting for them); then the game's news
# (a new deal, a result, the end, people joining or leaving); then edits of the live table message,
# which merge so only the newest state is ever sent; then the hands shown in a group to one player each
# (bot/services/hands/in_group.py): the hand of the player to act (or answering their press) before a
# hand redrawn after its player moved, which merges with that player's next update while it waits; last,
# chatter (/games, /help, /rules, /top), which expires when it could no longer matter. Hands wait a bounded
# number of group calls (HAND_PATIENCE, REDRAW_PATIENCE; ``Outbox._aged``). See docs/operations.md, "What the
# group and the players see".
REPLY, GAME, TABLE, HAND, REDRAW, CHATTER = 0, 1, 2, 3, 4, 5
# Group calls' worth of waiting after which a hand in a group goes before the classes above it (``Outbox._aged``):
# the hand of the player to act soon; a hand redrawn after its player's move much later, as it usually merges
# with that player's next turn first (then it costs no call of its own).
HAND_PATIENCE, REDRAW_PATIENCE = 4, 12
CHATTER_TTL = 60.0  # seconds after which an unsent chatter reply is dropped
SLOT_METHODS = ("edit", "edit_photo", "delete", "eph")  # the calls on the message a slot names
REDRAWS = 2  # times a picture replaced while it was drawn is drawn again (newest content) before sending


Markup = InlineKeyboardMarkup | dict[str, Any] | None  # a keyboard as aiogram's model or as its JSON already


def newest_slot(chat_id: int) -> str:
    """The slot naming the newest message the bot sent in a DM (recorded at each delivery): a hand that
    is not it lies under newer messages, where an edit goes unseen."""
    return f"dm-newest:{chat_id}"


HAND_QUEUES = 1 << 62  # queue keys from here up are a group's hands to one player each (``hand_queue``)


def hand_queue(group_id: int, user_id: int) -> int:
    """The queue of a group's hands to one player, when ephemeral messages do not count against the group's 20
    a minute (``Settings.ephemeral_counts``): a key of its own, so that player's hand waits for nobody else's
    and for none of the group's messages, and is paced like a private chat (a positive key). Far above any
    Telegram id (52 bits at most); the row's payload names the group (``g``)."""
    digest = hashlib.sha1(f"{group_id}:{user_id}".encode()).digest()
    return HAND_QUEUES | (int.from_bytes(digest[:8], "big") & (HAND_QUEUES - 1))


def is_hand_queue(chat_id: int) -> bool:
    return chat_id >= HAND_QUEUES


def api_chat(row: OutboxRow) -> int:
    """The chat a row's call goes to: its queue's, or for a hand's own queue the group its payload names."""
    return int(row.payload["g"]) if is_hand_queue(row.chat_id) else row.chat_id


def markup_data(markup: Markup) -> dict[str, Any] | None:
    """The keyboard as the JSON stored in a row (a dict is that JSON already: keyboards.play_markup)."""
    if markup is None or isinstance(markup, dict):
        return markup
    return markup.model_dump(mode="json", exclude_none=True)


async def send_text(tx: Tx, chat_id: int, text: str, markup: Markup = None,
                    slot: str | None = None, thread_id: int = 0, priority: int = GAME,
                    ttl: float | None = None) -> None:
    """A new message (or, with a slot, the message that slot names from now on)."""
    payload = {"text": clip_html(text, TEXT_LIMIT), "markup": markup_data(markup), "thread": thread_id}
    await tx.enqueue(chat_id, "send", payload, slot=slot, merge_key=f"slot:{slot}" if slot else None,
                     priority=priority, ttl=ttl)


async def edit_text(tx: Tx, chat_id: int, slot: str, text: str, markup: Markup = None,
                    thread_id: int = 0, priority: int = TABLE) -> None:
    """Edit the slot's message; pending edits of it merge into one (the newest content)."""
    payload = {"text": clip_html(text, TEXT_LIMIT), "markup": markup_data(markup), "thread": thread_id}
    await tx.enqueue(chat_id, "edit", payload, slot=slot, merge_key=f"slot:{slot}", priority=priority)


async def clear_keyboard(tx: Tx, chat_id: int, slot: str, priority: int = GAME) -> None:
    """Take the keyboard off the slot's message, leaving its text (a hand of a finished deal)."""
    row = await tx.pending(f"slot:{slot}")
    if row is not None and row.method != "clear_markup" and row.attempts == 0:
        row.payload["markup"] = None  # not sent yet: it goes out without the keyboard
        await tx.set_payload(row.id, row.payload)
        return
    await tx.enqueue(chat_id, "clear_markup", {"slot": slot}, slot=slot, merge_key=f"slot:{slot}",
                     priority=priority)


async def put_blob(tx: Tx, data: bytes) -> str:
    """Keep bytes to send (a document) in the database, so a crash before sending loses nothing."""
    key = hashlib.sha1(data).hexdigest()
    await tx.put_blob(key, data)
    return key


async def send_picture(tx: Tx, chat_id: int, picture: dict[str, Any], caption: str,
                       markup: Markup = None, slot: str | None = None,
                       thread_id: int = 0, priority: int = GAME) -> None:
    """A picture described by ``picture`` (what to draw, from what view); drawn at delivery, in a
    thread, so a move's transaction stays short and merged edits draw only the latest picture."""
    payload = {"picture": picture, "caption": clip_html(caption, CAPTION_LIMIT), "markup": markup_data(markup),
               "thread": thread_id}
    await tx.enqueue(chat_id, "photo", payload, slot=slot, merge_key=f"slot:{slot}" if slot else None,
                     priority=priority)


async def edit_picture(tx: Tx, chat_id: int, slot: str, picture: dict[str, Any], caption: str,
                       markup: Markup = None, thread_id: int = 0,
                       priority: int = TABLE) -> None:
    payload = {"picture": picture, "caption": clip_html(caption, CAPTION_LIMIT), "markup": markup_data(markup),
               "thread": thread_id}
    await tx.enqueue(chat_id, "edit_photo", payload, slot=slot, merge_key=f"slot:{slot}", priority=priority)


async def send_document(tx: Tx, chat_id: int, data: bytes, filename: str, caption: str = "",
                        thread_id: int = 0) -> None:
    payload = {"blob": await put_blob(tx, data), "filename": filename, "caption": clip_html(caption, CAPTION_LIMIT),
               "thread": thread_id}
    await tx.enqueue(chat_id, "document", payload, priority=REPLY)


async def log_line(tx: Tx, chat_id: int, line: str, thread_id: int = 0, fold: tuple[str, str] | None = None) -> None:
    """A short line for the group's log. Lines queued before the last one went out are sent
    together as one message, which keeps a busy table inside the group's 20 messages a minute.
    ``fold`` (a head and a part; ``line`` is then ignored): when the queued message's last line has
    the same head, the part joins that line ("🂠 Kept a card: Ann, Bob"), else a line "head part" starts."""
    key = f"log:{chat_id}:{thread_id}"
    if fold is not None:
        line = f"{fold[0]} {fold[1]}"
    line = clip_html(line, LOG_LIMIT)
    row = await tx.pending(key)
    if row is not None and row.attempts == 0 and not row.payload.get("sealed") \
            and len(row.payload["text"]) + len(line) < LOG_LIMIT:
        text: str = row.payload["text"]
        last = text.rpartition("\n")[2]
        if fold is not None and last.startswith(fold[0] + " "):
            row.payload["text"] = text + ", " + fold[1]
        else:
            row.payload["text"] = text + "\n" + line
        if fold is not None:  # should the row be in flight now, what is added after it starts with the head
            row.payload["fold"] = fold[0]
        await tx.set_payload(row.id, row.payload)
        return
    payload = {"text": line, "markup": None, "thread": thread_id, **({"fold": fold[0]} if fold else {})}
    await tx.enqueue(chat_id, "send", payload, merge_key=None)
    await tx.tag_last(key)


async def seal_log(tx: Tx, chat_id: int, thread_id: int = 0) -> None:
    """Lines logged from now on go to a new message, after whatever is queued meanwhile (a table message that
    sums up the lines before it): a waiting log message takes no more lines."""
    row = await tx.pending(f"log:{chat_id}:{thread_id}")
    if row is not None and row.attempts == 0 and not row.payload.get("sealed"):
        row.payload["sealed"] = True
        await tx.set_payload(row.id, row.payload)


class RateLimiter:
    """Telegram's documented limits: ~1 message a second per chat, 20 a minute per group, 30 a second in all.

    A private chat may take a short burst (``chat_burst`` messages, then one per ``per_chat_interval``),
    so a turn ping right after a hand update is not held back a second. A group's 20 a minute are spread
    evenly, one call per ``60/20`` seconds (plus a margin): a burst would be paid later by a silence of up
    to 40 s, and the live table message must never be more than a few seconds behind the game.

    Paid broadcasts (bot/services/paid.py) count against their own ``paid_per_second``, not the free 30.
    """

    WINDOW = 61.0  # a second of margin over Telegram's minute, for the network's jitter
    GLOBAL_WINDOW = 1.1  # the same for the 30 a second: calls leave together but arrive spread out

    def __init__(self, per_chat_interval: float, group_per_minute: int, global_per_second: int,
                 chat_burst: int = 3, paid_per_second: int = PAID_PER_SECOND * 9 // 10) -> None:
        self.per_chat_interval = per_chat_interval
        self.group_per_minute = group_per_minute
        self.global_per_second = global_per_second
        self.chat_burst = chat_burst
        self.group_gap = max(per_chat_interval, self.WINDOW / group_per_minute) if group_per_minute else 0.0
        self.next_at: dict[int, float] = {}  # not before (429 retry_after, a group's even spacing)
        self.tokens: dict[int, tuple[float, float]] = {}  # private chats: (tokens, at)
        self.group_sent: dict[int, deque[float]] = {}
        self.global_sent: deque[float] = deque()
        self.paid_per_second = paid_per_second  # a tenth under Telegram's 1000, for the network's jitter
        self.paid_sent: deque[float] = deque()

    def _tokens(self, chat_id: int, now: float) -> float:
        tokens, at = self.tokens.get(chat_id, (float(self.chat_burst), now))
        return min(float(self.chat_burst), tokens + (now - at) / self.per_chat_interval)

    def ready_at(self, chat_id: int, now: float, overall: bool = True) -> float:
        """When the chat may send next (``overall`` False: leaving out the free global rate, which a paid
        message does not wait for)."""
        at = self.next_at.get(chat_id, 0.0)
        if chat_id < 0:
            window = self.group_sent.get(chat_id)
            if window is not None:
                while window and window[0] <= now - self.WINDOW:
                    window.popleft()
                if len(window) >= self.group_per_minute:
                    at = max(at, window[0] + self.WINDOW)
        elif self.per_chat_interval > 0:
            tokens = self._tokens(chat_id, now)
            if tokens < 1.0:
                at = max(at, now + (1.0 - tokens) * self.per_chat_interval)
        if overall and self.global_full(now):
            at = max(at, self.global_free_at())
        return at

    def global_full(self, now: float) -> bool:
        """Whether the free messages of the last second (and its margin) are used up."""
        while self.global_sent and self.global_sent[0] <= now - self.GLOBAL_WINDOW:
            self.global_sent.popleft()
        return len(self.global_sent) >= self.global_per_second

    def global_free_at(self) -> float:
        """When the oldest free message of the window leaves it (``global_full`` just said it is full)."""
        return self.global_sent[0] + self.GLOBAL_WINDOW if self.global_sent else 0.0

    def paid_room(self, now: float) -> bool:
        """Whether a paid message may go now (Telegram takes up to 1000 a second)."""
        while self.paid_sent and self.paid_sent[0] <= now - self.GLOBAL_WINDOW:
            self.paid_sent.popleft()
        return len(self.paid_sent) < self.paid_per_second

    def sent(self, chat_id: int, now: float, paid: bool = False) -> None:
        if chat_id < 0:
            self.next_at[chat_id] = max(self.next_at.get(chat_id, 0.0), now + self.group_gap)
            self.group_sent.setdefault(chat_id, deque()).append(now)
        elif self.per_chat_interval > 0:
            self.tokens[chat_id] = (self._tokens(chat_id, now) - 1.0, now)
        (self.paid_sent if paid else self.global_sent).append(now)

    def retry_after(self, chat_id: int, now: float, seconds: float) -> None:
        self.next_at[chat_id] = max(self.next_at.get(chat_id, 0.0), now + seconds)

    def forget_idle(self, now: float) -> None:
        """Drop the bookkeeping of chats quiet for a minute (it would grow with every chat ever served)."""
        for chat_id in [c for c, at in self.next_at.items() if at < now - self.WINDOW]:
            del self.next_at[chat_id]
        for chat_id in [c for c, (_, at) in self.tokens.items() if at < now - self.WINDOW]:
            del self.tokens[chat_id]
        for chat_id in [c for c, w in self.group_sent.items() if not w or w[-1] < now - self.WINDOW]:
            del self.group_sent[chat_id]


class Outbox:
    """The delivery worker. ``wake()`` after a commit; ``drain()`` waits until all is sent.

    Which chats have work comes from the store (every enqueue names its chat; a periodic skip scan
    catches the rest), and each chat's next row is one index seek, so a chat with 200,000 rows
    queued costs the others nothing. Only rows about to be sent are read and decoded.
    """

    RESCAN = 5.0  # seconds between full looks at which chats have pending rows
    AGING = 3.0  # seconds of waiting worth one priority class, across chats when the global budget is short

    def __init__(self, store: Store, bot: Bot, limiter: RateLimiter,
                 render: Callable[[dict[str, Any]], bytes] | None = None, paid: PaidBudget | None = None) -> None:
        self.store = store
        self.render = render
        # Paid broadcasts (opt-in): a send past the free global rate goes at once, paid, within the budget.
        self.paid = paid if paid is not None and paid.on else None
        self.bot = bot
        self.limiter = limiter
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._inflight: set[int] = set()
        self._deliveries: set[asyncio.Task[None]] = set()  # kept until done (the loop holds tasks weakly)
        self.finished = batch.shared(store)  # delivered rows are recorded done together (``_done``)
        self._chats: set[int] = set()  # chats that may have pending rows
        # Chats in flight whose row was their only pending one when read, and nothing was queued for them since.
        self._alone: set[int] = set()
        # Of those, the ones the next dispatch looks at: neither in flight nor known to wait for the limiter.
        self._due: dict[int, None] = {}
        # Chats waiting for the limiter, by the time they may send next: that time only moves when the chat
        # is served (or answered 429), so a waiting chat costs nothing until its time comes.
        self._later: list[tuple[float, int]] = []
        self._waiting: dict[int, float] = {}
        self._aged_last: set[int] = set()  # groups whose last row was an aged hand: their next one is not
        self._rescan_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.calls = 0
        self.retry_afters = 0
        self.failures = 0
        self.expired = 0
        self.pictures_drawn = 0
        self.pictures_reused = 0  # sent by file id: Telegram had that picture, nothing was drawn
        self.pictures_replaced = 0  # drawn, then replaced by a newer picture before sending: not sent
        # Seconds from the commit of a change to its delivery in a group (the group view's lag).
        self.group_lags: deque[float] = deque(maxlen=100_000)
        self.hand_lags: deque[float] = deque(maxlen=100_000)  # the same for the hands shown in groups (``eph``)
        self.hands_aged = 0  # hands in a group sent ahead of its more urgent rows for having waited (``_aged``)
        # Called (in the transaction that keeps the row as failed) when a user's DM answers 403:
        # ``(tx, user_id, blocked)``; the people service (``People.user_unreachable``)
        # tells the groups where they play.
        self.on_unreachable: Callable[[Tx, int, bool], Awaitable[None]] | None = None
        # Hands shown in a group (``eph`` rows, bot/services/ephemeral.py): told each row's outcome, after it
        # is recorded, ``(row, failure)`` (the hands-in-group service answers the press or falls back to the DM).
        self.ephemeral = EphemeralSender()
        self.on_ephemeral: Callable[[OutboxRow, str | None], Awaitable[None]] | None = None

    def wake(self) -> None:
        self._wake.set()

    def start(self) -> None:
        self._stopping = False
        self._rescan_at = 0.0
        self._task = asyncio.create_task(self._run(), name="outbox")

    async def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait until nothing is pending (failed rows do not count)."""
        deadline = time.monotonic() + timeout
        while True:
            async with self.store.read() as tx:
                pending = await tx.any_pending()
            if not pending and not self._inflight:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"outbox still has work after {timeout}s")
            self._rescan_at = 0.0
            self.wake()
            await asyncio.sleep(0.02)

    async def _run(self) -> None:
        while not self._stopping:
            try:
                delay = await self._dispatch()
            except Exception:  # a bug here must not stop delivery for good
                log.exception("outbox dispatch failed")
                delay = 1.0
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            except TimeoutError:
                pass
        while self._inflight:
            await asyncio.sleep(0.01)

    def _look_at(self, chat_id: int) -> None:
        """The chat may have work: the next dispatch looks at it, unless it waits for the limiter."""
        if chat_id not in self._waiting:
            self._due[chat_id] = None

    def _aged(self, chat_id: int, wall: float) -> Aged | None:
        """A group's hands that waited HAND_PATIENCE of its calls (REDRAW_PATIENCE for a hand redrawn after a move)
        go before the classes above them, oldest first, but never twice in a row: the group's view (its table
        edit) still gets at least every other call, and a hand waits at most its patience plus two calls for each
        hand that waited longer (one a seat, merged by slot), however busy the group."""
        if chat_id >= 0 or chat_id in self._aged_last or not self.limiter.group_gap:
            return None
        gap = self.limiter.group_gap
        return HAND, REDRAW, wall - HAND_PATIENCE * gap, (REDRAW_PATIENCE - HAND_PATIENCE) * gap

    def _wait(self, chat_id: int, at: float) -> None:
        self._waiting[chat_id] = at
        heapq.heappush(self._later, (at, chat_id))

    async def _dispatch(self) -> float:
        """Start delivering the next row of every chat that may send now; return how long to sleep.
        Only chats that got work, finished a delivery or reached their limiter's time are looked at."""
        now = time.monotonic()
        queued = self.store.queued
        if queued:
            self._chats.update(queued)
            self._alone.difference_update(queued)
            for chat_id in queued:
                self._look_at(chat_id)
            queued.clear()
        later = self._later
        while later and later[0][0] <= now:
            chat_id = heapq.heappop(later)[1]
            del self._waiting[chat_id]
            if chat_id in self._chats:
                self._due[chat_id] = None
        rescan = now >= self._rescan_at
        ready = []
        # With a budget to pay, a chat is not held back by the free global rate before its row is read: a
        # send may go paid (an edit read then waits for the free rate, below).
        overall = self.paid is None or self.paid.spent()
        for chat_id in self._due:
            if chat_id in self._inflight or chat_id not in self._chats:
                continue  # a delivery that ends looks at its chat again
            at = self.limiter.ready_at(chat_id, now, overall)
            if at > now:
                self._wait(chat_id, at)
                continue
            ready.append(chat_id)
        self._due = dict.fromkeys(ready)  # looked at again until served (the global budget may hold them)
        delay = min(self.RESCAN, later[0][0] - now) if later else self.RESCAN
        if not ready and not rescan:
            return max(delay, 0.005)
        rows: list[OutboxRow] = []
        wall = time.time()
        async with self.store.read() as tx:
            if rescan:
                self._rescan_at = now + self.RESCAN
                self.limiter.forget_idle(now)
                for chat_id in await tx.pending_chats():
                    if chat_id in self._chats:
                        continue
                    self._chats.add(chat_id)
                    if chat_id in self._inflight:
                        continue  # its delivery, when it ends, looks at it
                    at = self.limiter.ready_at(chat_id, now, overall)
                    if at > now:
                        self._wait(chat_id, at)
                        delay = min(delay, at - now)
                    else:
                        ready.append(chat_id)
                        self._due[chat_id] = None
            ages = {chat_id: self._aged(chat_id, wall) for chat_id in ready}
            aged_for = {chat_id for chat_id, aged in ages.items() if aged is not None}
            aged_now = next((ages[c] for c in aged_for), None)  # the same for every group in this look
            heads = {row.chat_id: row for row in await tx.next_rows(ready, aged_now, aged_for)}  # one claim
            for chat_id in ready:
                aged = ages[chat_id]
                row = heads.get(chat_id)
                # decided under the store's lock: no enqueue can slip between the look and the discard
                while row is not None and row.expires_at is not None and row.expires_at < wall:
                    await tx.drop_expired(row.id)
                    self.expired += 1
                    row = await tx.next_row(chat_id, aged)
                if row is not None and aged is not None and aged[0] <= row.priority <= aged[1] \
                        and (row.created_at or wall) < aged[2] - (row.priority - aged[0]) * aged[3]:
                    self._aged_last.add(chat_id)  # its next row is the most urgent one, whatever waited
                    self.hands_aged += 1
                else:
                    self._aged_last.discard(chat_id)
                if row is None:
                    self._chats.discard(chat_id)
                    self._due.pop(chat_id, None)
                else:
                    if row.slot is not None and row.method in SLOT_METHODS and not row.slot_read:
                        row.slot_message, row.slot_read = await tx.slot_message(row.slot), True  # the lock is held
                    rows.append(row)
        if rows:
            # A row may come from a move whose fsync is still running (group commit, bot/store/walsync.py):
            # nothing is shown to anyone before the move it shows would survive power loss.
            await self.store.durable()
        # When the 30 a second in all cannot serve every chat now, the most urgent rows go first (a
        # player's keyboard before a table edit); a row moves up a class for every AGING seconds it has
        # waited, so the groups are slowed under overload, not starved.
        rows.sort(key=lambda r: (r.priority - (wall - (r.created_at or wall)) / self.AGING, r.id))
        for row in rows:
            if self.limiter.global_full(now):
                if self.paid is None:
                    delay = min(delay, 0.05)
                    break
                if not await self._pays(row, now):  # an edit, or the budget is spent: it waits for the free rate
                    self._due.pop(row.chat_id, None)
                    self._wait(row.chat_id, self.limiter.global_free_at())
                    delay = min(delay, max(0.005, self.limiter.global_free_at() - now))
                    continue
            self.limiter.sent(row.chat_id, now, row.paid)
            self._inflight.add(row.chat_id)
            self._due.pop(row.chat_id, None)  # in flight: looked at again when the delivery ends
            if row.alone:
                self._alone.add(row.chat_id)
            task = asyncio.create_task(self._deliver(row), name=f"outbox-row-{row.id}")
            self._deliveries.add(task)
            task.add_done_callback(self._delivered)
        return max(delay, 0.005)

    async def _pays(self, row: OutboxRow, now: float) -> bool:
        """Whether ``row`` goes now as a paid broadcast (marked so): a send, with room in the paid rate and a
        message left in the hour's budget."""
        if self.paid is None or row.method not in PAYABLE or not self.limiter.paid_room(now):
            return False
        row.paid = await self.paid.take()
        return row.paid

    def _delivered(self, task: asyncio.Task[None]) -> None:
        self._deliveries.discard(task)
        if not task.cancelled() and task.exception() is not None:  # recording the outcome itself failed
            log.error("%s: delivery failed; the row stays pending", task.get_name(), exc_info=task.exception())

    async def _deliver(self, row: OutboxRow) -> None:
        chat_id = row.chat_id  # the row may move to a supergroup's id on the way
        gone = False
        try:
            gone = await self._deliver_row(row)
        except Exception as exc:  # never lose the row: keep it as failed and say why
            if is_busy(exc):
                # The database stayed locked from outside longer than the store waits: a transient fault,
                # never a reason to give the row up. It stays pending and is tried again shortly.
                log.warning("outbox row %s waits: the database is locked", row.id)
                self.limiter.retry_after(row.chat_id, time.monotonic(), LOCKED_RETRY)
                return
            log.exception("outbox row %s failed", row.id)
            self.failures += 1
            async with self.store.transaction() as tx:
                await tx.outbox_failed(row.id, f"{type(exc).__name__}: {exc}")
        finally:
            self._inflight.discard(chat_id)
            self._inflight.discard(row.chat_id)
            alone = chat_id in self._alone
            self._alone.discard(chat_id)
            if gone and alone and row.chat_id == chat_id and chat_id not in self.store.queued:
                # It was the chat's only row when read and nothing was queued for the chat since: the
                # queue is empty, no need to read it again (an empty read per delivery, bench/bot.py --sql).
                self._chats.discard(chat_id)
                self._due.pop(chat_id, None)
            else:
                self._look_at(chat_id)
                self._look_at(row.chat_id)
            self.wake()

    async def _deliver_row(self, row: OutboxRow) -> bool:
        """Deliver the row; True when it was delivered and is gone from the queue."""
        gone = False
        while True:
            try:
                gone = await self._call(row)
            except TelegramRetryAfter as exc:
                self.retry_afters += 1
                self.limiter.retry_after(row.chat_id, time.monotonic(), float(exc.retry_after))
                return False  # the row stays at the head of its chat's queue
            except TelegramMigrateToChat as exc:
                if is_hand_queue(row.chat_id):  # a hand's own queue stays; the group it names moved
                    row.payload["g"] = exc.migrate_to_chat_id
                    continue
                # The row is about to head the new chat's queue: mark that chat busy, or the next
                # dispatch would deliver this same row a second time, concurrently.
                self._inflight.add(exc.migrate_to_chat_id)
                async with self.store.transaction() as tx:
                    await tx.migrate_chat(row.chat_id, exc.migrate_to_chat_id)
                row.chat_id = exc.migrate_to_chat_id
                row.slot_read = False  # the old chat's messages are forgotten
                if row.method in ("edit", "edit_photo"):
                    row.method = "send" if row.method == "edit" else "photo"
                continue
            except TelegramBadRequest as exc:
                text = exc.message.lower()
                if "message is not modified" in text:
                    async with self.store.transaction(durable=False) as tx:
                        gone = await tx.outbox_done(row)
                elif "message to edit not found" in text and row.method in ("edit", "edit_photo"):
                    row.method = "send" if row.method == "edit" else "photo"
                    continue
                elif "message to delete not found" in text or (row.method == "clear_markup" and "not found" in text):
                    async with self.store.transaction(durable=False) as tx:
                        gone = await tx.outbox_done(row)
                else:
                    raise
            except TelegramForbiddenError as exc:
                async with self.store.transaction() as tx:
                    if 0 < row.chat_id < HAND_QUEUES:  # a DM: blocked, or never opened ("can't initiate conversation")
                        blocked = "blocked" in exc.message.lower()
                        if self.on_unreachable is not None:
                            await self.on_unreachable(tx, row.chat_id, blocked)
                        elif blocked:
                            await tx.set_user_blocked(row.chat_id)
                        else:
                            await tx.set_user_started(row.chat_id, False)
                    await tx.outbox_failed(row.id, f"forbidden: {exc.message}")
                self.failures += 1
                return False
            except (TelegramNetworkError, TelegramServerError) as exc:
                async with self.store.transaction(durable=False) as tx:
                    await tx.outbox_attempted(row.id, str(exc))
                self.limiter.retry_after(row.chat_id, time.monotonic(), min(30.0, 0.5 * 2 ** min(row.attempts, 6)))
                return False
            return gone

    async def _call(self, row: OutboxRow) -> bool:
        """One Bot API call for the row; then, in one transaction, the row is done and what the call
        taught us (the message a slot names, an uploaded image's file id) is recorded. True when the row
        is gone (False: nothing to delete, or newer content merged into it meanwhile keeps it queued)."""
        image = await self._image(row) if row.method in ("photo", "edit_photo") else None
        p = row.payload  # read after the picture: a newer one may have replaced the row's while it was drawn
        method = row.method
        # A picture's keyboard as aiogram's model; a text's goes as the stored JSON (SendText, EditText).
        markup = InlineKeyboardMarkup.model_validate(p["markup"]) if p.get("markup") and image is not None else None
        thread = p.get("thread") or None
        paid = True if row.paid else None  # a paid broadcast (``_pays``); sends only, never an edit
        message_id = None
        learned: dict[str, Any] = {}  # what the call teaches us, recorded with the row's completion
        pictures: dict[str, str] = {}  # picture keys -> the file id Telegram gave the upload
        if method in SLOT_METHODS:
            if row.slot_read:  # read with the row (only this delivery sends the chat's rows, so it is current)
                message_id = row.slot_message
            else:
                async with self.store.read() as tx:
                    message_id = await tx.slot_message(row.slot or "")
            if message_id is None and method != "eph":
                if method == "delete":  # nothing was ever sent under that slot: nothing to delete, done
                    return await self._done(row, learned, pictures)
                method = "send" if method == "edit" else "photo"
        if method == "send" and row.slot is None and not p.get("text"):
            # A log message that went out while it was sealed: what is left of it is no line, only the seal.
            return await self._done(row, learned, pictures)
        self.calls += 1
        if method == "send":
            raw = cast(dict[str, Any], await self.bot(SendText(chat_id=row.chat_id, text=p["text"],
                                                               reply_markup=p.get("markup"), message_thread_id=thread,
                                                               allow_paid_broadcast=paid)))
            learned = {"slot_message": int(raw["message_id"])}
        elif method == "edit":
            await self.bot(EditText(text=p["text"], chat_id=row.chat_id, message_id=message_id,
                                    reply_markup=p.get("markup")))
        elif method in ("photo", "edit_photo"):
            assert image is not None
            keys, data, file_id = image
            media: Any = file_id or BufferedInputFile(data, filename="table.png")
            if method == "photo":
                sent = await self.bot.send_photo(row.chat_id, media, caption=p["caption"], reply_markup=markup,
                                                 message_thread_id=thread, allow_paid_broadcast=paid)
                learned = {"slot_message": sent.message_id}
                uploaded = file_id or (sent.photo[-1].file_id if sent.photo else None)
            else:
                result = await self.bot.edit_message_media(
                    media=InputMediaPhoto(media=media, caption=p["caption"]), chat_id=row.chat_id,
                    message_id=message_id, reply_markup=markup)
                uploaded = file_id or (result.photo[-1].file_id if not isinstance(result, bool) and result.photo
                                       else None)
            if uploaded is not None:  # known from now on by its spec (no drawing) and by its bytes
                pictures = dict.fromkeys(keys, uploaded)
        elif method == "document":
            async with self.store.read() as tx:
                data, _ = await tx.blob(p["blob"])
            document = await self.bot.send_document(row.chat_id, BufferedInputFile(data, filename=p["filename"]),
                                                    caption=p.get("caption") or None, message_thread_id=thread,
                                                    allow_paid_broadcast=paid)
            learned = {"slot_message": document.message_id}
        elif method == "delete":
            await self.bot.delete_message(row.chat_id, message_id)  # type: ignore[arg-type]
        elif method == "clear_markup":
            target = p.get("message_id")
            if target is None and row.slot_read and row.slot == p.get("slot"):  # read with the row
                target = row.slot_message
            elif target is None:  # by slot: the message that slot names, if it was ever sent
                async with self.store.read() as tx:
                    target = await tx.slot_message(p["slot"])
            if target is not None:
                await self.bot.edit_message_reply_markup(chat_id=row.chat_id, message_id=target)
        elif method == "eph":  # a hand shown in a group, to its player alone
            eph_id, failure = await self.ephemeral.deliver(self.bot, row, message_id)
            if row.created_at is not None:
                self.hand_lags.append(time.time() - row.created_at)
            if eph_id is not None:
                learned = {"slot_message": eph_id}
            gone = await self._done(row, learned, pictures)
            if self.on_ephemeral is not None:
                await self.on_ephemeral(row, failure)
            return gone
        else:
            raise ValueError(f"unknown outbox method {method!r}")
        gone = await self._done(row, learned, pictures)
        if row.chat_id < 0 and row.created_at is not None:
            self.group_lags.append(time.time() - row.created_at)
        return gone

    async def _done(self, row: OutboxRow, learned: dict[str, Any], pictures: dict[str, str]) -> bool:
        """Record a delivered row (and what its call taught us); returns once that is committed, True when
        the row was deleted (no newer content was merged into it meanwhile).

        Deliveries that end close together are recorded in one transaction (bot/store/batch.py). The chat
        stays in flight until its row is recorded, so its next row is never picked before. Not fsynced on
        its own: lost on power loss, the row is sent once more, no worse."""
        gone: list[bool] = []  # the outcome of the run that committed (a failed shared one is run again)

        async def record(tx: Tx) -> None:
            gone[:] = [await self._record_one(tx, row, learned, pictures)]

        await self.finished.run(record)
        return bool(gone and gone[0])

    @staticmethod
    async def _record_one(tx: Tx, row: OutboxRow, learned: dict[str, Any], pictures: dict[str, str]) -> bool:
        for key, uploaded in pictures.items():  # remember only the file id of drawn pictures
            await tx.put_blob(key, b"")
            await tx.set_blob_file_id(key, uploaded)
        if 0 < row.chat_id < HAND_QUEUES and "slot_message" in learned:  # a new message in a DM: the newest there now
            await tx.set_slot(newest_slot(row.chat_id), row.chat_id, learned["slot_message"])
        return await tx.outbox_done(row, **learned)

    async def _image(self, row: OutboxRow) -> tuple[list[str], bytes, str | None]:
        """The picture's keys, its bytes and, if Telegram has it already, its file id (then nothing is
        uploaded; known by its spec, nothing is drawn either). Coalesced: a picture is drawn only for the
        newest content of its row. A move that replaces the row's picture while this one waits or is
        drawn makes the newer one drawn instead, and the replaced one is never sent."""
        if self.render is None:
            raise RuntimeError("a picture was queued but this outbox cannot draw")
        for attempt in range(REDRAWS + 1):
            key = picture_key(row.payload["picture"])
            async with self.store.read() as tx:
                newer = await self._newer(tx, row)
                file_id = None if newer is not None else await _file_id(tx, key)
            if newer is not None:
                row.payload = newer
                continue
            if file_id is not None:
                self.pictures_reused += 1
                return [key], b"", file_id
            data = await asyncio.to_thread(self.render, row.payload["picture"])
            self.pictures_drawn += 1
            drawn = hashlib.sha1(data).hexdigest()  # another spec may have drawn the very same picture
            async with self.store.read() as tx:
                newer = await self._newer(tx, row)
                file_id = await _file_id(tx, drawn)
            if newer is None or attempt == REDRAWS:
                return [key, drawn], data, file_id
            self.pictures_replaced += 1  # drawn for nothing: a newer picture came while it was drawn
            row.payload = newer
        raise AssertionError("unreachable")

    @staticmethod
    async def _newer(tx: Tx, row: OutboxRow) -> dict[str, Any] | None:
        """The row's payload if a newer picture was merged into it since it was read (an index seek)."""
        if row.merge_key is None:
            return None
        current = await tx.pending(row.merge_key)
        if (current is None or current.id != row.id or current.method != row.method
                or current.payload == row.payload or "picture" not in current.payload):
            return None
        return current.payload


async def _file_id(tx: Tx, key: str) -> str | None:
    try:
        return (await tx.blob(key))[1]
    except KeyError:
        return None


def picture_key(spec: dict[str, Any]) -> str:
    """Names the picture a spec draws. Drawing is pure, so one spec is one picture: a picture Telegram
    already has (its file id is stored under this key) is sent again without being drawn. The version
    is part of the key, since a new release may draw the same spec differently."""
    text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "pic:" + hashlib.sha1(f"{_VERSION}\n{text}".encode()).hexdigest()


def _version() -> str:
    try:
        return metadata.version("kozyr")
    except metadata.PackageNotFoundError:
        return "dev"


_VERSION = _version()
