"""Durations and time controls in words ("1 d per move + bank 1 h"): for the lobby, captions and DMs.

Pure functions of numbers; the clocks' arithmetic is bot/services/timecontrol.py."""

from __future__ import annotations

from bot.ui.i18n import t

MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0


def span(seconds: float, lang: str) -> str:
    """A duration in the largest whole unit: "1 min", "5 min", "1 h", "2 d" (rounded down)."""
    seconds = max(0.0, seconds)
    if seconds >= DAY:
        return t(lang, "{n} d", n=int(seconds // DAY)) + (
            " " + t(lang, "{n} h", n=int(seconds % DAY // HOUR)) if seconds % DAY >= HOUR and seconds < 3 * DAY else "")
    if seconds >= HOUR:
        return t(lang, "{n} h", n=int(seconds // HOUR)) + (
            " " + t(lang, "{n} min", n=int(seconds % HOUR // MINUTE)) if seconds % HOUR >= MINUTE else "")
    if seconds >= MINUTE:
        return t(lang, "{n} min", n=int(seconds // MINUTE))
    return t(lang, "{n} s", n=int(seconds))


def describe(per_move: float, bank: float, lang: str) -> str:
    """The control as shown in the lobby, captions and DMs: "1 d per move + bank 1 h"."""
    if per_move <= 0:
        return t(lang, "no clock")
    text = t(lang, "{time} per move", time=span(per_move, lang))
    if bank > 0:
        text += " + " + t(lang, "bank {time}", time=span(bank, lang))
    return text
