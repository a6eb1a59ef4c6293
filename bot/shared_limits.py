"""Telegram's flood limits shared by every worker: token buckets in Redis, taken atomically by one Lua script.

Why: each worker's own pacing (bot/services/outbox.py ``RateLimiter``) knows only its own sends; two
workers each sending one message a second to a chat send two. Here a send first takes a token from the
chat's bucket, the group's bucket (groups: 20 a minute) and the global one (30 a second), all or none,
on the Redis server's clock, so the sum over workers stays under the limits. It is an aiogram request
middleware: it sits on the Bot's session and needs no change to the code that sends.

Token buckets allow a burst of ``cap`` then ``rate`` a second; Telegram counts over sliding windows at
arrival, and calls granted together may arrive bunched (a busy worker, the network), so each bucket is sized
so that cap + rate * window stays within the limit over a window 10% longer than Telegram's (the margin
``outbox.RateLimiter`` keeps too): per chat 1/s with no burst; per group cap 4 + 15/min (4 + 15.25 in 61 s,
under 20); global cap 5 + 22/s (5 + 24.2 in 1.1 s, under 30). Without the margin two workers under CPU
load were refused 2-3 of 72 sends (tests/store/test_shared_limits.py).

A paid broadcast (``allow_paid_broadcast``, bot/services/paid.py) takes its global token from a bucket of its
own, Telegram's 1000 a second with the same margin (cap 50 + 850/s: 985 in 1.1 s), not from the free one;
the per-chat and per-group buckets hold for it as for any message. What each worker may spend is counted
in the database (``paid_spend``), shared by every worker already. A worker's outbox pays when its own
count of the free rate is full; with several workers the shared free bucket fills first, so the
middleware of the outbox's Bot (given the budget) also makes a send paid when the shared free bucket has
no token but the paid one has.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType

from bot.services.paid import PaidBudget

# KEYS: the buckets; ARGV: rate_1, cap_1, rate_2, cap_2, ... (tokens a second, bucket size).
# Returns 0 when a token was taken from every bucket, else the milliseconds until one can be.
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local wait = 0
local state = {}
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i - 1])
  local cap = tonumber(ARGV[2 * i])
  local got = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(got[1]) or cap
  local ts = tonumber(got[2]) or now
  tokens = math.min(cap, tokens + math.max(0, now - ts) * rate)
  state[i] = tokens
  if tokens < 1 then
    wait = math.max(wait, (1 - tokens) / rate)
  end
end
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i - 1])
  local cap = tonumber(ARGV[2 * i])
  local tokens = state[i]
  if wait == 0 then tokens = tokens - 1 end
  redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', key, math.ceil(cap / rate * 1000) + 1000)
end
return math.ceil(wait * 1000)
"""


@dataclass(frozen=True)
class Bucket:
    rate: float  # tokens a second
    cap: float  # the largest burst


@dataclass(frozen=True)
class SharedLimits:
    per_chat: Bucket = Bucket(1.0, 1.0)
    per_group: Bucket = Bucket(15 / 60, 4.0)
    overall: Bucket = Bucket(22.0, 5.0)
    paid: Bucket = Bucket(850.0, 50.0)


