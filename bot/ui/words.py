"""Texts for people: game titles, button labels, log lines for events, the table and hand texts.

Everything that shows a user's name escapes it here (``name()``), so a name like ``<b>&Co``
never breaks a message. Per-game words come from the game's presentation (``games/<id>/present.py``,
see ``bot/presentation``); the ``trick_*`` functions here are the trick games' words it defaults to.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import games
from bot.ui.clip import clip_plain
from bot.ui.i18n import GameWords, nt, t
from bot.ui.names import plain_name
from engine.cards import SUIT_SYMBOLS, pretty_text

VERBS = {
    "pass": "Pass", "take": "Take", "schmeiss": "Schmeiss", "accept": "Accept", "refuse": "Refuse",
    "dix": "Dix", "flip": "Flip", "declare": "Play solo", "noask": "Ask nothing", "ask": "Ask for",
    "name": "Trump", "discard": "Discard", "return": "Give back", "give": "Give", "build": "Build",
    "trail": "Trail", "draw": "Draw",
}

PLACEMENT = {"over": "⬆", "under": "⬇", "high": "⬆", "low": "⬇"}


def title(game: str, lang: str) -> str:
    """The game's one name in ``lang`` (its declaration's title, translated in the game's catalog). An id
    no longer registered (an old league record) shows as itself."""
    if game not in games.REGISTERED:
        return game
    return GameWords(game).t(lang, games.declaration(game).title)


def name(raw: str) -> str:
    """A user's name made safe for Telegram HTML (and neutralised: no direction overrides, no
    invisible characters; see ``bot/ui/names.py``)."""
    return html.escape(plain_name(raw), quote=False)


TYPED = 40  # characters of something a person typed that a reply echoes back ("I don't know the game …")


def typed(raw: object, limit: int = TYPED) -> str:
    """Something a person typed, echoed back: cut to ``limit`` characters (with "…"), then made safe as a
    name is (a 3,000-character argument must not come back whole)."""
    return name(clip_plain(str(raw), limit))


def suit(letter: str | None) -> str:
    return SUIT_SYMBOLS.get(letter or "", "—")


def suit_symbol(letter: str | None) -> str:
    """The suit's symbol, "" for none (no trump)."""
    return SUIT_SYMBOLS.get(letter or "", "")


def cards(texts: Sequence[str]) -> str:
    return pretty_text(" ".join(texts))


def trick_action_label(action: str, lang: str) -> str:
    """A trick game's button: a bid's number, a card (and its placement), or a verb and its cards."""
    parts = action.split()
    verb, args = parts[0], parts[1:]
    if verb == "bid" and args:
        return args[0]
    if verb == "play" and args:
        label = pretty_text(args[0])
        if len(args) > 1:
            mark = PLACEMENT.get(args[1], args[1])
            word = t(lang, args[1])
            label += f" {mark} {word}"
        return label
    if verb == "name" and args:
        return t(lang, "Trump") + " " + suit(args[0])
    head = t(lang, VERBS.get(verb, verb))
    return (head + " " + pretty_text(" ".join(args))).strip()


def seat_names(names: Sequence[str], seat: int | None) -> str:
    return name(names[seat]) if seat is not None and 0 <= seat < len(names) else "—"


def trick_event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    """A trick game's log line: bids, tricks taken, the points of a deal."""
    kind = event["type"]  # the common events' fields are always there (engine/events.py)
    if kind == "bid":
        return t(lang, "{who} bids {bid}", who=seat_names(names, event["seat"]), bid=event["bid"])
    if kind == "trick":
        return t(lang, "{who} takes the trick", who=seat_names(names, event["winner"]))
    if kind == "deal_end":
        parts = [f"{name(n)} {p:+d}" for n, p in zip(names, event["scores"], strict=False)]
        return t(lang, "Deal over: {points}", points=", ".join(parts))
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


def trick_table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    """A trick game's table: deal, hand size and trump; each seat's bid and tricks; the cards in play."""
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
