"""Calabrasella words: declaring, the asked card, the widow shown to all, the soloist's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import (
    GameWords,
    ModuleWords,
    caption_table,
    deal_head,
    mark,
    plain_name,
    points,
    render_table,
    score_line,
    trick_lines,
    who,
    words,
)

t = GameWords("calabrasella").t  # the game's own catalog (games/calabrasella/locale), then the bot's
STAR = "★"  # the score sheet's mark

PICK_VERBS = frozenset({"discard"})  # 1-4 of 12 cards: chosen card by card


def action_label(action: str, lang: str) -> str | None:
    verb, _, arg = action.partition(" ")
    if verb == "declare":
        return "🎯 " + t(lang, "Play solo")
    if verb == "pass":
        return t(lang, "Pass")
    if verb == "ask":
        return t(lang, "Ask for {card}", card=words.cards([arg]))
    if verb == "noask":
        return t(lang, "Ask for nothing")
    if verb == "return":
        return t(lang, "Give back {card}", card=words.cards([arg]))
    if verb == "discard":
        return t(lang, "Discard") + (" " + words.cards(arg.split()) if arg else "")
    if verb == "take":
        return t(lang, "Take {cards}", cards=words.cards(arg.split()))
    return None


def group_key(action: str) -> str:
    """Every widow choice is its own button (at most six), never a two-step menu."""
    return action


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    if kind == "deal":
        return t(lang, "Deal {k}: {dealer} deals.", k=event["deal_no"], dealer=who(names, event["dealer"]))
    if kind == "bid":
        if event["bid"] == "declare":
            return "🎯 " + t(lang, "{who} plays solo.", who=who(names, event["seat"]))
        return t(lang, "{who} passes.", who=who(names, event["seat"]))
    if kind == "ask":
        name = who(names, event["seat"])
        if event.get("card") is None:
            return t(lang, "{who} asks for nothing.", who=name)
        card = words.cards([event["card"]])
        if event.get("in_widow"):
            return t(lang, "{who} asks for {card}: it is in the widow.", who=name, card=card)
        return t(lang, "{who} asks for {card}: {holder} hands it over.", who=name, card=card,
                 holder=who(names, event.get("holder")))
    if kind == "exchange":
        return t(lang, "{who} gives {holder} a card back.", who=who(names, event["soloist"]),
                 holder=who(names, event["holder"]))
    if kind == "discard":
        return t(lang, "{who} discards {n} face down.", who=who(names, event["seat"]), n=event["count"])
    if kind == "widow":
        return "🂠 " + t(lang, "The widow: {cards}", cards=words.cards(event["cards"]))
    if kind == "take":
        return t(lang, "{who} takes {cards} from the widow.", who=who(names, event["seat"]),
                 cards=words.cards(event["cards"]))
    if kind == "deal_end":
        if event.get("annulled"):
            return t(lang, "Deal {k}: everyone passed, the deal is thrown in.", k=event.get("deal_no", "?"))
        return t(lang, "Deal {k} over: soloist {who} {solo} v partners {partners} (the last trick and the pile "
                       "{pile} to {last}). Points: {points}", k=event.get("deal_no", "?"),
                 who=who(names, event["soloist"]),
                 solo=event["soloist_points"], partners=event["partner_points"],
                 pile=words.cards(event["pile"]) or "—", last=who(names, event["last_trick"]),
                 points=points(names, event["points"]))
    return None


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    lines = [deal_head({**view, "deals_total": view.get("deals")}, lang)]
    soloist = view.get("soloist")
    if soloist is not None:
        lines.append(t(lang, "Soloist: {who}", who=who(names, soloist)))
    asked = view.get("asked")
    if asked:
        where = t(lang, "in the widow") if asked.get("in_widow") else who(names, asked.get("holder"))
        line = t(lang, "Asked for {card} ({where})", card=words.cards([asked["card"]]), where=where)
        if asked.get("returned"):
            line += " · " + t(lang, "given back {card}", card=words.cards([asked["returned"]]))
        lines.append(line)
    if view.get("widow"):
        lines.append(t(lang, "The widow: {cards}", cards=words.cards(view["widow"])))
    if view.get("discards"):
        lines.append(t(lang, "Your discards: {cards}", cards=words.cards(view["discards"])))
    playing = view.get("phase") == "play"
    declarations = view.get("declarations") or []
    for seat in range(view["players"]):
        bits = []
        if playing:
            bits.append(t(lang, "tricks {n}", n=view["tricks"][seat]))
            bits.append(t(lang, "card points {n}", n=view["card_points"][seat]))
        elif seat < len(declarations) and declarations[seat]:
            bits.append(t(lang, "plays solo") if declarations[seat] == "declare" else t(lang, "passed"))
        dealer = " 🂠" if seat == view.get("dealer") else ""
        row = f"{who(names, seat)}{dealer}"
        lines.append(row + (": " + ", ".join(bits) if bits else "") + mark(view, seat))
    lines += trick_lines(view, names, lang)
    score = score_line(view, names, lang)
    if score:
        lines.append(score)
    return lines


def group_view(view: dict[str, Any], names: Sequence[str], lang: str) -> dict[str, Any]:
    """The public view as the group's picture and caption show it: once someone plays solo, a line naming
    the soloist and ★ on their plate."""
    soloist = view.get("soloist")
    if not isinstance(soloist, int):
        return view
    name = plain_name(names[soloist]) if soloist < len(names) else f"P{soloist + 1}"
    roles: list[str | None] = [None] * int(view.get("players") or len(names))
    if soloist < len(roles):
        roles[soloist] = "★ " + t(lang, "soloist")
    return {**view, "banner": "★ " + t(lang, "{who} plays solo against the other two", who=name), "roles": roles}


class CalabrasellaPresentation(ModuleWords):
    """Calabrasella: the module's words above, the soloist shown to the group, the sheet's columns and legend."""

    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        return render_table(group_view(view, names, lang), names, lang)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return caption_table(group_view(view, names, lang), names, lang)

    def group_key(self, action: str) -> str:
        return group_key(action)

    pick_verbs = PICK_VERBS

    def sheet_mark(self, deal: dict[str, Any], seat: int) -> str:
        return STAR if not deal.get("annulled") and deal.get("soloist") == seat else ""

    def sheet_legend(self, lang: str) -> str | None:
        return t(lang, "★ soloist")


PRESENTATION = CalabrasellaPresentation("calabrasella", lines=table_lines, line=event_line, label=action_label)
