"""Texts for people: game titles, button labels, log lines for events, the table and hand texts.

Everything that shows a user's name escapes it here (``name()``), so a name like ``<b>&Co``
never breaks a message. Games outside the trick family may add a module
``bot/ui/games/<id>.py`` with ``action_label``, ``event_line`` or ``table_lines``; this module
falls back to the common trick-game words.
"""

from __future__ import annotations

import html
import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from bot.ui.i18n import nt, t
from bot.ui.names import plain_name
from engine.cards import SUIT_SYMBOLS, pretty_text

TITLES = {
    "carnival": ("Carnival", "Карнавал"),
    "oh_hell": ("Oh Hell", "Черт побери"),
    "klaberjass": ("Klaberjass", "Клаберас"),
    "calabrasella": ("Calabrasella", "Калабраселла"),
    "variety": ("Variety", "Варьете"),
    "karusele": ("Karusele", "Карусель"),
    "svinya": ("Svinya", "Свинья"),
    "pyanitsa": ("Pyanitsa", "Пьяница"),
    "carousel": ("Carousel", "Карусель (рамми)"),  # the rummies (issue 16); not Karusele, the fishing game
    "machiavelli": ("Machiavelli", "Макиавелли"),
    "tahiti": ("Tahiti", "Таити"),
    "guadalupe": ("Guadalupe", "Гваделупе"),
    "vatican": ("Vatican", "Ватикан"),
    "shanghai": ("Shanghai", "Шанхай"),
    "manipulation": ("Manipulation", "Манипуляция"),
}

VERBS = {
    "pass": "Pass", "take": "Take", "schmeiss": "Schmeiss", "accept": "Accept", "refuse": "Refuse",
    "dix": "Dix", "flip": "Flip", "declare": "Play solo", "noask": "Ask nothing", "ask": "Ask for",
    "name": "Trump", "discard": "Discard", "return": "Give back", "give": "Give", "build": "Build",
    "trail": "Trail", "draw": "Draw",
}

PLACEMENT = {"over": "⬆", "under": "⬇", "high": "⬆", "low": "⬇"}


def title(game: str, lang: str) -> str:
    en, ru = TITLES.get(game, (game, game))
    return ru if lang == "ru" else en


def name(raw: str) -> str:
    """A user's name made safe for Telegram HTML (and neutralised: no direction overrides, no
    invisible characters; see ``bot/ui/names.py``)."""
    return html.escape(plain_name(raw), quote=False)


def suit(letter: str | None) -> str:
    return SUIT_SYMBOLS.get(letter or "", "—")


def cards(texts: Sequence[str]) -> str:
    return pretty_text(" ".join(texts))


def _game_module(game: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"bot.ui.games.{game}")
    except ModuleNotFoundError:
        return None


def hook(game: str, attr: str) -> Any:
    """An optional per-game hook from ``bot/ui/games/<game>.py`` (None when the game has none)."""
    module = _game_module(game)
    return getattr(module, attr, None) if module is not None else None


def _engine_describe(game: str):  # noqa: ANN202 - optional hook of an engine module
    try:
        module = importlib.import_module(f"games.{game}.rules")
    except ModuleNotFoundError:
        return None
    return getattr(module, "describe", None)


def action_label(game: str, action: str, lang: str) -> str:
    """The text of a button for ``action``."""
    module = _game_module(game)
    if module is not None and hasattr(module, "action_label"):
        label = module.action_label(action, lang)
        if label:
            return label
    describe = _engine_describe(game)
    if describe is not None:
        return describe(action, lang)
    words = action.split()
    verb, args = words[0], words[1:]
    if verb == "bid" and args:
        return args[0]
    if verb == "play" and args:
        label = pretty_text(args[0])
        if len(args) > 1:
            mark = PLACEMENT.get(args[1], args[1])
            word = t(lang, args[1])
            label += f" {mark} {word}"
        return label
    if verb == "carnival":
        return "🎭 " + pretty_text(" ".join(args))
    if verb == "name" and args:
        return t(lang, "Trump") + " " + suit(args[0])
    head = t(lang, VERBS.get(verb, verb))
    return (head + " " + pretty_text(" ".join(args))).strip()


def group_label(game: str, first_action: str, lang: str) -> str:
    """The button that opens a second step (``play JK`` → 🃏)."""
    custom = hook(game, "group_label")
    if custom is not None:
        return custom(first_action, lang)
    words = first_action.split()
    if words[0] == "play":
        return pretty_text(words[1])
    return action_label(game, " ".join(words[:2]), lang)


def seat_names(names: Sequence[str], seat: int | None) -> str:
    return name(names[seat]) if seat is not None and 0 <= seat < len(names) else "—"


