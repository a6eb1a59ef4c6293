"""Which melds the last move changed, so the table picture can mark them.

The table's memory keeps the table as last published (``memory["rtable"]``); a lay-down's new melds
are those not among the old ones (as a multiset: a double pack has identical melds). The marks
stay until the next lay-down or deal, so a draw does not wipe what the last lay-down did."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any


def changed(old: Sequence[str], new: Sequence[str]) -> list[int]:
    """Indices of ``new`` melds that ``old`` did not hold."""
    left = Counter(old)
    out = []
    for i, meld in enumerate(new):
        if left[meld] > 0:
            left[meld] -= 1
        else:
            out.append(i)
    return out


def mark_view(memory: dict[str, Any], view: dict[str, Any], events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``view`` with ``changed`` (meld indices) added; updates the table's ``memory`` (kept by the bot
    with the table, saved with each move) of the table as last published."""
    table = list(view.get("table") or [])
    old = memory.get("rtable")
    if any(e.get("type") == "deal" for e in events) or old is None:
        memory["rchanged"] = []
    elif any(e.get("type") == "lay" for e in events):
        memory["rchanged"] = changed(old, table)
    memory["rtable"] = table
    return {**view, "changed": list(memory.get("rchanged") or [])}
