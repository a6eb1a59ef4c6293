"""The league's clock: which season a match ends in and when a season is over.

Injectable so tests can cross a season boundary without waiting for one: ``set_source(fn)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

_source: Callable[[], float] = time.time


def now() -> float:
    return _source()


def set_source(source: Callable[[], float] | None) -> None:
    """Use ``source`` as the time (None: the real clock again)."""
    global _source
    _source = source or time.time
