"""Table cards: the ints that lie in melds, and their text.

A card in a hand is an ``engine.cards`` int (``JOKER`` == 64 for a joker). On the table a
joker always stands for one card, so it is written as one int ``JOKER_AS + card``
(``placed_joker``); its text is ``JK=7H``. Natural cards keep their codes. Identical cards
of a double pack share a code, so a meld or a table is a multiset of these ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine import cards

JOKER_AS = 256
ACE = cards.ACE


class MeldTextError(ValueError):
    """A table card, meld or table text that does not parse; the message names the bad part."""


def is_natural(card: int) -> bool:
    """A real suited card (not a joker of any kind)."""
    return 0 <= card < 64 and cards.CARD_TEXT.get(card) is not None and card != cards.JOKER


def placed_joker(card: int) -> int:
    """The table int of a joker standing for ``card`` (a natural card)."""
    if not is_natural(card):
        raise MeldTextError(f"a joker cannot stand for {card!r}")
    return JOKER_AS + card


def is_placed_joker(x: int) -> bool:
    return x >= JOKER_AS and is_natural(x - JOKER_AS)


def stands_for(x: int) -> int:
    """The natural card a table int means: itself, or what a placed joker stands for."""
    return x - JOKER_AS if x >= JOKER_AS else x


def physical(x: int) -> int:
    """The card a player handles: a placed joker is a plain ``JOKER``."""
    return cards.JOKER if x >= JOKER_AS else x


def table_card_str(x: int) -> str:
    """``7H``, ``JK=7H`` (a placed joker) or ``JK`` (a joker not yet given a meaning)."""
    if x >= JOKER_AS:
        return "JK=" + cards.card_str(x - JOKER_AS)
    return cards.card_str(x)


def parse_table_card(text: str) -> int:
    """Inverse of :func:`table_card_str`; ``JK=7H`` gives a placed joker, ``JK`` a plain joker."""
    key = text.strip().upper()
    if key.startswith("JK="):
        try:
            return placed_joker(cards.parse_card(key[3:]))
        except (cards.CardError, MeldTextError):
            raise MeldTextError(f"not a joker meaning: {text!r}") from None
    try:
        code = cards.parse_card(key)
    except cards.CardError:
        raise MeldTextError(f"not a card: {text!r}") from None
    if code > cards.JOKER:
        raise MeldTextError(f"not a rummy card: {text!r}")
    return code


def meld_str(meld: Iterable[int]) -> str:
    """``7H-8H-JK=9H``: a meld as one word (fits an action text)."""
    return "-".join(table_card_str(x) for x in meld)


def parse_meld(text: str) -> list[int]:
    """``7H-8H-JK=9H`` (or the same separated by spaces or commas) -> table ints."""
    parts = text.replace(",", " ").replace("-", " ").split()
    if not parts:
        raise MeldTextError("an empty meld")
    return [parse_table_card(p) for p in parts]


def table_str(table: Iterable[Sequence[int]]) -> str:
    """``7H-8H-9H | 5S-5H-5D``: a whole table on one line."""
    return " | ".join(meld_str(m) for m in table)


def parse_table(text: str) -> list[list[int]]:
    """Inverse of :func:`table_str`; an empty text is an empty table."""
    return [parse_meld(part) for part in text.split("|") if part.strip()]


def parse_hand(text: str | Iterable[str]) -> list[int]:
    """Hand cards (``JK`` a plain joker), separated by spaces or commas."""
    words = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    out = []
    for word in words:
        code = parse_table_card(word)
        if code >= JOKER_AS:
            raise MeldTextError(f"a hand card has no meaning yet: {word!r}")
        out.append(code)
    return out
