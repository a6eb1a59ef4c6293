"""Time controls (seconds per move, an optional bank) and the arithmetic of one turn: when it is
due, when the reminders go, what a slow move costs the bank. Pure functions: no I/O, no clock."""

from __future__ import annotations

from bot.store.rows import ClockRow
from bot.ui.clock_words import DAY, HOUR, MINUTE

PER_MOVE = (MINUTE, 5 * MINUTE, HOUR, DAY, 2 * DAY, 3 * DAY, 7 * DAY)  # the lobby button cycles these
BANKS = (0.0, 5 * MINUTE, HOUR, DAY, 3 * DAY)
STRIKES = (0, 1, 2, 3, 5)
ABSENT = ("ai", "replace")
HALF, NEAR = 0.5, 0.9  # reminders at half time and with 10% left


def cycle(values: tuple, current: object) -> object:
    """The value after ``current`` (the first one if ``current`` is not in the list)."""
    try:
        return values[(values.index(current) + 1) % len(values)]
    except ValueError:
        return values[0]


def bank_left(c: ClockRow, seat: int) -> float:
    return float(c.banks.get(str(seat), c.bank))


def begin_turn(c: ClockRow, seat: int, version: int, now: float) -> None:
    """A human is to act: the turn's deadline is its time per move plus what is left of their bank."""
    c.turn_seat, c.turn_version, c.turn_start, c.stage = seat, version, now, 0
    c.extended = None
    if c.per_move <= 0:
        c.deadline = c.due = None
        return
    c.deadline = now + c.per_move + bank_left(c, seat)
    c.time_left = None
    if c.paused:
        c.time_left, c.deadline = c.deadline - now, None
    c.due = next_due(c)


def end_turn(c: ClockRow, now: float) -> None:
    """The running turn is over (a move was made): a slow move eats the bank; no deadline runs."""
    if c.turn_seat is not None and c.turn_start is not None and c.per_move > 0:
        used = now - c.turn_start
        if c.paused and c.time_left is not None:  # the clock stood still while paused
            used = (c.per_move + bank_left(c, c.turn_seat)) - c.time_left
        over = max(0.0, used - c.per_move)
        if c.bank > 0:
            c.banks[str(c.turn_seat)] = max(0.0, bank_left(c, c.turn_seat) - over)
    c.turn_seat = c.turn_version = c.turn_start = c.deadline = c.due = c.time_left = None
    c.stage = 0


def reminder_times(c: ClockRow) -> tuple[float, float]:
    """When the half-time and the last reminder are due in the running turn."""
    assert c.deadline is not None and c.turn_start is not None
    total = c.deadline - c.turn_start
    return c.turn_start + HALF * total, c.turn_start + NEAR * total


def next_due(c: ClockRow) -> float | None:
    """The next event of the running turn after the reminders already sent (``stage``)."""
    if c.deadline is None or c.paused:
        return None
    half, near = reminder_times(c)
    if c.stage < 1:
        return half
    if c.stage < 2:
        return near
    return c.deadline
