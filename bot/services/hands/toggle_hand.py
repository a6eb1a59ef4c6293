"""A toggle hand in the DM (the declaration's ``hand="toggle"``): the table in short, the hand as toggle
buttons, the verbs; the words are the game's presentation's.

Its own module because both publishing (every change re-sends hands) and the toggle turn (every toggle
redraws the hand) write it, and neither should depend on the other.
"""

from __future__ import annotations

from bot.presentation.registry import presentation
from bot.services import outbox as out
from bot.services.clock_lines import clock_line
from bot.services.ephemeral import EphemeralSender
from bot.services.hands import selection
from bot.services.hands.deliver import deliver_hand
from bot.services.hands.toggle_keyboard import hand_keyboard
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui.app_links import AppLinks
from engine.core import State
from engine.events import json_view
from engine.rummy.base import RummyState


async def toggle_hand(tx: Tx, row: TableRow, seat: SeatRow, state: State, names: list[str], live: bool,
                      new: bool = False, now: float | None = None, app: AppLinks | None = None,
                      *, hands: EphemeralSender, dm: bool = True) -> None:
    """Send (``new``) or edit the seat's hand message; ``now`` is the clocks' time (for the time left);
    ``app`` the table app's links (its button under the hand). Its copy in the group follows (``dm=False``: only
    that copy)."""
    assert seat.user_id is not None and isinstance(state, RummyState)
    shown = presentation(row.game)
    lang = await tx.user_lang(seat.user_id)
    view = json_view(state.view(seat.seat))
    sel = selection.load(row, seat.seat)
    text = shown.hand_text(view, names, lang, await tx.chat_title(row.chat_id), live, sel.chosen)
    if live and (line := clock_line(row, lang, now)):
        text += "\n" + line  # the table's time control and the time left
    markup = None
    if live:
        verbs = legal_verbs(row, state, seat.seat, shown.toggle_verbs)
        if not under_way(sel):  # nothing to give up
            verbs = [v for v in verbs if v not in shown.takeback_verbs]
        markup = out.markup_data(hand_keyboard(shown, row.id, row.version, view.get("hand") or [], sel, verbs,
                                               state.may_lay(), lang))
    await deliver_hand(tx, row, seat, text, markup, lang, live=live, new=new, dm=dm, over=state.over, app=app,
                       hands=hands)


def under_way(sel: selection.Selection) -> bool:
    """Whether the player has a lay-down in progress (cards chosen, or a proposal shown): only then is there
    something a take-back verb gives up."""
    return bool(sel.chosen) or sel.proposal is not None


def legal_verbs(row: TableRow, state: RummyState, seat: int, verbs: tuple[str, ...]) -> list[str]:
    """The ``verbs`` legal now, remembered per version (whether ``pass`` is legal may take the solver)."""
    memo = row.ui.extra.get("rverbs") or {}
    if memo.get("v") == row.version and memo.get("s") == seat:
        return list(memo["verbs"])
    legal = [v for v in verbs if state.is_legal(seat, v)]
    row.ui.extra["rverbs"] = {"v": row.version, "s": seat, "verbs": legal}
    return legal
