"""Karusele words: pick a hand card, then one of its captures or builds (the engine describes each);
the table with its builds, the stock, what everyone has captured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.ui import words
from bot.ui.games._common import deal_head, mark, points, score_line, totals, who
from bot.ui.i18n import t
from engine.games.karusele import describe

PICK_VERBS: frozenset[str] = frozenset()  # card groups, not card sets: never the card-by-card choice


def _lang(lang: str) -> str:
    return "ru" if lang == "ru" else "en"


def action_label(action: str, lang: str) -> str | None:
    return describe(action, _lang(lang))


def group_key(action: str) -> str:
    """One button per hand card; its captures, builds and the trail are the second step."""
    return action.split()[1]


def group_label(action: str, lang: str) -> str:
    return words.cards([action.split()[1]])


def _item(item: dict[str, Any], names: Sequence[str]) -> str:
    if item.get("build"):
        inner = "+".join(words.cards([c]) for c in item["cards"])
        return f"[{inner}={item['value']} {who(names, item.get('owner'))}]"
    return words.cards(item["cards"])


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    if kind == "deal":
        return t(lang, "Deal {k}: {dealer} deals; on the table: {cards}", k=event["deal_no"],
                 dealer=who(names, event["dealer"]), cards=words.cards(event["table"]) or "—")
    if kind == "redeal":
        return t(lang, "Four more cards each; {n} left in the stock.", n=event["stock_count"])
    if kind in ("trail", "take", "sweep", "build"):
        icon = {"take": "🎣 ", "build": "🏗 "}.get(kind, "")
        return f"{icon}{who(names, event['seat'])}: {describe(event['action'], _lang(lang))}"
    if kind == "rest":
        return t(lang, "{who} takes the rest of the table: {cards}", who=who(names, event["seat"]),
                 cards=words.cards(event["cards"]))
    if kind == "deal_end":
        return t(lang, "Deal over: {points}. Totals: {totals}", points=points(names, event["points"]),
                 totals=totals(names, event["totals"]))
    return None


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    head = deal_head(view, lang)
    head += " · " + t(lang, "stock {n}", n=view.get("stock_count", 0))
    head += " · " + t(lang, "game to {n}", n=view.get("target"))
    lines = [head]
    table = view.get("table") or []
    lines.append(t(lang, "On the table: {cards}", cards=" ".join(_item(i, names) for i in table) or "—"))
    teams = view.get("teams")
    for seat in range(view["players"]):
        got = view["captured"][seat]
        bits = [t(lang, "{n} cards in hand", n=view["hand_counts"][seat]),
                t(lang, "captured {n} ({spades}♠)", n=got["cards"], spades=got["spades"])]
        if got.get("specials"):
            bits.append(words.cards(got["specials"]))
        bits.append(t(lang, "{n} points this deal", n=got["side_points"]))
        partner = ""
        if teams:
            partner = " (" + t(lang, "team {k}", k=seat % 2 + 1) + ")"
        dealer = " 🂠" if seat == view.get("dealer") else ""
        lines.append(f"{who(names, seat)}{partner}{dealer}: " + ", ".join(bits) + mark(view, seat))
    score = score_line(view, names, lang)
    if score:
        lines.append(score)
    return lines


def table_chapter(view: dict[str, Any]) -> str:
    """A fresh table message for each round of four cards, so it stays near the log it goes with."""
    return str(view.get("stock_count", 0))
