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


def is_transient(exc: BaseException) -> bool:
    """A Telegram error that passes by itself (429, 5xx, the network): the update is worth handling again.
    Anything else (a 400, a bug) would fail the same way again."""
    from aiogram.exceptions import TelegramNetworkError, TelegramRetryAfter, TelegramServerError

    return isinstance(exc, TelegramRetryAfter | TelegramServerError | TelegramNetworkError)


def retry_delay(exc: BaseException, attempt: int, cap: float = 30.0) -> float:
    """Seconds before handling an update again: what a 429 asks for, else 0.5, 1, 2 ... capped."""
    from aiogram.exceptions import TelegramRetryAfter

    if isinstance(exc, TelegramRetryAfter):
        return float(min(max(exc.retry_after, 0), 60))
    return min(cap, 0.5 * 2 ** max(0, attempt - 1))


class QuietErrors:
    """Logs an error with its traceback once per ``period`` for each (who, what) key; the identical ones in
    between are counted and mentioned in the next line. Why: anyone can press a button a thousand times."""

    def __init__(self, log: logging.Logger, period: float = 60.0, keys: int = 1000) -> None:
        self.log = log
        self.period = period
        self.keys = keys
        self._seen: dict[tuple[object, str], tuple[float, int]] = {}

    def report(self, who: object, what: str, exc: BaseException) -> bool:
        """Log ``what`` failed with ``exc`` unless the same failure of ``who`` was logged within the period;
        whether a line was written."""
        key = (who, f"{type(exc).__name__}: {str(exc)[:200]}")
        now = time.monotonic()
        last, hidden = self._seen.pop(key, (float("-inf"), 0))
        if now - last < self.period:
            self._seen[key] = (last, hidden + 1)
            return False
        while len(self._seen) >= self.keys:
            self._seen.pop(next(iter(self._seen)))
        self._seen[key] = (now, 0)
        more = f" ({hidden} more like it not logged)" if hidden else ""
        self.log.error("%s failed%s", what, more, exc_info=exc)
        return True
