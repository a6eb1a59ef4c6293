"""Variety words: the eight contracts by name, the auction that makes partners, each side's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import (
    GREEN,
    RED,
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

t = GameWords("variety").t  # the game's own catalog (games/variety/locale), then the bot's
STAR = "★"  # the score sheet's mark

ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII"}
TRUMP = {1: None, 2: "C", 3: "H", 4: "D", 5: "S", 6: "C", 7: "S", 8: None}


def _what(contract: int, lang: str) -> str:
    """What a side scores in each contract, in a few words."""
    texts = {
        1: lambda: t(lang, "more tricks +12"),
        2: lambda: t(lang, "+2 a trick"),
        3: lambda: t(lang, "+2 a spade"),
        4: lambda: t(lang, "red +1, black −1"),
        5: lambda: t(lang, "black 10/J +5, red −5"),
        6: lambda: t(lang, "lowest wins, red +1"),
        7: lambda: t(lang, "−2 a club"),
        8: lambda: t(lang, "−2 a trick"),
    }
    return texts[contract]()


def contract_name(contract: int, lang: str, brackets: bool = False) -> str:
    """``V ♠: black 10/J +5, red −5`` (or ``V ♠ (black ...)``); NT for the no-trump contracts."""
    trump = TRUMP[contract]
    shown = words.suit(trump) if trump else t(lang, "NT")
    what = _what(contract, lang)
    return f"{ROMAN[contract]} {shown} ({what})" if brackets else f"{ROMAN[contract]} {shown}: {what}"


def action_label(action: str, lang: str) -> str | None:
    verb, _, arg = action.partition(" ")
    if verb == "bid" and arg.isdigit():
        return contract_name(int(arg), lang)
    return None


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    if kind == "deal":
        return t(lang, "Deal {k}: {dealer} deals.", k=event["deal_no"], dealer=who(names, event["dealer"]))
    if kind == "bid":
        return t(lang, "{who} names {contract}", who=who(names, event["seat"]),
                 contract=contract_name(event["contract"], lang))
    if kind == "contract":
        first, second = event["attackers"]
        return "🤝 " + t(lang, "Contract {contract}: {a} and {b} attack; {leader} leads.",
                         contract=contract_name(event["contract"], lang, True), a=who(names, first),
                         b=who(names, second), leader=who(names, event["leader"]))
    if kind == "deal_end":
        sides = event["side_points"]
        outcome = (t(lang, "the attackers win") if event["attackers_won"]
                   else t(lang, "the attackers lose: the defenders get +10 each"))
        return t(lang, "Deal {k} over: attackers {a}, defenders {d}; {outcome}. Points: {points}",
                 k=event.get("deal_no", "?"), a=sides["attackers"], d=sides["defenders"], outcome=outcome,
                 points=points(names, event["points"]))
    return None


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    head = deal_head(view, lang)
    contract = view.get("contract")
    if contract:
        head += " · " + contract_name(contract, lang)
    lines = [head]
    attackers = view.get("attackers") or []
    bids = view.get("bids") or []
    for seat in range(view["players"]):
        bits = []
        if contract:
            role = t(lang, "attacker") if seat in attackers else t(lang, "defender")
            bits += [role, t(lang, "tricks {n}", n=view["tricks"][seat])]
        elif seat < len(bids) and bids[seat] is not None:
            bits.append(t(lang, "last named {contract}", contract=ROMAN[bids[seat]]))
        dealer = " 🂠" if seat == view.get("dealer") else ""
        lines.append(f"{who(names, seat)}{dealer}" + (": " + ", ".join(bits) if bits else "") + mark(view, seat))
    if not contract and view.get("auction"):
        said = " · ".join(f"{who(names, a['seat'])} {ROMAN[a['contract']]}" for a in view["auction"])
        lines.append(t(lang, "Auction: {bids}", bids=said))
    lines += trick_lines(view, names, lang)
    score = score_line(view, names, lang)
    if score:
        lines.append(score)
    return lines


def group_view(view: dict[str, Any], names: Sequence[str], lang: str) -> dict[str, Any]:
    """The public view as the group's picture and caption show it: once a contract is made, a line with the
    contract (trump, what a side scores) and who attacks, and each seat's side on its plate; before that the
    bids by their numerals, the auction by its name and no trump (none is chosen yet)."""
    shown = dict(view)
    contract = view.get("contract")
    if not contract:
        shown.pop("trump", None)
        shown["bids"] = [ROMAN.get(b) if isinstance(b, int) else None for b in view.get("bids") or []]
        if view.get("phase") == "auction":
            shown["phase"] = t(lang, "Auction")  # the picture's header shows it as it is
        return shown
    attackers = list(view.get("attackers") or [])
    who_ = [plain_name(names[s]) if s < len(names) else f"P{s + 1}" for s in attackers]
    shown["banner"] = t(lang, "{contract} · {a} and {b} attack", contract=contract_name(contract, lang),
                        a=who_[0] if who_ else "?", b=who_[1] if len(who_) > 1 else "?")
    shown["roles"] = [("★ " + t(lang, "attacker")) if s in attackers else t(lang, "defender")
                      for s in range(int(view.get("players") or len(names)))]
    shown["bids"] = None  # the auction is over: the contract line says what was named
    return shown


class VarietyPresentation(ModuleWords):
    """Variety: the module's words above, the group's view of the contract, the sheet's columns and legend."""

    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        return render_table(group_view(view, names, lang), names, lang)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        return caption_table(group_view(view, names, lang), names, lang)

    def sheet_row_label(self, deal: dict[str, Any], lang: str) -> str:
        if deal.get("annulled") or not deal.get("contract_name"):
            return super().sheet_row_label(deal, lang)
        shown = words.suit_symbol(deal.get("trump"))
        return f"{deal.get('deal_no', '')} · {deal['contract_name']}" + (f" {shown}" if shown else "")

    def sheet_mark(self, deal: dict[str, Any], seat: int) -> str:
        return STAR if not deal.get("annulled") and seat in (deal.get("attackers") or []) else ""

    def sheet_colors(self, deal: dict[str, Any], seat: int) -> tuple[Any, Any, bool]:
        """The attackers' stars green when they won."""
        mark, points_color, bold = super().sheet_colors(deal, seat)
        if not deal.get("annulled") and seat in (deal.get("attackers") or []):
            return (GREEN if deal.get("attackers_won") else RED), points_color, bold
        return mark, points_color, bold

    def sheet_legend(self, lang: str) -> str | None:
        return t(lang, "row: deal, contract, trump; ★ attackers")


PRESENTATION = VarietyPresentation("variety", lines=table_lines, line=event_line, label=action_label)
