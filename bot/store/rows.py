"""The typed rows the store hands out: every query answers with these (or plain values), never with a
driver's row object, so a service cannot tell which database is behind the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TableRow:
    id: int
    chat_id: int
    thread_id: int
    game: str
    status: str
    creator_id: int
    options: dict[str, Any]
    seed: int
    version: int
    state: dict[str, Any] | None
    ui: dict[str, Any]
    updated_at: float = 0.0


@dataclass
class SeatRow:
    seat: int
    user_id: int | None
    name: str

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass
class UserRow:
    user_id: int
    first_name: str
    username: str | None
    lang: str
    started: bool
    blocked: bool


@dataclass
class OutboxRow:
    id: int
    chat_id: int
    method: str
    slot: str | None
    merge_key: str | None
    payload: dict[str, Any]
    attempts: int
    priority: int = 1
    expires_at: float | None = None
    created_at: float | None = None
    # The message the row's slot names, when the outbox read it along with the row (``slot_read``).
    slot_message: int | None = None
    slot_read: bool = False
    # The chat had no other pending row when this one was read (a store that knows says so; False: unknown).
    alone: bool = False


@dataclass
class ClockRow:
    """A table's time control and the turn it times (migration 0005)."""

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
    """A user's time zone and quiet hours (minutes after midnight, local)."""

    tz: str = "UTC"
    quiet_from: int | None = None
    quiet_to: int | None = None
