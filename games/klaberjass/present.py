"""Klaberjass words: the two-round auction, the schmeiss, the dix, sequences and bella, the maker's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import GREEN, RED, GameWords, ModuleWords, deal_head, mark, points, trick_lines, who, words

t = GameWords("klaberjass").t  # the game's own catalog (games/klaberjass/locale), then the bot's
STAR = "★"  # the score sheet's mark


def action_label(action: str, lang: str) -> str | None:
    verb, _, arg = action.partition(" ")
    if verb == "take":
        return "✅ " + t(lang, "Take the turned suit")
    if verb == "pass":
        return t(lang, "Pass")
    if verb == "schmeiss":
        return "🔄 " + t(lang, "Schmeiss (offer a redeal)")
    if verb == "accept":
        return t(lang, "Accept: redeal")
    if verb == "refuse":
        return t(lang, "Refuse: you play it")
    if verb == "name":
        return t(lang, "Trump") + " " + words.suit(arg)
    if verb == "dix":
        return "🔁 " + t(lang, "Dix: swap the 7 for the turned card")
    if verb == "keep":
        return "▶️ " + t(lang, "No exchange: on to the lead")
    return None


def _bid_line(seat: int, bid: str, names: Sequence[str], lang: str) -> str:
    name = who(names, seat)
    verb, _, arg = bid.partition(" ")
    if verb == "take":
        return t(lang, "{who} takes the turned suit.", who=name)
    if verb == "pass":
        return t(lang, "{who} passes.", who=name)
    if verb == "schmeiss":
        return t(lang, "{who} schmeisses: a redeal is offered.", who=name)
    if verb == "accept":
        return t(lang, "{who} accepts the redeal.", who=name)
    if verb == "refuse":
        return t(lang, "{who} refuses the redeal.", who=name)
    return t(lang, "{who} names {suit}.", who=name, suit=words.suit(arg))


def _result(result: str, lang: str) -> str:
    if result == "made":
        return t(lang, "the maker made it")
    if result == "tie":
        return t(lang, "a tie: only the opponent scores")
    return t(lang, "bete: the opponent scores both totals")


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    if kind == "deal":
        return t(lang, "Deal {k}: {dealer} deals, the turned card is {card}.", k=event["deal_no"],
                 dealer=who(names, event["dealer"]), card=words.cards([event["trump_card"]]))
    if kind == "bid":
        return _bid_line(event["seat"], event["bid"], names, lang)
    if kind == "trump":
        return "🎯 " + t(lang, "{who} is the maker, trump {suit}; the bottom card is {card}.",
                         who=who(names, event["maker"]), suit=words.suit(event["trump"]),
                         card=words.cards([event["bottom_card"]]))
    if kind == "dix":
        return t(lang, "{who} swaps {gave} for the turned {took} (dix).", who=who(names, event["seat"]),
                 gave=words.cards([event["gave"]]), took=words.cards([event["took"]]))
    if kind == "sequences":
        if event.get("seat") is None:
            return t(lang, "No sequences.")
        shown = "; ".join(words.cards(run) for run in event["sequences"])
        return "📜 " + t(lang, "{who} scores sequences: {runs} (+{points}).", who=who(names, event["seat"]),
                         runs=shown, points=event["points"])
    if kind == "bella":
        return "👑 " + t(lang, "{who}: bella!", who=who(names, event["seat"]))
    if kind == "deal_end":
        if event.get("annulled") == "schmeiss":
            return t(lang, "The deal is thrown in (schmeiss accepted).")
        if event.get("annulled"):
            return t(lang, "Both passed twice: the deal is thrown in.")
        detail = ", ".join(f"{who(names, s)} {event['counted'][s]}" for s in (0, 1))
        return t(lang, "Deal over: {detail}; {result}. Points: {points}", detail=detail,
                 result=_result(event["result"], lang), points=points(names, event["points"]))
    return None


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    head = deal_head(view, lang)
    if view.get("trump"):
        head += " · " + t(lang, "trump {suit}", suit=words.suit(view["trump"]))
        if view.get("maker") is not None:
            head += " (" + who(names, view["maker"]) + ")"
    else:
        head += " · " + t(lang, "turned card {card}", card=words.cards([view["trump_card"]]))
    lines = [head]
    if view.get("bottom_card") and view.get("phase") in ("dix", "play"):
        lines.append(t(lang, "Bottom card: {card}", card=words.cards([view["bottom_card"]])))
    playing = view.get("phase") == "play"
    scores = view.get("scores") or [0, 0]
    for seat in range(view["players"]):
        bits = []
        if playing:
            bits.append(t(lang, "tricks {n}", n=view["tricks"][seat]))
            bits.append(t(lang, "card points {n}", n=view["card_points"][seat]))
        bits.append(t(lang, "score {n}/{target}", n=scores[seat], target=view.get("target")))
        dealer = " 🂠" if seat == view.get("dealer") else ""
        lines.append(f"{who(names, seat)}{dealer}: " + ", ".join(bits) + mark(view, seat))
    if not playing and view.get("auction"):
        said = ", ".join(f"{who(names, a['seat'])}: {action_label(a['bid'], lang)}" for a in view["auction"])
        lines.append(t(lang, "Auction: {bids}", bids=said))
    decl = view.get("declarations")
    if decl and decl.get("seat") is not None:
        lines.append(t(lang, "Sequences: {who} {runs} (+{points})", who=who(names, decl["seat"]),
                       runs="; ".join(words.cards(r) for r in decl["sequences"]), points=decl["points"]))
    if view.get("bella") is not None:
        lines.append(t(lang, "Bella: {who}", who=who(names, view["bella"])))
    lines += trick_lines(view, names, lang)
    return lines


class KlaberjassPresentation(ModuleWords):
    """Klaberjass: the module's words above, the sheet's columns and legend."""

    def sheet_mark(self, deal: dict[str, Any], seat: int) -> str:
        return STAR if not deal.get("annulled") and deal.get("maker") == seat else ""

    def sheet_colors(self, deal: dict[str, Any], seat: int) -> tuple[Any, Any, bool]:
        """The maker's star red when the maker went bête."""
        mark, points_color, bold = super().sheet_colors(deal, seat)
        if not deal.get("annulled") and deal.get("maker") == seat:
            return (RED if deal.get("result") == "bete" else GREEN), points_color, bold
        return mark, points_color, bold

    def sheet_legend(self, lang: str) -> str | None:
        return t(lang, "★ maker (red: went bête)")


PRESENTATION = KlaberjassPresentation("klaberjass", lines=table_lines, line=event_line, label=action_label)
