"""Logging: text or JSON lines on stderr, aiogram's per-update chatter only at DEBUG, the last error kept.

Why: an operator reads one line per game event (bot/services/events.py) and every error, not a
line per update; JSON lines are for log collectors. ``LastError`` keeps the newest ERROR record
for ``/status``.
"""

from __future__ import annotations

import json
import logging
import sys
import time


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message (and the traceback, if any)."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
                 "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class LastError(logging.Handler):
    """Remembers the newest ERROR (or worse) line, for /status."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.message: str | None = None
        self.at: float | None = None

    def emit(self, record: logging.LogRecord) -> None:
        self.message = f"{record.name}: {record.getMessage()}"[:300]
        self.at = record.created


last_error = LastError()

# aiogram logs every update it handles (and every polling start/stop) at INFO on these loggers.
CHATTY = ("aiogram.event", "aiogram.dispatcher")


def setup(level: str = "INFO", fmt: str = "text") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        formatter: logging.Formatter = JsonFormatter()
        formatter.converter = time.gmtime
    else:
        formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.addHandler(last_error)
    root.setLevel(level)
    for name in CHATTY:
        logging.getLogger(name).setLevel(logging.DEBUG if level == "DEBUG" else logging.WARNING)