def event_line(game: str, event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    """One log line for the group, or None for events the log does not show."""
    module = _game_module(game)
    if module is not None and hasattr(module, "event_line"):
        line = module.event_line(event, names, lang)
        if line is not None:
            return line or None
    kind = event.get("type")
    who = seat_names(names, event.get("seat"))
    if kind == "bid":
        return t(lang, "{who} bids {bid}", who=who, bid=event.get("bid"))
    if kind == "trick":
        winner = seat_names(names, event.get("winner"))
        if event.get("count", 1) == 2:
            return t(lang, "🎭 {who} takes the Carnival (2 tricks)", who=winner)
        return t(lang, "{who} takes the trick", who=winner)
    if kind == "deal_end" and "points" in event:
        parts = [f"{name(n)} {p:+d}" for n, p in zip(names, event["points"], strict=False)]
        return t(lang, "Deal over: {points}", points=", ".join(parts))
    if kind == "quarter_end":
        final = event.get("final") or event.get("result", {}).get("final")
        if final:
            parts = [f"{name(n)} {p:+d}" for n, p in zip(names, final, strict=False)]
            return t(lang, "Quarter {q} over: {points}", q=event.get("quarter", "?"), points=", ".join(parts))
    if kind == "bids_done" or kind == "bidding_over":
        state = event.get("table") or event.get("status")
        if state in ("over", "under", "even"):
            return t(lang, "Bids are {state}: {total} bid for {tricks} tricks",
                     state=t(lang, state), total=event.get("total", "?"), tricks=event.get("tricks", "?"))
    return None


def _play_text(play: dict[str, Any], lang: str) -> str:
    text = cards(play.get("cards", []))
    place = play.get("place") or play.get("mode")
    if place:
        text += " " + PLACEMENT.get(place, "") + t(lang, place)
    return text


def trick_text(trick: dict[str, Any] | None, names: Sequence[str], lang: str) -> str:
    if not trick or not trick.get("plays"):
        return ""
    parts = [f"{seat_names(names, p['seat'])} {_play_text(p, lang)}" for p in trick["plays"]]
    mode = trick.get("lead_mode")
    prefix = "(" + t(lang, mode) + ") " if mode else ""
    return prefix + " · ".join(parts)


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    """What the group (or a player) needs to know about the table now."""
    module = _game_module(view["game"])
    if module is not None and hasattr(module, "table_lines"):
        return module.table_lines(view, names, lang)
    lines: list[str] = []
    head = f"<b>{title(view['game'], lang)}</b>"
    if view.get("deal_no"):
        total = view.get("deals_total")
        number = f"{view['deal_no']}/{total}" if total else str(view["deal_no"])
        head += " · " + t(lang, "deal {k}", k=number)
    if view.get("hand_size"):
        head += " · " + nt(lang, "{n} card", "{n} cards", int(view["hand_size"]))
    if "trump" in view:
        trump = suit(view.get("trump")) if view.get("trump") else t(lang, "no trump")
        card = f" ({cards([view['trump_card']])})" if view.get("trump_card") else ""
        head += " · " + t(lang, "trump {suit}", suit=trump + card)
    lines.append(head)
    bids = view.get("bids")
    tricks = view.get("tricks")
    for seat in range(view["players"]):
        row = name(names[seat])
        bits = []
        if bids is not None and seat < len(bids):
            bits.append(t(lang, "bid {b}", b="—" if bids[seat] is None else bids[seat]))
        if tricks is not None and seat < len(tricks):
            bits.append(t(lang, "tricks {n}", n=tricks[seat]))
        if bits:
            row += ": " + ", ".join(bits)
        if seat == view.get("to_act"):
            row += " ⏳"
        lines.append(row)
    current = trick_text(view.get("trick"), names, lang)
    if current:
        lines.append(t(lang, "On the table: {cards}", cards=current))
    elif view.get("last_trick"):
        last = view["last_trick"]
        lines.append(t(lang, "Last trick: {cards} → {who}", cards=trick_text(last, names, lang),
                       who=seat_names(names, last.get("winner"))))
    return lines


def hand_text(view: dict[str, Any], names: Sequence[str], lang: str, chat_title: str, live: bool) -> str:
    """A player's DM: the table facts, their hand, and whether it is their turn."""
    lines = [name(chat_title)] if chat_title else []
    lines += table_lines(view, names, lang)
    if view.get("hand") is not None:
        lines.append("")
        lines.append(t(lang, "Your hand: {cards}", cards=cards(view["hand"]) or "—"))
    if view.get("over"):
        lines.append(t(lang, "The game is over."))
    elif live:
        extra = ""
        if view.get("forbidden_bid") is not None:
            extra = " " + t(lang, "(you may not bid {n})", n=view["forbidden_bid"])
        lines.append("👉 <b>" + t(lang, "Your turn.") + "</b>" + extra)
    else:
        lines.append(t(lang, "Waiting for {who}.", who=seat_names(names, view.get("to_act"))))
    return "\n".join(lines)


def standings_text(game: str, names: Sequence[str], totals: Sequence[int], lang: str) -> str:
    order = sorted(range(len(totals)), key=lambda s: -totals[s])
    lines = [f"🏁 <b>{title(game, lang)}</b>: " + t(lang, "final standings")]
    place = 0
    for i, seat in enumerate(order):
        if i == 0 or totals[seat] != totals[order[i - 1]]:
            place = i + 1
        medal = {1: "🥇", 2: "🥈", 3: "🥉"}.get(place, f"{place}.")
        lines.append(f"{medal} {name(names[seat])}: {totals[seat]}")
    return "\n".join(lines)


def places(totals: Sequence[int]) -> list[int]:
    """Place per seat, ties sharing a place (1 = best)."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


def sheet_text(game: str, sheet: dict[str, Any], names: Sequence[str], scores: Sequence[int], lang: str) -> str:
    """The score sheet as text: one line per finished deal, quarter results, totals."""
    lines = [f"<b>{title(game, lang)}</b>: " + t(lang, "score sheet")]
    lines.append(" | ".join(name(n[:12]) for n in names))  # cut the name, not its escaping
    for deal in sheet.get("deals", []):
        points = deal.get("points", [])
        bids = deal.get("bids")
        cells = []
        for seat, p in enumerate(points):
            bid = f"{bids[seat]}/" if bids and seat < len(bids) and bids[seat] is not None else ""
            cells.append(f"{bid}{p:+d}")
        size = f"[{deal['hand_size']}] " if deal.get("hand_size") else ""
        lines.append(size + " | ".join(cells))
    for q in sheet.get("quarter_results", []):
        lines.append(t(lang, "Quarter {q}", q=q["quarter"]) + ": " + " | ".join(str(v) for v in q["final"]))
    lines.append(t(lang, "Total") + ": " + " | ".join(str(s) for s in scores))
    return "\n".join(lines)
