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


def withdraw_player_slot(tournament_id: int, asker: int, player: int) -> str:
    """The slot of the "withdraw PLAYER from the tournament?" prompt the organizer (or an admin) ``asker`` got:
    its buttons are the asker's, and only for that player (forged data naming another finds no prompt)."""
    return f"tour:{tournament_id}:ow:{asker}:{player}"


def note_hand_keyboard(row: TableRow, seat: int, markup: object) -> None:
    """Remember whether the seat's current DM hand message was queued with a keyboard (``row.ui.bare``): a new
    deal then takes the keyboard off only a message that has one. Telegram answers an edit that changes nothing
    with "message is not modified", a call of the 30 a second spent for nothing. A seat not known to be bare
    is cleared as before, so a hand written by another way still loses its keyboard."""
    bare = row.ui.bare
    if markup is None and seat not in bare:
        bare.append(seat)
    elif markup is not None and seat in bare:
        bare.remove(seat)
