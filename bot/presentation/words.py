"""The words a game's presentation may use (the kit's ``words``): names made safe for Telegram HTML,
cards and suits as text, the game's title, and the pieces the games share (point lists, the trick on the
table, the deal's head line). Everything else about words is the game's own (its catalog: ``GameWords``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.ui import words
from bot.ui.i18n import t
from bot.ui.words import cards, name, seat_names, suit, suit_symbol, title, trick_text

__all__ = [
    "cards", "deal_head", "mark", "name", "points", "score_line", "seat_names", "suit", "suit_symbol", "title",
    "totals", "trick_lines", "trick_text", "who",
]


def who(names: Sequence[str], seat: int | None) -> str:
    """A seat's name, HTML-escaped (— for no seat)."""
    return words.seat_names(names, seat)


def points(names: Sequence[str], values: Sequence[int]) -> str:
    """``Ann +12, Bob -3``."""
    return ", ".join(f"{words.name(n)} {p:+d}" for n, p in zip(names, values, strict=False))


def totals(names: Sequence[str], values: Sequence[int]) -> str:
    """``Ann 40, Bob 12``."""
    return ", ".join(f"{words.name(n)} {p}" for n, p in zip(names, values, strict=False))


def mark(view: dict[str, Any], seat: int) -> str:
    """The hourglass after the name of the seat to act."""
    return " ⏳" if seat == view.get("to_act") else ""


def trick_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    """The cards on the table now, or else the last trick and who took it."""
    current = words.trick_text(view.get("trick"), names, lang)
    if current:
        return [t(lang, "On the table: {cards}", cards=current)]
    last = view.get("last_trick")
    if last and last.get("plays"):
        return [t(lang, "Last trick: {cards} → {who}", cards=words.trick_text(last, names, lang),
                  who=who(names, last.get("winner")))]
    return []


def deal_head(view: dict[str, Any], lang: str) -> str:
    """``<b>Game</b> · deal 2/8``."""
    head = f"<b>{words.title(view['game'], lang)}</b>"
    if view.get("deal_no"):
        total = view.get("deals_total")
        number = f"{view['deal_no']}/{total}" if total else str(view["deal_no"])
        head += " · " + t(lang, "deal {k}", k=number)
    return head


def score_line(view: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    """Running totals, once there are any."""
    scores = view.get("scores") or []
    if not any(scores):
        return None
    return t(lang, "Score: {totals}", totals=totals(names, scores))
