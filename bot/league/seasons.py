"""Seasons: which season a moment belongs to, per chat rule (month, quarter, none, or N days).

A match belongs to the season in which it ended, whatever its start: the key is computed from
the finishing time, in UTC. Keys are short, sortable and typed by people in ``/top game 2026-11``:
``2026-11`` (month), ``2026-Q4`` (quarter), ``all`` (no seasons), ``2026-11-01+30d`` (custom length,
counted from the chat's anchor day).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

KINDS = ("month", "quarter", "none", "days")
ALL = "all"
DAY = 86400.0
_KEY = re.compile(r"^(\d{4})-(\d{2})$|^(\d{4})-Q([1-4])$|^(\d{4}-\d{2}-\d{2})\+(\d+)d$|^all$")


@dataclass(frozen=True)
class SeasonRule:
    """A chat's season rule. ``anchor`` (unix time, midnight UTC) is day one of custom-length seasons."""

    kind: str = "month"
    days: int = 30
    anchor: float = 0.0

    def key(self, ts: float) -> str:
        """The season a moment belongs to."""
        at = datetime.fromtimestamp(ts, UTC)
        if self.kind == "month":
            return f"{at.year:04d}-{at.month:02d}"
        if self.kind == "quarter":
            return f"{at.year:04d}-Q{(at.month - 1) // 3 + 1}"
        if self.kind == "days":
            length = max(1, self.days) * DAY
            start = self.anchor + ((ts - self.anchor) // length) * length
            day = datetime.fromtimestamp(start, UTC)
            return f"{day:%Y-%m-%d}+{max(1, self.days)}d"
        return ALL


def is_key(text: str) -> bool:
    return bool(_KEY.match(text))


def season_end(key: str) -> float | None:
    """The moment a season ends (its first second no longer in it); None for ``all``."""
    m = _KEY.match(key)
    if m is None or key == ALL:
        return None
    if m.group(1):
        year, month = int(m.group(1)), int(m.group(2))
        return _month_start(year, month + 1)
    if m.group(3):
        year, quarter = int(m.group(3)), int(m.group(4))
        return _month_start(year, 3 * quarter + 1)
    start = datetime.strptime(m.group(5), "%Y-%m-%d").replace(tzinfo=UTC)
    return (start + timedelta(days=int(m.group(6)))).timestamp()


def _month_start(year: int, month: int) -> float:
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=UTC).timestamp()


def midnight(ts: float) -> float:
    """The start of the UTC day of ``ts`` (custom seasons start on a day boundary)."""
    return (ts // DAY) * DAY
