"""The garbage collector's part in latency: a full collection walks every tracked object.

A started bot holds about 200,000 objects that live as long as the process (aiogram's and pydantic's
models, the engine's tables, the catalogs). Python's full collection visits all of them each time,
which bench/bot.py measured at 0.3-0.5 s with the event loop stopped, eleven times in a minute at
200 tables: the moves caught in such a pause set the p99. ``gc.freeze()`` after start-up moves them
into a generation no collection visits; what the bot creates later is collected as before.
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Collect once, then keep everything alive now out of future collections. Returns how many
    objects were frozen. Called once the bot has started (not per test: frozen garbage stays)."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
