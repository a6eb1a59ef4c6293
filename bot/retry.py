"""Backoff for a Telegram that cannot be reached, and a log line at most once a minute about it.

Why: at start and while polling, a network outage must neither kill the bot nor write a line
every few seconds; the operator sees the first failure, then one summary a minute.
"""

from __future__ import annotations

import logging
import time


class Backoff:
    """1, 2, 4 ... seconds, capped; ``reset()`` after a success."""

    def __init__(self, first: float = 1.0, cap: float = 60.0) -> None:
        self.first = first
        self.cap = cap
        self.delay = first

    def next(self) -> float:
        delay = self.delay
        self.delay = min(self.cap, self.delay * 2)
        return delay

    def reset(self) -> None:
        self.delay = self.first


class EveryMinute:
    """Logs the first failure of a streak, then at most one line per ``period`` with the count since."""

    def __init__(self, log: logging.Logger, period: float = 60.0) -> None:
        self.log = log
        self.period = period
        self.failures = 0
        self._last = float("-inf")

    def failed(self, what: str, error: BaseException) -> None:
        self.failures += 1
        now = time.monotonic()
        if now - self._last >= self.period:
            self._last = now
            self.log.warning("%s failed (%d times so far; retrying): %s: %s", what, self.failures,
                             type(error).__name__, error)

    def ok(self, what: str) -> None:
        if self.failures:
            self.log.info("%s works again after %d failures", what, self.failures)
        self.failures = 0
        self._last = float("-inf")
