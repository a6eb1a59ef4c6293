"""Updates in: long polling (or the webhook) -> the inbox table -> the dispatcher, at least once.

Why: aiogram's own polling confirms an update to Telegram (the next getUpdates' offset) while its
handler may still be running, so a crash in between loses the command. Here an update is first
written to the ``inbox`` table, and only then is the next getUpdates (which confirms it) sent, or
the webhook answered 200. The row is removed in the transaction that marks the update id handled;
at start, whatever is still in the inbox is handled again. Update ids already handled or already
waiting are dropped, so a redelivery is never handled twice.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.exceptions import (
    TelegramConflictError,
    TelegramRetryAfter,
    TelegramUnauthorizedError,
)
from aiogram.types import Update

from bot import codec
from bot.json_session import RawUpdates
from bot.retry import Backoff, EveryMinute, QuietErrors, is_transient, retry_delay
from bot.store import batch
from bot.store.contract import Store

log = logging.getLogger(__name__)

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
TRANSIENT_RETRIES = 8  # then the update waits in the inbox for the next start (~2 min of backoff before)


class Intake:
    """Accepts updates durably and runs each in its own task; ``drain`` waits for the running ones."""

    def __init__(self, store: Store, dispatcher: Dispatcher, bot: Bot) -> None:
        self.store = store
        self.dispatcher = dispatcher
        self.bot = bot
        self.tasks: set[asyncio.Task[None]] = set()
        self.finished = batch.shared(store)  # handled updates leave the inbox together (with the outbox's)
        self.handled = 0
        self.accepting = 0  # updates being stored (their commit waits for an fsync, bot/store/walsync.py)
        self.fatal: BaseException | None = None  # a reason to stop (a revoked token)
        self._raw: dict[int, str] = {}  # polled updates' JSON as received, by update id, until stored
        self.errors = QuietErrors(log)  # one user's identical failures: one line a minute

    @property
    def in_flight(self) -> int:
        return len(self.tasks) + self.accepting

    async def accept(self, update: Update) -> bool:
        """Persist the update, then start handling it. False when it was seen before (nothing is done)."""
        return await self.accept_all([update]) == 1

    async def accept_all(self, updates: list[Update]) -> int:
        """Persist a batch of updates (a getUpdates answer) in ONE durable transaction and start handling
        the fresh ones; how many were fresh. Returns once the batch is on disk (the caller then confirms
        it: the next getUpdates' offset, the webhook's 200). One transaction, one fsync wait: stored one
        by one, each update of a batch waited for the fsync of the one before (bench/bot.py --split).

        The handlers start as soon as the COMMIT is made, while its fsync runs: a handler tells nobody
        anything before its own durable commit's fsync, which began later and so covers the inbox rows
        too. Waiting first put two fsyncs in a row before every move's commit."""
        raw = self._raw
        payloads = [(update, raw.pop(update.update_id, "") or update.model_dump_json(exclude_unset=True))
                    for update in updates]
        fresh: list[Update] = []

        def start() -> None:
            for update in fresh:
                self._spawn(update)

        self.accepting += len(updates)
        try:
            async with self.store.transaction(committed=start) as tx:
                fresh += [update for update, payload in payloads if await tx.inbox_put(update.update_id, payload)]
        finally:
            self.accepting -= len(updates)
        return len(fresh)

    async def resume(self) -> int:
        """Handle what a previous process received but did not finish (a crash, a kill)."""
        async with self.store.read() as tx:
            rows = await tx.inbox_waiting()
        for update_id, payload in rows:
            log.info("handling update %d again: it was received before a stop but not finished", update_id)
            self._spawn(Update.model_validate_json(payload, context={"bot": self.bot}))
        return len(rows)

    async def sweep(self, every: float) -> None:
        """Several workers (PostgreSQL): every ``every`` seconds, handle what a worker that died had taken
        (``inbox_waiting`` returns only dead workers' updates there). Until cancelled."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.resume()
            except Exception:  # the database is away for a moment: the next sweep tries again
                log.warning("could not look for updates left by a stopped worker", exc_info=True)

    def _spawn(self, update: Update) -> None:
        task = asyncio.create_task(self._handle(update), name=f"update-{update.update_id}")
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        """A handler task ended: forget it; one that failed outside the handler (marking it done) is logged."""
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s failed; it is handled again after a restart", task.get_name(), exc_info=task.exception())

    async def _handle(self, update: Update) -> None:
        if log.isEnabledFor(logging.DEBUG):  # ``event_type`` walks the update's fields: not for a line not written
            log.debug("update %d: %s", update.update_id, update.event_type)
        attempt = 0
        while True:
            try:
                await self.dispatcher.feed_update(self.bot, update)
            except asyncio.CancelledError:
                raise  # not finished: it stays in the inbox and is handled after the restart
            except Exception as exc:
                if is_transient(exc):
                    # Telegram is busy or away (a 429 on getChatMember during /begin): the command is not
                    # lost. The handlers are idempotent (a move marks its update id), so it runs again.
                    attempt += 1
                    if attempt > TRANSIENT_RETRIES:
                        log.warning("update %d: Telegram still failing after %d attempts (%s); it stays in the "
                                    "inbox and is handled again at the next start", update.update_id, attempt,
                                    type(exc).__name__)
                        return
                    delay = retry_delay(exc, attempt)
                    log.info("update %d: %s: %s; handled again in %.1f s", update.update_id, type(exc).__name__,
                             str(exc).partition("\n")[0], delay)
                    await asyncio.sleep(delay)
                    continue
                # A bug, not a crash: handling it again would fail again. Log it (once) and let it go.
                self.errors.report(_sender(update), f"update {update.update_id}", exc)
            break
        # Bookkeeping, not fsynced on its own (docs/operations.md, "Durability"): power loss may hand the update over
        # again, and a move's own durable transaction has marked its update id, so it is not applied twice.
        # Handlers that end together share this transaction (bot/store/batch.py).
        update_id = update.update_id
        await self.finished.run(lambda tx: tx.inbox_done(update_id))
        self.handled += 1

    async def drain(self, timeout: float) -> bool:
        """Wait for the running handlers; True if all finished in time (the rest are cancelled)."""
        if not self.tasks:
            return True
        _, pending = await asyncio.wait(set(self.tasks), timeout=timeout)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)
            log.warning("%d updates were still being handled at the stop; they are handled after the restart",
                        len(pending))
        return not pending

    async def poll(self, timeout: int) -> None:
        """Long polling until cancelled. The offset that confirms an update is sent only after the
        update is in the inbox; network errors back off and are logged once a minute."""
        offset: int | None = None
        backoff = Backoff()
        trouble = EveryMinute(log)
        kwargs: dict[str, Any] = {}
        if self.bot.session.timeout:
            kwargs["request_timeout"] = int(self.bot.session.timeout + timeout)
        while True:
            try:
                updates = await self._get_updates(offset, timeout, kwargs.get("request_timeout"))
            except asyncio.CancelledError:
                raise
            except TelegramUnauthorizedError as exc:
                log.error("Telegram refused the token (revoked?): %s", exc.message)
                self.fatal = exc
                return
            except TelegramRetryAfter as exc:
                await asyncio.sleep(exc.retry_after)
                continue
            except TelegramConflictError as exc:
                trouble.failed("getUpdates (is another bot process using this token?)", exc)
                await asyncio.sleep(backoff.next())
                continue
            except Exception as exc:  # network, 5xx: Telegram comes back eventually
                trouble.failed("getUpdates", exc)
                await asyncio.sleep(backoff.next())
                continue
            backoff.reset()
            trouble.ok("getUpdates")
            if not updates:
                continue
            try:
                await self.accept_all(updates)
            except Exception as exc:  # not stored: leave them unconfirmed, Telegram sends them again
                trouble.failed("storing updates", exc)
                await asyncio.sleep(backoff.next())
                continue
            finally:
                self._raw.clear()
            offset = updates[-1].update_id + 1

    async def _get_updates(self, offset: int | None, timeout: int, request_timeout: int | None) -> list[Update]:
        """getUpdates, each update's JSON kept as received for the inbox (``_raw``): dumping the models back
        cost ~40 us an update. The models are built as aiogram's own answer parsing builds them."""
        answer = await self.bot(RawUpdates(offset=offset, timeout=timeout, allowed_updates=ALLOWED_UPDATES),
                                request_timeout=request_timeout)
        self._raw.clear()
        return [self.parse(data) for data in answer]

    def parse(self, data: Any) -> Update:
        """An update as received (polled, or posted to the webhook) as aiogram's model, its JSON kept for the
        inbox until stored. Raises ValueError (pydantic's ValidationError) for what is not an update."""
        update = Update.model_validate(without_keyboard(data), context={"bot": self.bot})
        self._raw[update.update_id] = codec.dumps(data)
        return update


def _sender(update: Update) -> int | None:
    """Whose update it is (the key of the failure log's rate limit)."""
    event = update.message or update.callback_query or update.my_chat_member
    user = getattr(event, "from_user", None)
    return user.id if user is not None else None


def without_keyboard(data: Any) -> Any:
    """The update, for modeling, without the keyboard of the message whose button was pressed: Telegram sends
    it with every press, and its buttons were most of the update's cost to model (a 16-card hand: ~80 of
    ~130 us). The inbox keeps the update as received; the one handler that reads the pressed keyboard (a
    press on an out-of-date one, bot/handlers/play.py) reads it from there."""
    if not isinstance(data, dict):
        return data
    query = data.get("callback_query")
    if not isinstance(query, dict):
        return data
    message = query.get("message")
    if not isinstance(message, dict) or "reply_markup" not in message:
        return data
    message = {key: value for key, value in message.items() if key != "reply_markup"}
    return {**data, "callback_query": {**query, "message": message}}