class RedisLimiter:
    """Takes a token for one outgoing message in ``chat_id``, waiting (asyncio) until every bucket has one."""

    def __init__(self, redis: Any, prefix: str = "kozyr:limits", limits: SharedLimits | None = None) -> None:
        self.redis = redis
        self.prefix = prefix
        self.limits = limits or SharedLimits()
        self._take = redis.register_script(TAKE)
        self.waited = 0  # how many sends had to wait (for /status and the bench)

    def _buckets(self, chat_id: int, paid: bool = False, receiver: int | None = None) -> tuple[list[str], list[float]]:
        if receiver is not None:  # an ephemeral message that does not count against its group: its own pace
            chosen = [(f"{self.prefix}:chat:{chat_id}:{receiver}", self.limits.per_chat)]
        else:
            chosen = [(f"{self.prefix}:chat:{chat_id}", self.limits.per_chat)]
        if chat_id < 0 and receiver is None:
            chosen.append((f"{self.prefix}:group:{chat_id}", self.limits.per_group))
        if paid:
            chosen.append((f"{self.prefix}:paid", self.limits.paid))
        else:
            chosen.append((f"{self.prefix}:global", self.limits.overall))
        keys = [k for k, _ in chosen]
        args = [x for _, b in chosen for x in (b.rate, b.cap)]
        return keys, args

    async def try_take(self, chat_id: int, paid: bool = False, receiver: int | None = None) -> float:
        """Take the tokens if all are there (0.0), else take nothing and return the seconds to wait. ``receiver``:
        an ephemeral message's, paced apart from its group (``SharedLimitMiddleware.ephemeral_counts``)."""
        keys, args = self._buckets(chat_id, paid, receiver)
        return int(await self._take(keys=keys, args=args)) / 1000

    async def take(self, chat_id: int, paid: bool = False, receiver: int | None = None) -> None:
        while (wait := await self.try_take(chat_id, paid, receiver)) > 0:
            self.waited += 1
            await asyncio.sleep(wait)


COUNTED = ("send", "edit", "copy", "forward")  # the calls Telegram's flood limits count


class SharedLimitMiddleware(BaseRequestMiddleware):
    """Every counted call to a chat waits for its tokens (``bot.session.middleware(SharedLimitMiddleware(l))``);
    with ``paid`` (the outbox's budget), a send that would wait for the shared free rate goes paid instead.
    ``ephemeral_counts`` (the setting of that name): False paces an ephemeral message per receiver, not in its
    group's buckets."""

    def __init__(self, limiter: RedisLimiter, paid: PaidBudget | None = None, ephemeral_counts: bool = True) -> None:
        self.limiter = limiter
        self.paid = paid if paid is not None and paid.on else None
        self.made_paid = 0  # sends this middleware made paid (the shared free rate was used up)
        self.ephemeral_counts = ephemeral_counts

    async def __call__(self, make_request: NextRequestMiddlewareType[TelegramType], bot: Any,
                       method: TelegramMethod[TelegramType]) -> Any:
        chat_id = getattr(method, "chat_id", None)
        name = type(method).__name__.lower()
        if isinstance(chat_id, int) and name.startswith(COUNTED):
            paid = bool(getattr(method, "allow_paid_broadcast", None))
            receiver = None if self.ephemeral_counts else _receiver(method)
            if paid or receiver is not None or not await self._paid_instead(chat_id, method):
                await self.limiter.take(chat_id, paid, receiver)
        return await make_request(bot, method)

    async def _paid_instead(self, chat_id: int, method: Any) -> bool:
        """Take a free token, or else make the send paid (True: its tokens are taken, it is marked paid)."""
        if self.paid is None or "allow_paid_broadcast" not in type(method).model_fields or self.paid.spent() \
                or getattr(method, "ephemeral_message_parameters", None) is not None:
            return False  # not payable (an edit; a hand shown in a group is no broadcast), or the budget is spent
        if await self.limiter.try_take(chat_id) == 0:
            return True  # a free token: sent as it is
        if await self.limiter.try_take(chat_id, paid=True) > 0:
            return False  # the chat's own bucket is empty too: paying would not send it sooner
        if await self.paid.take():
            method.allow_paid_broadcast = True
            self.made_paid += 1
            return True
        return False  # the budget ran out: it waits for a free token (the chat's token was taken twice)


def _receiver(method: Any) -> int | None:
    """The receiver of an ephemeral message (a send's parameters name it; an edit has it as a field), else None."""
    params = getattr(method, "ephemeral_message_parameters", None)
    receiver = getattr(params, "receiver_user_id", None) if params is not None else \
        getattr(method, "receiver_user_id", None)
    return receiver if isinstance(receiver, int) else None


def workers_allowed(workers: int, redis_url: str | None) -> str | None:
    """Why ``workers`` processes may not run (None: they may): without Redis the limits hold for one only."""
    if workers > 1 and not redis_url:
        return (f"KOZYR_WORKERS={workers} needs REDIS_URL: Telegram's limits are shared through Redis; "
                "without it run one worker")
    return None
