"""Captions: the facts of each picture as Telegram HTML text (≤ 1024 characters), en/ru.

They serve notification previews and screen readers. Names are escaped with ``html.escape``;
long names are cut (before escaping, so no entity is broken) and the whole caption is
shortened line by line if it would pass Telegram's limit.
"""

from __future__ import annotations

import html
from typing import Any

from bot.render.sheet import SheetStyle
from bot.render.standings import places
from bot.render.words import cards_count, game_name, num, words
from bot.ui.names import plain_name
from engine.cards import SUIT_SYMBOLS, pretty_text

LIMIT = 1024


def caption_name(names: list[str], seat: Any, width: int = 32) -> str:
    """A seat's name for a caption: neutralised, cut to ``width``, escaped ("?" for no seat)."""
    if not isinstance(seat, int) or seat < 0:
        return "?"
    raw = plain_name(names[seat]) if seat < len(names) else f"P{seat + 1}"
    if len(raw) > width:
        raw = raw[: width - 1] + "…"
    return html.escape(raw)


def fit_caption(lines: list[str]) -> str:
    """Join lines, dropping lines from the end (keeping the first) until the text fits the limit."""
    text = "\n".join(lines)
    while len(text) > LIMIT and len(lines) > 2:
        lines = lines[:-2] + [lines[-1]]  # keep the head and the last line (whose turn it is)
        text = "\n".join(lines)
    if len(text) > LIMIT:  # still too long: plain text, cut before escaping so no entity is broken
        plain = html.unescape(text.replace("<b>", "").replace("</b>", ""))
        keep = LIMIT
        while len(html.escape(plain[:keep])) + 1 > LIMIT:
            keep -= max(1, (len(html.escape(plain[:keep])) + 1 - LIMIT) // 5)
        text = html.escape(plain[:keep]) + "…"
    return text


def _cards(cards: list[str]) -> str:
    return " ".join(pretty_text(c) for c in cards)


def caption_table(view: dict[str, Any], names: list[str], lang: str = "en", pair_kind: str | None = None) -> str:
    """The table's facts as the picture's caption; a trick of ``pair_kind`` (a game's doubled trick) is
    called a pair."""
    w = words(lang)
    n = int(view.get("players") or len(names))
    head = [f"<b>{html.escape(game_name(view.get('game'), lang))}</b>"]
    if view.get("quarter"):
        head.append(f"{w['quarter'].lower()} {view['quarter']}")
    if view.get("deal_no"):
        head.append(f"{w['deal'].lower()} {view['deal_no']}" + (f"/{view['deals_total']}"
                                                                if view.get("deals_total") else ""))
    if view.get("hand_size"):
        head.append(cards_count(int(view['hand_size']), lang))
    if view.get("trump_card") or view.get("trump"):
        trump = pretty_text(view["trump_card"]) if view.get("trump_card") else view["trump"]
        head.append(f"{w['trump'].lower()} {SUIT_SYMBOLS.get(trump, trump)}")  # a suit letter as its symbol
    elif "trump" in view:
        head.append(w["no_trump"])
    lines = [" · ".join(head)]
    if view.get("banner"):  # what the deal is about, in the game's words (plain text, names plain)
        lines.append(f"<b>{html.escape(str(view['banner']))}</b>")
    roles = view.get("roles")
    bids, tricks, scores = view.get("bids"), view.get("tricks"), view.get("scores")
    for seat in range(n):
        parts = []
        if isinstance(roles, list) and seat < len(roles) and roles[seat]:
            parts.append(html.escape(str(roles[seat])))
        if isinstance(bids, list) and seat < len(bids):
            parts.append(f"{w['bid']} {bids[seat] if bids[seat] is not None else '–'}")
        if isinstance(tricks, list) and seat < len(tricks):
            parts.append(f"{w['took']} {tricks[seat]}")
        if isinstance(scores, list) and seat < len(scores):
            parts.append(f"{w['score']} {num(scores[seat])}")
        mark = " (D)" if view.get("dealer") == seat else ""
        lines.append(f"{seat + 1}. {caption_name(names, seat)}{mark}: " + ", ".join(parts))
    trick = view.get("trick")
    finished = False
    if not (trick and trick.get("plays")) and view.get("last_trick") and view["last_trick"].get("plays"):
        trick, finished = view["last_trick"], True
    if trick and trick.get("plays"):
        paired = bool(pair_kind) and trick.get("kind") == pair_kind
        label = w["last_trick"] if finished else (w["pair"] if paired else w["trick"])
        plays = []
        for i, play in enumerate(trick["plays"]):
            extra = []
            if i == 0 and trick.get("lead_mode") in ("high", "low"):
                extra.append(w[trick["lead_mode"]])
            if play.get("place") in ("over", "under"):
                extra.append(w[play["place"]])
            tail = f" ({', '.join(extra)})" if extra else ""
            plays.append(f"{caption_name(names, play.get('seat'))} {_cards(play.get('cards') or [])}{tail}")
        line = f"<b>{label}</b>: " + "; ".join(plays)
        if finished:
            line += f" → {w['won_by']} {caption_name(names, trick.get('winner'))}"
        elif trick.get("best") is not None:
            line += f" ({w['best']}: {caption_name(names, trick.get('best'))})"
        lines.append(line)
    actor = view.get("to_act")
    if isinstance(actor, int) and not view.get("over"):
        verb = {"bid": w["to_bid"], "play": w["to_play"]}.get(view.get("phase") or "", w["to_act"])
        line = f"▶ {caption_name(names, actor)} {verb}"
        if view.get("phase") == "bid" and view.get("forbidden_bid") is not None:
            line += f" ({w['not_bid']} {view['forbidden_bid']})"
        lines.append(line)
    elif view.get("over"):
        lines.append(f"<b>{w['game_over']}</b>")
    return fit_caption(lines)


def caption_standings(names: list[str], totals: list[int], lang: str = "en", title: str | None = None) -> str:
    w = words(lang)
    ranks = places(totals)
    order = sorted(range(len(totals)), key=lambda s: (ranks[s], s))
    head = title or w["standings"]
    lines = [f"<b>{html.escape(head if len(head) <= 100 else head[:99] + '…')}</b>"]
    for seat in order:
        crown = " 🏆" if ranks[seat] == 1 else ""
        lines.append(f"{ranks[seat]}. {caption_name(names, seat)}: {num(totals[seat])}{crown}")
    return fit_caption(lines)


def caption_sheet(style: SheetStyle, sheet: dict[str, Any], names: list[str], totals: list[int],
                  lang: str = "en") -> str:
    """The generic score sheet of a trick game: the latest deals that fit, then the totals."""
    w = words(lang)
    deals = [d for d in sheet.get("deals", []) if isinstance(d.get("points"), list)]
    head = f"<b>{html.escape(style.sheet_title(lang))} · {w['score_grid']}</b>"
    if deals:
        head += f" · {w['after_deal']} {len(deals)}"
    total = f"<b>{w['total']}</b>: " + ", ".join(f"{caption_name(names, s, 24)} {num(t)}" for s, t in enumerate(totals))
    rows: list[str] = []
    budget = LIMIT - len(head) - len(total) - 2
    for deal in reversed(deals):  # the latest deals matter most: keep those that fit
        if deal.get("annulled"):
            line = f"{html.escape(style.sheet_row_label(deal, lang))}: {w['annulled']}"
        else:
            parts = []
            for seat, pts in enumerate(deal["points"]):
                mark = style.sheet_mark(deal, seat)
                parts.append(f"{caption_name(names, seat, 16)} {num(pts)}" + (f" ({mark})" if mark else ""))
            line = f"{html.escape(style.sheet_row_label(deal, lang))}: " + ", ".join(parts)
        if len(line) + 1 > budget:
            break
        rows.insert(0, line)
        budget -= len(line) + 1
    return fit_caption([head, *rows, total])
