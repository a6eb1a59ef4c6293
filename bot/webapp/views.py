"""What the app shows one user: their own hand if they are seated, else the spectators' view.

Built only from ``state.view(seat)`` (the engine's per-seat view, which holds no other seat's hidden
cards) or ``state.view(None)``; the seat comes from the store's seats, never from the request. The
table's words (its lines, the move labels, the page's own words) are in the chat's language.
"""

from __future__ import annotations

import html
import re
from typing import Any

import games
from bot.presentation.registry import hand_kind, presentation
from bot.services.clock_lines import clock_line
from bot.services.types import Loaded
from bot.webapp.words import page_words
from engine.core import State
from engine.events import json_view
from engine.rummy.base import RummyState, is_lay

TAG = re.compile(r"<[^>]+>")

def plain(line: str) -> str:
    """A caption line as text: the page puts text in the DOM, never HTML."""
    return html.unescape(TAG.sub("", line))


def table_json(loaded: Loaded, state: State | None, user_id: int, lang: str, now: float | None) -> dict[str, Any]:
    """The app's whole picture of a table for ``user_id``: seated, their view; otherwise the public one."""
    row, seats = loaded.row, loaded.seats
    names = [s.name for s in seats]
    present = presentation(row.game)
    seat = next((s.seat for s in seats if s.user_id == user_id and not s.is_ai), None)
    out: dict[str, Any] = {
        "version": row.version, "game": row.game, "title": present.title(lang), "status": row.status,
        "lang": lang, "seat": seat, "names": names, "kind": hand_kind(row.game), "words": page_words(lang),
        "clock": clock_line(row, lang), "now": now,  # the page counts the time left down from deadline - now
        "deadline": row.ui.clock.deadline if row.ui.clock is not None and not row.ui.clock.paused else None,
    }
    if state is None:
        return out
    view = json_view(state.view(seat))
    out.update(view=view, to_act=view.get("to_act"), scores=view.get("scores"), over=view.get("over"),
               lines=[plain(line) for line in present.table_lines(view, names, lang)])
    out["actions"] = _actions(row.game, state, seat, lang) if row.status == "playing" else []
    out["may_lay"] = bool(isinstance(state, RummyState) and seat is not None and state.to_act == seat
                          and row.status == "playing" and state.may_lay())
    out["trick_game"] = games.declaration(row.game).trick_game
    return out


def _actions(game: str, state: State, seat: int | None, lang: str) -> list[dict[str, str]]:
    """The moves the seat may make now, with their buttons' labels (a rummy: its verbs; its lay-downs
    are built on the page)."""
    if seat is None or state.to_act != seat:
        return []
    present = presentation(game)
    if hand_kind(game) == "toggle":
        legal = [v for v in present.toggle_verbs if state.is_legal(seat, v)]
        return [{"action": v, "label": present.verb_label(v, lang)} for v in legal]
    return [{"action": a, "label": plain(present.action_label(a, lang))}
            for a in state.legal_actions(seat) if not is_lay(a)]
