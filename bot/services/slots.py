"""Names of the outbox slots a table's messages live in (shared by publishing and the clocks' /hand)."""

from __future__ import annotations

from bot.store.rows import TableRow

TOURNAMENT = "tournament"  # TableUi.extra: the tournament a table plays for (set when its round opens)


def hand_slot(row: TableRow, seat: int, n: int | None = None) -> str:
    """The slot of a seat's current hand message (a new one at each deal and each turn ping)."""
    if n is None:
        n = row.ui.hand_n.get(str(seat), 0)
    return f"h{row.id}:{seat}:{n}"


def leave_prompt_slot(table_id: int, seat: int, user_id: int) -> str:
    """The slot of the "leave the game?" prompt ``user_id`` asked for about ``seat``: its buttons act only
    on that message and only for that user (pruned with the table's other ``t<id>:`` slots)."""
    return f"t{table_id}:leave:{seat}:{user_id}"


def withdraw_prompt_slot(tournament_id: int, user_id: int) -> str:
    """The slot of the "withdraw from the tournament?" prompt ``user_id`` asked for: its buttons are theirs."""
    return f"tour:{tournament_id}:wd:{user_id}"
