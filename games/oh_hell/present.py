"""Oh Hell words: the scorekeeper's announcements (over / under / even), deals and results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import (
    GREEN,
    GREY,
    INK,
    RED,
    GameWords,
    ModuleWords,
    deal_head,
    mark,
    score_line,
    trick_lines,
    who,
    words,
)

t = GameWords("oh_hell").t  # the game's own catalog (games/oh_hell/locale), then the bot's


def _trump(trump: str | None, card: str | None, lang: str) -> str:
    if not trump:
        return t(lang, "no trump")
    shown = words.suit(trump)
    return shown + (f" ({words.cards([card])})" if card else "")


def balance_text(balance: str, total: int, tricks: int, lang: str) -> str:
    if balance == "over":
        return t(lang, "Bids total {total} for {tricks} tricks: overbid, someone will fail.", total=total,
                 tricks=tricks)
    if balance == "under":
        return t(lang, "Bids total {total} for {tricks} tricks: underbid, someone will take more than bid.",
                 total=total, tricks=tricks)
    return t(lang, "Bids total {total} for {tricks} tricks: even, everyone can make it.", total=total, tricks=tricks)


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    if kind == "deal":
        trump = (t(lang, "trump {suit}", suit=_trump(event["trump"], event.get("trump_card"), lang))
                 if event.get("trump") else t(lang, "no trump"))
        return t(lang, "Deal {k}: {n} cards each, {dealer} deals, {trump}.", k=event["deal_no"],
                 n=event["hand_size"], dealer=who(names, event["dealer"]), trump=trump)
    if kind == "bidding_done":
        return "📣 " + balance_text(event["balance"], event["total"], event["hand_size"], lang)
    if kind == "deal_end":
        parts = []
        for seat, (bid, won, pts) in enumerate(zip(event["bids"], event["tricks"], event["points"], strict=False)):
            sign = "✅" if bid == won else "❌"
            parts.append(f"{who(names, seat)} {bid}/{won} {sign} {pts:+d}")  # the score sheet's order: bid/took
        return t(lang, "Deal over (bid/took): {results}", results=", ".join(parts))
    return None


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    head = deal_head(view, lang)
    head += " · " + t(lang, "{n} cards", n=view["hand_size"])
    if view.get("trump"):
        head += " · " + t(lang, "trump {suit}", suit=_trump(view["trump"], view.get("trump_card"), lang))
    else:
        head += " · " + t(lang, "no trump")
    lines = [head]
    bids, tricks = view.get("bids") or [], view.get("tricks") or []
    for seat in range(view["players"]):
        bid = bids[seat] if seat < len(bids) else None
        bits = [t(lang, "bid {b}", b="—" if bid is None else bid), t(lang, "tricks {n}", n=tricks[seat])]
        dealer = " 🂠" if seat == view.get("dealer") else ""
        lines.append(f"{who(names, seat)}{dealer}: " + ", ".join(bits) + mark(view, seat))
    if view.get("balance"):
        lines.append(balance_text(view["balance"], view["bid_total"], view["hand_size"], lang))
    lines += trick_lines(view, names, lang)
    score = score_line(view, names, lang)
    if score:
        lines.append(score)
    return lines


class OhHellPresentation(ModuleWords):
    """OhHell: the module's words above, the sheet's columns and legend."""

    def sheet_row_label(self, deal: dict[str, Any], lang: str) -> str:
        if deal.get("annulled"):
            return super().sheet_row_label(deal, lang)
        shown = words.suit_symbol(deal.get("trump"))
        return f"{deal.get('deal_no', '')} · {deal.get('hand_size', '')}" + (f" {shown}" if shown else "")

    def sheet_mark(self, deal: dict[str, Any], seat: int) -> str:
        """bid/took."""
        return "" if deal.get("annulled") else f"{deal['bids'][seat]}/{deal['tricks'][seat]}"

    def sheet_colors(self, deal: dict[str, Any], seat: int) -> tuple[Any, Any, bool]:
        """A made bid's points in bold green."""
        if deal.get("annulled"):
            return super().sheet_colors(deal, seat)
        made = deal["bids"][seat] == deal["tricks"][seat]
        return GREY, GREEN if made else RED if deal["points"][seat] < 0 else INK, made

    def sheet_legend(self, lang: str) -> str | None:
        return t(lang, "bid/took, then points; green: bid made")


PRESENTATION = OhHellPresentation("oh_hell", lines=table_lines, line=event_line)
