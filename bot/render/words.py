"""The few words the pictures and captions use, by key: gettext msgids like every other word."""

from __future__ import annotations

from functools import cache

from bot.ui.i18n import nt, t
from bot.ui.words import title

PICTURE_WORDS: dict[str, str] = {  # key -> English msgid (Russian in bot/locales)
    "game": "Game",
    "quarter": "Quarter",
    "q_short": "Q",
    "deal": "Deal",
    "cards": "cards",
    "trump": "Trump",
    "no_trump": "no trump",
    "bid": "bid",
    "took": "took",
    "score": "score",
    "dealer": "dealer",
    "leads": "leads",
    "to_play": "to play",
    "to_bid": "to bid",
    "to_act": "to act",
    "bidding": "Bidding",
    "playing": "Playing",
    "game_over": "Game over",
    "trick": "Trick",
    "last_trick": "Last trick",
    "won_by": "won by",
    "won_it": "won it",
    "best": "best",
    "over": "over",
    "under": "under",
    "high": "high",
    "low": "low",
    "pair": "Carnival pair",
    "pair_short": "pair",
    "not_bid": "may not bid",
    "total": "TOTAL",
    "premium": "prem.",
    "penalty": "pen.",
    "standings": "Final standings",
    "place": "Place",
    "winner": "winner",
    "points": "points",
    "score_grid": "Score sheet",
    "after_deal": "after deal",
    "hand": "in hand",
    "waiting": "waiting for the first card",
    "annulled": "annulled",
}


@cache
def words(lang: str) -> dict[str, str]:
    """The picture words in ``lang`` (gettext; English for unknown languages)."""
    return {key: t(lang, msgid) for key, msgid in PICTURE_WORDS.items()}


def game_name(game: str | None, lang: str) -> str:
    """The game's one name (its declaration's title, as everywhere in the bot)."""
    if not game:
        return words(lang)["game"]
    return title(game, lang)


def num(value: int) -> str:
    """A signed number with a real minus sign, as printed score sheets use."""
    return f"−{-value}" if value < 0 else str(value)


def cards_count(n: int, lang: str) -> str:
    """"1 card", "3 карты", "5 карт": the plural from the gettext catalogs (ngettext)."""
    return nt(lang, "{n} card", "{n} cards", n)
