"""The typed rows the store hands out: every query answers with these (or plain values), never with a
driver's row object, so a service cannot tell which database is behind the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ClockUi:
    """The clock as captions, hands and the lobby show it: a copy of the clock row's settings and the
    running deadline, kept in the table's ``ui`` so publishing needs no extra query."""

    per_move: float
    bank: float = 0.0
    strikes: int = 3
    absent: str = "ai"
    deadline: float | None = None
    paused: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClockUi:
        deadline = data.get("deadline")
        return cls(float(data.get("per_move", 0.0)), float(data.get("bank", 0.0)), int(data.get("strikes", 3)),
                   str(data.get("absent", "ai")), None if deadline is None else float(deadline),
                   bool(data.get("paused", False)))

    def to_json(self) -> dict[str, Any]:
        return {"per_move": self.per_move, "bank": self.bank, "strikes": self.strikes, "absent": self.absent,
                "deadline": self.deadline, "paused": self.paused}


# The keys TableUi types; any other key of a stored ``ui`` is kept in ``extra`` as it was.
_UI_KEYS = frozenset({"lobby_mode", "ai_levels", "paused", "clock", "autopilot", "offered", "acted", "hand_n",
                      "bare", "hand_deal", "table_key", "table_slot", "lobby_to_table", "pinned", "recent"})


@dataclass(slots=True)
class TableUi:
    """What a table's messages need between two changes (the ``tables.ui`` JSON column): the lobby's
    keyboard, who plays how, the hand messages' numbering, the group message's slot and recent lines.

    Several services write it (lobby, publishing, clocks, presence, seats); a typed field says what
    each key is. ``extra`` keeps what a hand kind stores for itself (the rummies' marks and selection)
    and any key this version does not know, so an older or newer database reads back unchanged.
    ``to_json`` leaves out what is unset, as the dict it replaces did."""

    lobby_mode: str | None = None  # the lobby's keyboard: "main", "opts" (house rules) or "clock"
    ai_levels: dict[str, str] = field(default_factory=dict)  # AI seat name -> easy | normal | strong
    paused: bool = False  # the bot is not in the group (bot/services/presence.py)
    clock: ClockUi | None = None
    autopilot: list[int] = field(default_factory=list)  # seats the AI plays after missed deadlines
    offered: list[int] = field(default_factory=list)  # seats offered to the group (``/leave``)
    acted: dict[str, float] = field(default_factory=dict)  # seat -> when its player last pressed
    hand_n: dict[str, int] = field(default_factory=dict)  # seat -> its current hand message's number
    bare: list[int] = field(default_factory=list)  # seats whose current DM hand was last queued with no keyboard
    hand_deal: int | None = None  # the deal the hand messages show
    table_key: str | None = None  # the deal (and chapter) of the group's table message
    table_slot: str | None = None  # that message's slot when it is not the default one (the lobby's)
    lobby_to_table: bool = False  # the lobby message becomes the first table message
    pinned: list[str] = field(default_factory=list)  # the last deal's result, atop the table message
    recent: list[str] = field(default_factory=list)  # the latest event lines under the table
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableUi:
        """The typed ui of a decoded ``tables.ui`` (it takes the dict's values over: pass a fresh one)."""
        get = data.get
        clock, deal = get("clock"), get("hand_deal")
        return cls(
            lobby_mode=get("lobby_mode"),
            ai_levels=get("ai_levels") or {},
            paused=bool(get("paused")),
            clock=ClockUi.from_json(clock) if clock else None,
            autopilot=get("autopilot") or [],
            offered=get("offered") or [],
            acted=get("acted") or {},
            hand_n=get("hand_n") or {},
            bare=get("bare") or [],
            hand_deal=None if deal is None else int(deal),
            table_key=get("table_key"),
            table_slot=get("table_slot"),
            lobby_to_table=bool(get("lobby_to_table")),
            pinned=get("pinned") or [],
            recent=get("recent") or [],
            extra={k: v for k, v in data.items() if k not in _UI_KEYS},
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        if self.lobby_mode is not None:
            data["lobby_mode"] = self.lobby_mode
        if self.ai_levels:
            data["ai_levels"] = self.ai_levels
        if self.paused:
            data["paused"] = True
        if self.clock is not None:
            data["clock"] = self.clock.to_json()
        for key in ("autopilot", "offered", "acted", "hand_n", "bare", "pinned", "recent"):
            if value := getattr(self, key):
                data[key] = value
        if self.hand_deal is not None:
            data["hand_deal"] = self.hand_deal
        if self.table_key is not None:
            data["table_key"] = self.table_key
        if self.table_slot is not None:
            data["table_slot"] = self.table_slot
        if self.lobby_to_table:
            data["lobby_to_table"] = True
        return data


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
    ui: TableUi = field(default_factory=TableUi)
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
    # The outbox sends it as a paid broadcast (allow_paid_broadcast): the free 30 a second were used up
    # (bot/services/paid.py).
    paid: bool = False


# An outbox queue's aging (``next_row``): its lowest and highest priority class, the time (time.time()) before
# which a row of the lowest class was queued to go first, and the seconds each class below waits longer.
Aged = tuple[int, int, float, float]


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


@dataclass
class TournamentRow:
    """A tournament (migration 0007): ``settings`` holds the table size, rounds, points, the bye's
    points, the clock and the withdrawal rule (bot/tournaments/settings.py reads it)."""

    id: int
    chat_id: int
    thread_id: int
    game: str
    options: dict[str, Any]
    format: str
    settings: dict[str, Any]
    status: str
    creator_id: int
    seed: int
    round: int = 0
    closes_at: float | None = None
    created_at: float = 0.0
    finished_at: float | None = None


@dataclass
class EntrantRow:
    user_id: int
    name: str
    rating: float = 0.0
    joined_round: int = 0
    withdrawn: int | None = None


@dataclass
class BoardRow:
    """One table of a tournament round (or a bye: ``kind`` 'bye', no game table)."""

    tournament_id: int
    round: int
    board: int
    kind: str
    players: list[int]
    table_id: int | None = None


def unsent_log(sent: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """A log message's payload once ``sent`` went out while lines were added to it (``current``): only
    what was added. Added text that continued the sent text's last line (a folded line, "🂠 Kept a card:
    Ann" + ", Bob"; ``current["fold"]`` its head) starts a new line with that head again."""
    old = sent.get("text", "")
    rest = current.get("text", "")[len(old):]
    head = current.get("fold", "")
    if rest and not rest.startswith("\n"):
        rest = rest.removeprefix(", ")
        if head and old.rpartition("\n")[2].startswith(head + " "):
            rest = f"{head} {rest}"
    return {**current, "text": rest.lstrip("\n")}

