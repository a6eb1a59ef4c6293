"""A player's time zone and quiet hours: reminders that would fall in the quiet hours wait until
they end. Time zones are IANA names (``Europe/Moscow``) or fixed offsets (``+03:00``, ``-5``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.store.rows import Prefs
from bot.ui.i18n import t
from bot.ui.words import name

OFFSET = re.compile(r"^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)
HOURS = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*-\s*(\d{1,2})(?::(\d{2}))?$")


def zone(name: str) -> tzinfo | None:
    """The zone a user typed, or None when it is not one."""
    name = name.strip()
    if name.upper() in ("UTC", "GMT", "Z"):
        return UTC
    match = OFFSET.match(name)
    if match:
        sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if hours > 14 or minutes >= 60:
            return None
        delta = timedelta(hours=hours, minutes=minutes)
        return timezone(delta if sign == "+" else -delta)
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_+\-/]{1,60}", name):
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def parse_hours(text: str) -> tuple[int, int] | None:
    """``23-8`` or ``22:30-07:00`` → (minutes from, minutes to) after local midnight; None if invalid."""
    match = HOURS.match(text.strip())
    if not match:
        return None
    h1, m1, h2, m2 = (int(g or 0) for g in match.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59 or (h1, m1) == (h2, m2):
        return None
    return h1 * 60 + m1, h2 * 60 + m2


def _quiet_at(minute: int, start: int, end: int) -> bool:
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end  # across midnight, e.g. 23:00-08:00


def quiet_until(when: float, tz_name: str, start: int | None, end: int | None) -> float:
    """``when`` itself if it is outside the quiet hours, else the epoch second they end (local time)."""
    if start is None or end is None:
        return when
    tz = zone(tz_name) or UTC
    local = datetime.fromtimestamp(when, tz)
    minute = local.hour * 60 + local.minute
    if not _quiet_at(minute, start, end):
        return when
    wait = (end - minute) % (24 * 60)
    end_local = (local.replace(second=0, microsecond=0) + timedelta(minutes=wait)).replace(tzinfo=None)
    # Wall-clock arithmetic in the zone (DST-aware): the local end time, then back to an instant.
    if isinstance(tz, ZoneInfo):
        return end_local.replace(tzinfo=tz).timestamp()
    return (end_local.replace(tzinfo=tz)).timestamp()


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def prefs_line(prefs: Prefs, lang: str) -> str:
    """The user's time zone and quiet hours, as /settings shows them."""
    if prefs.quiet_from is None or prefs.quiet_to is None:
        quiet = t(lang, "none")
    else:
        quiet = f"{_hhmm(prefs.quiet_from)}–{_hhmm(prefs.quiet_to)}"
    return t(lang, "Time zone: {tz}; quiet hours (no reminders): {quiet}", tz=name(prefs.tz), quiet=quiet)
