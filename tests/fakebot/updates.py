"""The update queue behind getUpdates: offsets, long polling, allowed_updates, 409 on concurrent polls."""

from __future__ import annotations

import asyncio
from typing import Any

from .errors import ApiError

DEFAULT_EXCLUDED = {"chat_member", "message_reaction", "message_reaction_count"}


class UpdateQueue:
    def __init__(self) -> None:
        self.pending: list[dict[str, Any]] = []  # not yet confirmed
        self.next_id = 1
        self.allowed: set[str] | None = None  # None = Telegram's default set
        self.delivered_upto = 0  # highest update_id handed to the bot at least once
        self.dropped: list[dict[str, Any]] = []  # filtered out by allowed_updates
        self._event = asyncio.Event()
        self._poll_generation = 0
        self.closed = False

    def update_type(self, upd: dict[str, Any]) -> str:
        return next(k for k in upd if k != "update_id")

    def _allowed(self, upd: dict[str, Any]) -> bool:
        kind = self.update_type(upd)
        return kind not in DEFAULT_EXCLUDED if self.allowed is None else kind in self.allowed

    def _wake(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    def push(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        upd = {"update_id": self.next_id, kind: payload}
        self.next_id += 1
        if self._allowed(upd):
            self.pending.append(upd)
        else:
            self.dropped.append(upd)
        self._wake()
        return upd

    def undelivered(self) -> int:
        return sum(1 for u in self.pending if u["update_id"] > self.delivered_upto)

    def close(self) -> None:
        self.closed = True
        self._wake()

    async def get(self, offset: int | None, limit: int | None, timeout: int | None,
                  allowed: list[str] | None) -> list[dict[str, Any]]:
        if allowed is not None:
            self.allowed = set(allowed) if allowed else None
        limit = 100 if limit is None else limit
        if not 1 <= limit <= 100:
            limit = max(1, min(100, limit))
        timeout = max(0, timeout or 0)
        self._confirm(offset)
        self.dropped.extend(u for u in self.pending if not self._allowed(u))
        self.pending = [u for u in self.pending if self._allowed(u)]
        self._poll_generation += 1
        me = self._poll_generation
        self._wake()  # terminate an older long poll (it will answer 409)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (any(self._allowed(u) for u in self.pending) or self.closed or self._poll_generation != me):
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            try:
                await asyncio.wait_for(self._event.wait(), remaining)
            except TimeoutError:
                break
        if self._poll_generation != me:
            raise ApiError(409, "Conflict: terminated by other getUpdates request; "
                                "make sure that only one bot instance is running")
        batch = [u for u in self.pending if self._allowed(u)][:limit]
        if batch:
            self.delivered_upto = max(self.delivered_upto, batch[-1]["update_id"])
        return batch

    def _confirm(self, offset: int | None) -> None:
        if offset is None or offset == 0:
            return
        if offset < 0:
            self.pending = self.pending[offset:]
        else:
            self.pending = [u for u in self.pending if u["update_id"] >= offset]
