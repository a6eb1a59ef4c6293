"""Pyanitsa words: one short line per round (wars marked), the piles, and how the game ended."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import GameWords, ModuleWords, mark, who, words

t = GameWords("pyanitsa").t  # the game's own catalog (games/pyanitsa/locale), then the bot's


def action_label(action: str, lang: str) -> str | None:
    return "🂠 " + t(lang, "Flip") if action == "flip" else None


def _turned(cards: list[dict[str, Any]], names: Sequence[str]) -> str:
    return ", ".join(f"{who(names, c['seat'])} {'⚔' if c.get('war') else ''}{words.cards([c['card']])}"
                     for c in cards)


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    if kind == "flip":
        return ""
    if kind == "war":
        return "⚔ " + t(lang, "War between {who}!", who=", ".join(who(names, s) for s in event["seats"]))
    if kind == "round":
        return t(lang, "Round {k}: {cards} → {who} takes {n}.", k=event["round"], cards=_turned(event["cards"], names),
                 who=who(names, event["winner"]), n=event["taken"])
    if kind == "out":
        return t(lang, "Out of cards: {who}.", who=", ".join(who(names, s) for s in event["seats"]))
    if kind == "game_over":
        winners = ", ".join(who(names, s) for s in event.get("winners", []))
        if event.get("reason") == "cap":
            return t(lang, "The round limit is reached; card counts decide: {who}.", who=winners)
        if event.get("reason") == "collects_all":
            return t(lang, "{who} has collected every card.", who=winners)
        return t(lang, "{who} is out of cards first and wins.", who=winners)
    return None


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    head = f"<b>{words.title('pyanitsa', lang)}</b> · " + t(lang, "round {k}/{limit}", k=view.get("round"),
                                                              limit=view.get("max_rounds"))
    if view.get("wars"):
        head += " · " + t(lang, "wars {n}", n=view["wars"])
    lines = [head]
    counts = view.get("hand_counts") or []
    for seat in range(view["players"]):
        lines.append(f"{who(names, seat)}: " + t(lang, "{n} cards", n=counts[seat]) + mark(view, seat))
    if view.get("table"):
        lines.append(t(lang, "On the table: {cards}", cards=_turned(view["table"], names)))
    elif view.get("last_round"):
        last = view["last_round"]
        lines.append(t(lang, "Last round: {cards} → {who}", cards=_turned(last["cards"], names),
                       who=who(names, last["winner"])))
    return lines


def table_chapter(view: dict[str, Any]) -> str:
    """A fresh table message every ten rounds, so it stays near the log it goes with."""
    return str((int(view.get("round") or 1) - 1) // 10)


class PyanitsaPresentation(ModuleWords):
    """Pyanitsa: the module's words above, the sheet's columns and legend."""

    def table_chapter(self, view: dict[str, Any]) -> str | None:
        return table_chapter(view)


PRESENTATION = PyanitsaPresentation("pyanitsa", lines=table_lines, line=event_line, label=action_label)
