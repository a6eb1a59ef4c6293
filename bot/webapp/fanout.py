"""Several workers: a change made by one worker reaches the open apps another serves, through Redis.

Several workers always share Redis (REDIS_URL: Telegram's limits), so the app uses it too: Redis
pub/sub carries "table T is at version V" between workers (``RedisFanout``), and the seen initData
hashes live in Redis (``RedisSeen``, ``SET NX`` with the initData's expiry), so a replay to another
worker is refused as well. A worker publishes as soon as its change is made (inside the transaction);
a worker that hears it reads the table and, while the store still shows an older version (the commit
is on its way), reads again shortly after (``Hub.remote``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

CHANNEL = "kozyr:app:tables"


class RedisSeen:
    """The seen initData hashes (``auth.SeenHashes``) in Redis: one answer for every worker."""

    def __init__(self, redis: Any, prefix: str = "kozyr:app:seen") -> None:
        self.redis = redis
        self.prefix = prefix

    async def first(self, key: str, until: float) -> bool:
        return bool(await self.redis.set(f"{self.prefix}:{key}", b"1", nx=True, exat=max(1, int(until) + 1)))


class RedisFanout:
    """Tells the other workers which table changed, and tells this worker's hub what they changed."""

    def __init__(self, redis: Any, channel: str = CHANNEL) -> None:
        self.redis = redis
        self.channel = channel
        self.origin = secrets.token_hex(6)  # this worker: its own messages come back and are skipped
        self._pending: dict[int, int | None] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub: Any = None
        self.heard = 0

    async def start(self, on_remote: Callable[[int, int | None], None]) -> None:
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.channel)
        self._tasks = [asyncio.create_task(self._listen(on_remote), name="app-fanout-listen"),
                       asyncio.create_task(self._send(), name="app-fanout-send")]

    def publish(self, table_id: int, version: int | None) -> None:
        """Queue "this table changed" for the other workers (called in the change's transaction)."""
        known = self._pending.get(table_id)
        self._pending[table_id] = version if known is None or version is None else max(known, version)
        self._wake.set()

    async def _send(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, {}
            for table_id, version in batch.items():
                payload = f"{table_id}:{'' if version is None else version}:{self.origin}"
                try:
                    await self.redis.publish(self.channel, payload)
                except Exception as exc:  # Redis away: the other workers' apps catch up at the next change
                    log.warning("could not tell the other workers that table %s changed: %s", table_id, exc)

    async def _listen(self, on_remote: Callable[[int, int | None], None]) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("the workers' change channel failed (%s); listening again", exc)
                await asyncio.sleep(1.0)
                with contextlib.suppress(Exception):
                    await self._pubsub.subscribe(self.channel)
                continue
            if not message or message.get("type") != "message":
                continue
            data = message["data"]
            text = data.decode() if isinstance(data, bytes) else str(data)
            table, _, rest = text.partition(":")
            version, _, origin = rest.partition(":")
            if origin == self.origin or not table.isdigit():
                continue
            self.heard += 1
            on_remote(int(table), int(version) if version.isdigit() else None)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(self.channel)
                await self._pubsub.aclose()
