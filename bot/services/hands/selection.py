"""A toggle hand's state: a player's selection of hand cards and their pending lay-down proposal, kept server-
side in the table row's ``ui`` (saved in the same transaction as each press: a restart finds it as it was, and
nothing is applied until Confirm, which is one move transaction).

A selection belongs to one table version: any move changes the hand, so an older selection is simply empty.
Card indices point into the seat's hand as the engine sorts it at that version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.store.rows import TableRow

KEY = "rsel"


@dataclass
class Proposal:
    """The table the solver proposed for the selected cards (explicit, so Confirm replays exactly)."""

    cards: list[int]  # hand cards (engine ints)
    table: list[list[int]]  # the new table (table ints)
    serial: int  # the selection serial it was made for: Confirm must name it
    asks: list[list[int]] = field(default_factory=list)  # [meld, position, choice...] jokers still to settle

    def to_json(self) -> dict[str, Any]:
        return {"cards": self.cards, "table": self.table, "n": self.serial, "asks": self.asks}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        return cls(list(data["cards"]), [list(m) for m in data["table"]], int(data["n"]),
                   [list(a) for a in data.get("asks", [])])


@dataclass
class Selection:
    version: int
    chosen: list[int] = field(default_factory=list)  # hand indices, sorted
    serial: int = 0  # bumped on every change: a proposal made for an older selection is void
    page: int = 0
    proposal: Proposal | None = None

    def toggle(self, index: int, on: bool) -> bool:
        """Set card ``index`` on or off; False when nothing changed (a repeated press)."""
        if (index in self.chosen) == on:
            return False
        self.chosen = sorted({*self.chosen, index} if on else set(self.chosen) - {index})
        self.changed()
        return True

    def replace(self, indices: list[int]) -> None:
        self.chosen = sorted(set(indices))
        self.changed()

    def changed(self) -> None:
        self.serial += 1
        self.proposal = None


def load(row: TableRow, seat: int) -> Selection:
    data = (row.ui.extra.get(KEY) or {}).get(str(seat))
    if not data or data.get("v") != row.version:
        return Selection(row.version)
    prop = data.get("prop")
    return Selection(row.version, list(data.get("on", [])), int(data.get("n", 0)), int(data.get("pg", 0)),
                     Proposal.from_json(prop) if prop else None)


def save(row: TableRow, seat: int, sel: Selection) -> None:
    """Write the selection into ``row.ui`` (the caller saves the row in its transaction)."""
    data = {"v": sel.version, "on": sel.chosen, "n": sel.serial, "pg": sel.page,
            "prop": sel.proposal.to_json() if sel.proposal else None}
    row.ui.extra[KEY] = {**(row.ui.extra.get(KEY) or {}), str(seat): data}
