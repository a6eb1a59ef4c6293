"""The clock in words, from what the table's ``ui`` keeps of it (no query): the lobby's line, and the
line under a table message or a hand. Shared by the lobby, publishing and the hand kinds."""

from __future__ import annotations

from bot.store.rows import ClockRow, ClockUi, TableRow
from bot.ui.clock_words import describe, span
from bot.ui.i18n import t


def clock_ui(c: ClockRow) -> ClockUi:
    """What captions and hands show, mirrored into ``TableRow.ui`` so publishing needs no extra query."""
    return ClockUi(c.per_move, c.bank, c.strikes, c.absent, c.deadline, c.paused)


def lobby_clock_line(row: TableRow, lang: str, default_per_move: float) -> str:
    """The lobby's line about the clock."""
    ui = row.ui.clock or ClockUi(default_per_move)
    per_move, bank, strikes, absent = ui.per_move, ui.bank, ui.strikes, ui.absent
    text = "⏱ " + describe(per_move, bank, lang)
    if strikes and per_move > 0:
        text += "; " + (t(lang, "after {n} missed moves in a row the AI takes the seat", n=strikes) if absent == "ai"
                        else t(lang, "after {n} missed moves in a row the seat is offered to others", n=strikes))
    return text


def clock_line(row: TableRow, lang: str, now: float | None = None) -> str:
    """One line for a table caption or a hand: the control, and (given ``now``) the time left."""
    ui = row.ui.clock
    if ui is None or ui.per_move <= 0:
        return ""
    text = "⏱ " + describe(ui.per_move, ui.bank, lang)
    if ui.paused:
        text += " · " + t(lang, "paused")
    elif now is not None and ui.deadline is not None:
        text += " · " + t(lang, "{time} left", time=span(ui.deadline - now, lang))
    return text
