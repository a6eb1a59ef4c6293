"""The rummies' words: titles, log lines for events, the compact text table (clipped: a 104-card
table is long), the group caption, the DM hand text, button labels, and the engine's refusal
reasons in the player's language. Every name goes through ``bot.ui.words.name`` (escaped)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from bot.presentation import clip_html, nt, t, words
from engine import melds
from engine.cards import pretty, pretty_text
from engine.rummy.base import is_lay, parse_lay

TABLE_TEXT_LIMIT = 2600  # the melds part of a text table (the message also holds names and lines)


def _who(names: Sequence[str], seat: Any) -> str:
    return words.seat_names(names, seat)


def table_card(x: int) -> str:
    """``7♥``; a joker on the table ``🃏7♥`` (it stands for 7♥)."""
    if melds.is_placed_joker(x):
        return "🃏" + pretty(melds.stands_for(x))
    return pretty(x)


def meld_text(meld: Sequence[int]) -> str:
    return " ".join(table_card(x) for x in meld)


def parse_table(texts: Sequence[str]) -> list[list[int]]:
    return [melds.parse_meld(m) for m in texts]


def grouped(table: Sequence[Sequence[int]], kinds: Sequence[str]) -> list[tuple[str, list[int]]]:
    """(kind, meld index) groups in display order: sets, then runs, then loose singles (as
    Manipulation lays its table out, which helps in every game)."""
    order = ("set", "run", "single")
    return [(kind, [i for i, k in enumerate(kinds) if k == kind]) for kind in order
            if any(k == kind for k in kinds)]


def head(view: dict[str, Any], lang: str) -> str:
    title = words.title(view["game"], lang)
    parts = [f"<b>{title}</b>"]
    if view.get("deal_no"):
        parts.append(t(lang, "deal {k}", k=view["deal_no"]))
    parts.append(t(lang, "stock {n}", n=view.get("stock_count", 0)))
    return " · ".join(parts)


def players_line(view: dict[str, Any], names: Sequence[str], lang: str) -> str:
    """``Ann 12 ⏳ · Bob 9``: each player's card count, the seat to act marked."""
    counts = view.get("hand_counts") or []
    parts = []
    for seat, n in enumerate(counts):
        mark = " ⏳" if seat == view.get("to_act") else ""
        parts.append(f"{_who(names, seat)} {nt(lang, '{n} card', '{n} cards', int(n))}{mark}")
    return " · ".join(parts)


def table_text(view: dict[str, Any], lang: str, limit: int = TABLE_TEXT_LIMIT) -> list[str]:
    """The melds as lines (sets, then runs), changed ones marked ✨; clipped to ``limit``."""
    table = parse_table(view.get("table") or [])
    if not table:
        return [t(lang, "The table is empty.")]
    kinds = view.get("table_kinds") or ["run"] * len(table)
    changed = set(view.get("changed") or [])
    lines: list[str] = []
    size = 0
    shown = 0
    for _kind, idx in grouped(table, kinds):
        for i in idx:
            line = f"{i + 1}. {meld_text(table[i])}" + (" ✨" if i in changed else "")
            if size + len(line) + 1 > limit:
                break
            lines.append(line)
            size += len(line) + 1
            shown += 1
    if shown < len(table):
        lines.append(t(lang, "… and {n} more melds", n=len(table) - shown))
    return lines


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    """The group's text table (when pictures are off) and the top of the DM hand text."""
    lines = [head(view, lang), players_line(view, names, lang)]
    return lines + table_text(view, lang)


def caption(view: dict[str, Any], names: Sequence[str], lang: str) -> str:
    """The table picture's caption: short (the picture shows the melds)."""
    n = len(view.get("table") or [])
    lines = [head(view, lang), players_line(view, names, lang), nt(lang, "{n} meld on the table",
                                                                 "{n} melds on the table", n)]
    if view.get("over"):
        lines.append(t(lang, "The game is over."))
    return clip_html("\n".join(lines), 700)


def selection_line(hand: Sequence[str], chosen: Sequence[int], lang: str) -> str:
    picked = [hand[i] for i in chosen if 0 <= i < len(hand)]
    if not picked:
        return t(lang, "Tap your cards to choose what to lay down.")
    return t(lang, "Chosen: {cards}", cards=pretty_text(" ".join(picked)))


def hand_text(view: dict[str, Any], names: Sequence[str], lang: str, chat_title: str, live: bool,
              chosen: Sequence[int] = ()) -> str:
    """The DM: the group, the table (compact), the turn; the cards themselves are the buttons."""
    lines = [words.name(chat_title)] if chat_title else []
    lines += [head(view, lang), players_line(view, names, lang)]
    lines += table_text(view, lang, 1800)
    hand = view.get("hand") or []
    lines.append("")
    lines.append(t(lang, "Your hand: {cards}", cards=pretty_text(" ".join(hand)) or "—"))
    if view.get("over"):
        lines.append(t(lang, "The game is over."))
    elif live:
        lines.append(selection_line(hand, chosen, lang))
        lines.append("👉 <b>" + t(lang, "Your turn.") + "</b>")
    else:
        lines.append(t(lang, "Waiting for {who}.", who=_who(names, view.get("to_act"))))
    return clip_html("\n".join(lines), 4000)


