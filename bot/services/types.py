"""The plain data the services and handlers pass around: who acts, where, and the answer to a press."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.store.rows import SeatRow, TableRow
from engine.core import State


@dataclass
class Actor:
    """Who pressed or typed: a Telegram user as the bot knows them."""

    user_id: int
    name: str
    lang: str
    started: bool = True
    in_chat: int | None = None  # a press on a hand shown in a group: the group (the table must be there)


@dataclass
class Where:
    """A group chat (and forum topic) where a table lives."""

    chat_id: int
    thread_id: int = 0
    title: str = ""
    lang: str = "en"


@dataclass
class Answer:
    """What a button press answers at once (answerCallbackQuery)."""

    text: str = ""
    alert: bool = False
    url: str | None = None
    stale: bool = False  # the pressed keyboard belongs to an old version of the table


@dataclass
class Loaded:
    row: TableRow
    seats: list[SeatRow]
    state: State | None = None
    names: list[str] = field(default_factory=list)
