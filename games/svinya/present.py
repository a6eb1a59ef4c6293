"""Svinya words: the pig, the shops (seat numbers in the buttons match the numbered rows), the reserves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import GameWords, ModuleWords, mark, who, words

t = GameWords("svinya").t  # the game's own catalog (games/svinya/locale), then the bot's


def group_key(action: str) -> str:
    """A handful of choices at most: each its own button."""
    return action


def action_label(action: str, lang: str) -> str | None:
    parts = action.split()
    verb = parts[0]
    if verb == "draw":
        return "🂠 " + t(lang, "Draw")
    if verb == "pig":
        return words.cards([parts[1]]) + " → 🐷"
    if verb == "shop":
        return words.cards([parts[2]]) + " → " + t(lang, "shop {n}", n=int(parts[1]) + 1)
    if verb == "keep":
        return t(lang, "Keep it")
    if verb == "lift":
        return t(lang, "Lift my shop's top onto the pig")
    if verb == "pass":
        return t(lang, "Pass")
    return None


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    seat = event.get("seat")
    if kind == "draw":
        return ""  # where the card goes says it all
    if kind == "pig":
        card = words.cards([event["card"]])
        if event.get("source") == "shop":
            return "🐷 " + t(lang, "{who} lifts {card} from the shop onto the pig.", who=who(names, seat), card=card)
        if event.get("new"):
            return "🐷 " + t(lang, "{who} starts a new pig: {card}", who=who(names, seat), card=card)
        return "🐷 " + t(lang, "{who}: {card} on the pig.", who=who(names, seat), card=card)
    if kind == "pig_done":
        return "🐷 " + t(lang, "The {suit} pig is complete.", suit=words.suit(event["suit"]))
    if kind == "shop":
        # "the shop of X", not "X's shop": a name may end in s ("Sons's"), and Russian has no such ending.
        return t(lang, "{who}: {card} on the shop of {owner}.", who=who(names, seat),
                 card=words.cards([event["card"]]), owner=who(names, event["target"]))
    if kind == "keep":
        return f"{KEPT} {t(lang, 'Kept a card:')} {who(names, seat)}"
    if kind == "pass":
        return t(lang, "{who} passes.", who=who(names, seat))
    if kind == "stock_out":
        return t(lang, "The stock is out: reserves are played now.")
    if kind == "game_over":
        winners = ", ".join(who(names, s) for s in event.get("winners", []))
        if event.get("reason") == "blocked":
            return t(lang, "Nobody can move: fewest cards win: {who}.", who=winners)
        return t(lang, "Only aces left: {who} wins.", who=winners)
    return None


KEPT = "🂠"  # the mark of the kept-cards line


def kept_fold(event: dict[str, Any], names: Sequence[str], lang: str) -> tuple[str, str] | None:
    """Kept cards make most of the log in the stock phase: a run of them folds into one line
    ("🂠 Kept a card: Ann, Bob, Ann"), so the log shows what else happened."""
    if event.get("type") != "keep":
        return None
    return f"{KEPT} {t(lang, 'Kept a card:')}", who(names, event.get("seat"))


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    head = f"<b>{words.title('svinya', lang)}</b> · " + t(lang, "stock {n}", n=view.get("stock", 0))
    lines = [head]
    pig = view.get("pig")
    if pig:
        lines.append("🐷 " + t(lang, "The pig: {cards}", cards=words.cards(pig["cards"])))
    else:
        lines.append("🐷 " + t(lang, "No pig yet."))
    if view.get("pigs_done"):
        done = " ".join(words.suit(s) for s in view["pigs_done"])
        lines.append(t(lang, "Pigs done: {suits}", suits=done))
    shops, counts = view.get("shops") or [], view.get("hand_counts") or []
    for seat in range(view["players"]):
        shop: dict[str, Any] = shops[seat] if seat < len(shops) else {"top": None, "size": 0}
        top = words.cards([shop["top"]]) if shop.get("top") else "—"
        bits = [t(lang, "shop {card} ({n})", card=top, n=shop.get("size", 0)),
                t(lang, "reserve {n}", n=counts[seat] if seat < len(counts) else 0)]
        lines.append(f"{seat + 1}. {who(names, seat)}: " + ", ".join(bits) + mark(view, seat))
    if view.get("drawn"):
        lines.append("👉 " + t(lang, "You drew {card}.", card=words.cards([view["drawn"]])))
    return lines


def table_chapter(view: dict[str, Any]) -> str:
    """A fresh table message every eight cards drawn, so it stays near the log it goes with."""
    return str(view.get("stock", 0) // 8)


class SvinyaPresentation(ModuleWords):
    """Svinya: the module's words above, the sheet's columns and legend."""

    def group_key(self, action: str) -> str:
        return group_key(action)

    def table_chapter(self, view: dict[str, Any]) -> str | None:
        return table_chapter(view)

    def log_fold(self, event: dict[str, Any], names: Sequence[str], lang: str) -> tuple[str, str] | None:
        return kept_fold(event, names, lang)


PRESENTATION = SvinyaPresentation("svinya", lines=table_lines, line=event_line, label=action_label)