def verb_label(verb: str, lang: str) -> str | None:
    labels = {"draw": "📥 " + t(lang, "Draw"), "pass": t(lang, "Pass"), "knock": "✊ " + t(lang, "Knock"),
              "end": t(lang, "End turn"), "abandon": t(lang, "Give up the lay-down (draw 3)")}
    return labels.get(verb)


def action_label(action: str, lang: str) -> str | None:
    if is_lay(action):
        try:
            cards, _ = parse_lay(action)
        except ValueError:
            return t(lang, "Lay down")
        return t(lang, "Lay down {cards}", cards=" ".join(pretty(c) for c in cards))
    return verb_label(action, lang)


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    """One log line for the group (None: the log does not show it)."""
    kind = event.get("type")
    who = _who(names, event.get("seat"))
    if kind == "deal":
        return t(lang, "Deal {k}: {dealer} deals; {n} cards in the stock.", k=event["deal_no"],
                 dealer=_who(names, event["dealer"]), n=event.get("stock_count", 0))
    if kind == "draw":
        n = int(event.get("count", 1))
        if event.get("penalty"):
            return t(lang, "{who} gives up a lay-down and draws {n} penalty cards", who=who, n=n)
        return nt(lang, "{who} draws a card", "{who} draws {n} cards", n, who=who)
    if kind == "lay":
        return t(lang, "{who} lays down {cards} ({n} left)", who=who,
                 cards=pretty_text(" ".join(event.get("cards", []))), n=event.get("hand_count", 0))
    if kind == "one_card":
        return "☝️ " + t(lang, "{who} has one card left!", who=who)
    if kind == "out":
        return "🎉 " + t(lang, "{who} goes out!", who=who)
    if kind == "pass":
        return t(lang, "{who} passes", who=who)
    if kind == "knock":
        return "✊ " + t(lang, "{who} knocks with {value}", who=who, value=event.get("value", 0))
    if kind == "final_round":
        return t(lang, "The stock is out: one last turn each.")
    if kind == "end_turn":
        return None
    if kind == "deal_end":
        totals = ", ".join(f"{words.name(n)} {v}" for n, v in zip(names, event.get("totals", []), strict=False))
        if "penalties" in event:
            pens = ", ".join(f"{words.name(n)} {p}" for n, p in zip(names, event["penalties"], strict=False))
            return t(lang, "Deal over. Penalties: {pens}. Totals: {totals}", pens=pens, totals=totals)
        pts = ", ".join(f"{words.name(n)} {p:+d}" for n, p in zip(names, event.get("points", []), strict=False))
        return t(lang, "Deal over: {points}. Totals: {totals}", points=pts, totals=totals)
    if kind == "game_over" and event.get("settlement") is not None:
        pts = ", ".join(f"{words.name(n)} {p:+d}" for n, p in zip(names, event["settlement"], strict=False))
        return "💰 " + t(lang, "Settlement: {points}", points=pts)
    return None


# -- the engine's refusals, in the player's language ----------------------------------------------
_CARD = r"(JK=\S+|\S+)"
Say = Callable[[str, list[str]], str]
_REASONS: list[tuple[re.Pattern[str], Say]] = [
    (re.compile(rf"^no meld can hold {_CARD} with the cards on this table$"),
     lambda lang, g: t(lang, "No meld can hold {card} with the cards on this table.", card=g[0])),
    (re.compile(rf"^no arrangement of the table uses {_CARD} \((.*)\) with every table card in a valid meld$"),
     lambda lang, g: t(lang, "No arrangement uses {card} with this table ({cards}).", card=g[0], cards=g[1])),
    (re.compile(rf"^{_CARD} is not in your hand$"),
     lambda lang, g: t(lang, "{card} is not in your hand.", card=g[0])),
    (re.compile(r"^you hold only (\d+) (\S+)$"),
     lambda lang, g: t(lang, "You hold only {n} × {card}.", n=g[0], card=g[1])),
    (re.compile(r"^your first lay-down must include a run of 3 cards of one suit from your hand$"),
     lambda lang, g: t(lang, "Your first lay-down must include a run of 3 cards of one suit from your hand.")),
    (re.compile(r"^you may not lay cards down now"),
     lambda lang, g: t(lang, "You may not lay cards down now.")),
]


def reason(text: str, lang: str) -> str:
    """One line saying why a lay-down does not go, translated where the engine's wording is known."""
    for pattern, say in _REASONS:
        match = pattern.match(text.strip())
        if match:
            return say(lang, [pretty_text(g.replace("JK=", "🃏")) for g in match.groups()])
    return pretty_text(text.replace("JK=", "🃏"))
