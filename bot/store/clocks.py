"""SQL for table clocks and user time preferences (migration 0005). Plain statements in the style of
``bot/store/sqlite.py`` so the PostgreSQL store can mirror them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from bot.store.sqlite import Tx


@dataclass
class ClockRow:
    table_id: int
    per_move: float
    bank: float = 0.0
    strikes: int = 3
    absent: str = "ai"
    banks: dict[str, float] = field(default_factory=dict)
    missed: dict[str, int] = field(default_factory=dict)
    turn_version: int | None = None
    turn_seat: int | None = None
    turn_start: float | None = None
    deadline: float | None = None
    due: float | None = None
    stage: int = 0
    paused: bool = False
    time_left: float | None = None
    votes: list[int] = field(default_factory=list)
    extended: int | None = None


@dataclass
class Prefs:
    tz: str = "UTC"
    quiet_from: int | None = None
    quiet_to: int | None = None


def _clock(r: Any) -> ClockRow:
    return ClockRow(
        table_id=r["table_id"], per_move=r["per_move"], bank=r["bank"], strikes=r["strikes"], absent=r["absent"],
        banks=json.loads(r["banks"]), missed=json.loads(r["missed"]), turn_version=r["turn_version"],
        turn_seat=r["turn_seat"], turn_start=r["turn_start"], deadline=r["deadline"], due=r["due"],
        stage=r["stage"], paused=bool(r["paused"]), time_left=r["time_left"], votes=json.loads(r["votes"]),
        extended=r["extended"])


async def clock(tx: Tx, table_id: int) -> ClockRow | None:
    row = await tx._one("SELECT * FROM clocks WHERE table_id = ?", table_id)
    return _clock(row) if row else None


async def save_clock(tx: Tx, c: ClockRow) -> None:
    await tx.db.execute(
        "INSERT INTO clocks(table_id, per_move, bank, strikes, absent, banks, missed, turn_version, turn_seat, "
        "turn_start, deadline, due, stage, paused, time_left, votes, extended) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(table_id) DO UPDATE SET per_move = excluded.per_move, bank = excluded.bank, "
        "strikes = excluded.strikes, absent = excluded.absent, banks = excluded.banks, missed = excluded.missed, "
        "turn_version = excluded.turn_version, turn_seat = excluded.turn_seat, turn_start = excluded.turn_start, "
        "deadline = excluded.deadline, due = excluded.due, stage = excluded.stage, paused = excluded.paused, "
        "time_left = excluded.time_left, votes = excluded.votes, extended = excluded.extended",
        (c.table_id, c.per_move, c.bank, c.strikes, c.absent, json.dumps(c.banks), json.dumps(c.missed),
         c.turn_version, c.turn_seat, c.turn_start, c.deadline, c.due, c.stage, int(c.paused), c.time_left,
         json.dumps(c.votes), c.extended))


async def due_tables(tx: Tx, now: float, limit: int = 200) -> list[tuple[int, float]]:
    """(table, due) whose next clock event has come, earliest first (the partial index answers this)."""
    rows = await tx._all("SELECT table_id, due FROM clocks WHERE due IS NOT NULL AND due <= ? ORDER BY due LIMIT ?",
                         now, limit)
    return [(r["table_id"], r["due"]) for r in rows]


async def next_due(tx: Tx) -> float | None:
    row = await tx._one("SELECT MIN(due) AS due FROM clocks WHERE due IS NOT NULL")
    return row["due"] if row else None


async def clocks_of(tx: Tx, table_ids: list[int]) -> dict[int, ClockRow]:
    if not table_ids:
        return {}
    marks = ", ".join("?" for _ in table_ids)
    rows = await tx._all(f"SELECT * FROM clocks WHERE table_id IN ({marks})", *table_ids)
    return {r["table_id"]: _clock(r) for r in rows}


async def prefs(tx: Tx, user_id: int) -> Prefs:
    row = await tx._one("SELECT tz, quiet_from, quiet_to FROM user_prefs WHERE user_id = ?", user_id)
    return Prefs(row["tz"], row["quiet_from"], row["quiet_to"]) if row else Prefs()


async def save_prefs(tx: Tx, user_id: int, p: Prefs) -> None:
    await tx.db.execute(
        "INSERT INTO user_prefs(user_id, tz, quiet_from, quiet_to) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(user_id) DO UPDATE SET tz = excluded.tz, quiet_from = excluded.quiet_from, "
        "quiet_to = excluded.quiet_to", (user_id, p.tz, p.quiet_from, p.quiet_to))


async def playing_without_clock(tx: Tx) -> list[int]:
    """Tables in play from before clocks existed (once, at the first start after the upgrade)."""
    rows = await tx._all("SELECT t.id FROM tables t LEFT JOIN clocks c ON c.table_id = t.id "
                         "WHERE t.status = 'playing' AND c.table_id IS NULL")
    return [r["id"] for r in rows]


async def forget_hand(tx: Tx, user_id: int, slot_prefix: str) -> list[int]:
    """A seat changes hands: drop its former player's queued hand messages and the slots that name their
    messages (so the next owner's cards are never merged into a row for the old chat, nor an edit aimed at
    the old chat's message ids). Returns the message ids whose keyboards should be cleared."""
    like = slot_prefix + "%"
    await tx.db.execute("DELETE FROM outbox WHERE status = 'pending' AND chat_id = ? AND merge_key LIKE ?",
                        (user_id, "slot:" + like))
    rows = await tx._all("SELECT message_id FROM slots WHERE chat_id = ? AND slot LIKE ?", user_id, like)
    await tx.db.execute("DELETE FROM slots WHERE chat_id = ? AND slot LIKE ?", (user_id, like))
    return [r["message_id"] for r in rows]
