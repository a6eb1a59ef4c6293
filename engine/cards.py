"""Cards as small integers, the decks every game needs, and the text notation.

A card is an ``int``: ``suit * 16 + rank`` for ordinary cards (rank 2..14, ace = 14),
and codes from 64 up for jokers and the Karusele specials. Integers keep hands cheap
to copy (AI search clones states a lot) and make per-suit masks trivial.
Multi-pack decks simply repeat codes: two ``AS`` in a 76-card pack are the same int.

Notation (like UCI in chess, short enough for Telegram callback data):
``AS``, ``10H``, ``QD``, ``7C``; ``JK`` a joker; ``J11``/``J15``/``J20`` the Karusele
numbered jokers; ``BR`` the broom.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"  # spades, hearts, diamonds, clubs
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset({1, 2})  # hearts, diamonds
RANK_NAMES = {
    2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9",
    10: "10", 11: "J", 12: "Q", 13: "K", 14: "A",
}
RANK_VALUES = {name: value for value, name in RANK_NAMES.items()}
RANK_VALUES["T"] = 10  # accepted on input, never produced

JACK, QUEEN, KING, ACE = 11, 12, 13, 14

JOKER = 64
JOKER11 = 65
JOKER15 = 66
JOKER20 = 67
BROOM = 68
SPECIAL_NAMES = {JOKER: "JK", JOKER11: "J11", JOKER15: "J15", JOKER20: "J20", BROOM: "BR"}
SPECIAL_VALUES = {name: code for code, name in SPECIAL_NAMES.items()}


class CardError(ValueError):
    """A card or deck name that does not parse."""


def make(rank: int, suit: int) -> int:
    """The card of ``rank`` (2..14) in ``suit`` (0..3, index into SUITS)."""
    return suit * 16 + rank


def suit_of(card: int) -> int:
    """Suit index 0..3, or -1 for jokers and specials (they have no suit)."""
    return card >> 4 if card < 64 else -1


def rank_of(card: int) -> int:
    """Rank 2..14, or 0 for jokers and specials."""
    return card & 15 if card < 64 else 0


def is_joker(card: int) -> bool:
    """True for every card without a suit: JK, the numbered jokers and the broom."""
    return card >= 64


def is_red(card: int) -> bool:
    return card < 64 and (card >> 4) in RED_SUITS


def _build_text() -> tuple[dict[int, str], dict[str, int]]:
    to_text: dict[int, str] = dict(SPECIAL_NAMES)
    for s, letter in enumerate(SUITS):
        for r, name in RANK_NAMES.items():
            to_text[make(r, s)] = name + letter
    from_text = {text: code for code, text in to_text.items()}
    return to_text, from_text


CARD_TEXT, _TEXT_CARD = _build_text()


def card_str(card: int) -> str:
    """``AS``, ``10H``, ``JK`` ... (raises CardError for a code that is not a card)."""
    try:
        return CARD_TEXT[card]
    except KeyError:
        raise CardError(f"not a card code: {card!r}") from None


def parse_card(text: str) -> int:
    """Inverse of :func:`card_str`; case-insensitive, ``T`` accepted for 10."""
    key = text.strip().upper()
    code = _TEXT_CARD.get(key)
    if code is None and len(key) >= 2 and key[:-1] == "T":
        code = _TEXT_CARD.get("10" + key[-1])
    if code is None:
        raise CardError(f"not a card: {text!r}")
    return code


def cards_str(cards: Iterable[int]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def parse_cards(texts: Iterable[str] | str) -> list[int]:
    """Parse a list of card texts, or one string of them separated by spaces/commas."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    return [parse_card(t) for t in texts]


def pretty(card: int) -> str:
    """Human form with a suit symbol: ``A♠``, ``10♥``, ``🃏``, ``J15``, ``🧹``."""
    if card == JOKER:
        return "🃏"
    if card == BROOM:
        return "🧹"
    if card >= 64:
        return SPECIAL_NAMES[card]
    return RANK_NAMES[card & 15] + SUIT_SYMBOLS[SUITS[card >> 4]]


def pretty_text(text: str) -> str:
    """Replace card codes in an action text with their pretty forms (other words stay)."""
    out = []
    for word in text.split():
        code = _TEXT_CARD.get(word)
        out.append(pretty(code) if code is not None else word)
    return " ".join(out)


def sort_key(card: int) -> tuple[int, int]:
    """Display order: by suit (S H D C), high ranks first, jokers last."""
    if card >= 64:
        return (9, card)
    return (card >> 4, -(card & 15))


def _pack(ranks: Iterable[int]) -> list[int]:
    ranks = list(ranks)
    return [make(r, s) for s in range(4) for r in ranks]


_RANKS_52 = range(2, 15)
_RANKS_36 = range(6, 15)
_RANKS_32 = range(7, 15)
_RANKS_40 = [2, 3, 4, 5, 6, 7, JACK, QUEEN, KING, ACE]  # Calabrasella: no 10, 9, 8

DECKS: dict[int, list[int]] = {
    32: _pack(_RANKS_32),
    36: _pack(_RANKS_36),
    40: _pack(_RANKS_40),
    52: _pack(_RANKS_52),
    53: _pack(_RANKS_52) + [JOKER],
    56: _pack(_RANKS_52) + [JOKER11, JOKER15, JOKER20, BROOM],
    76: (_pack(_RANKS_36) + [JOKER, JOKER]) * 2,
    104: _pack(_RANKS_52) * 2,
    106: (_pack(_RANKS_52) + [JOKER]) * 2,
    108: _pack(_RANKS_52) * 2 + [JOKER] * 4,
}


def deck(size: int) -> list[int]:
    """A fresh, unshuffled deck of the given size (a new list each call)."""
    try:
        return list(DECKS[size])
    except KeyError:
        raise CardError(f"no {size}-card deck; known: {sorted(DECKS)}") from None
