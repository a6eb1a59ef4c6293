"""The few words the pictures and captions use, per language (the bot's catalogs come later)."""

from __future__ import annotations

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "carnival": "Carnival",
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
    },
    "ru": {
        "carnival": "Карнавал",
        "game": "Игра",
        "quarter": "Квартал",
        "q_short": "КВ",
        "deal": "Сдача",
        "cards": "карт",
        "trump": "Козырь",
        "no_trump": "без козыря",
        "bid": "заказ",
        "took": "взял",
        "score": "счёт",
        "dealer": "сдаёт",
        "leads": "ходит",
        "to_play": "ходит",
        "to_bid": "заказывает",
        "to_act": "ходит",
        "bidding": "Заказ взяток",
        "playing": "Розыгрыш",
        "game_over": "Игра окончена",
        "trick": "Взятка",
        "last_trick": "Последняя взятка",
        "won_by": "взял",
        "won_it": "взял",
        "best": "старшая",
        "over": "сверху",
        "under": "снизу",
        "high": "высшая",
        "low": "низшая",
        "pair": "Карнавал (пара)",
        "pair_short": "пара",
        "not_bid": "нельзя заказать",
        "total": "ВСЕГО",
        "premium": "прем.",
        "penalty": "штр.",
        "standings": "Итоги",
        "place": "Место",
        "winner": "победитель",
        "points": "очков",
        "score_grid": "Сетка",
        "after_deal": "после сдачи",
        "hand": "на руках",
        "waiting": "ждём первую карту",
        "annulled": "аннулирована",
    },
}

def words(lang: str) -> dict[str, str]:
    """The word table for ``lang`` (English for unknown languages)."""
    return WORDS.get(lang, WORDS["en"])


def game_name(game: str | None, lang: str) -> str:
    """The game's one name (its declaration's title, as everywhere in the bot)."""
    if not game:
        return words(lang)["game"]
    from bot.ui.words import title

    return title(game, lang)


def num(value: int) -> str:
    """A signed number with a real minus sign, as printed score sheets use."""
    return f"−{-value}" if value < 0 else str(value)


def cards_count(n: int, lang: str) -> str:
    """"1 card", "3 карты", "5 карт": the plural from the gettext catalogs (ngettext)."""
    from bot.ui.i18n import nt

    return nt(lang, "{n} card", "{n} cards", n)
