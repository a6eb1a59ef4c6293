"""Card codes, every deck the games use, and the text notation."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.cards import (
    BROOM,
    JOKER,
    JOKER11,
    JOKER15,
    JOKER20,
    CardError,
    card_str,
    cards_str,
    deck,
    is_joker,
    is_red,
    make,
    parse_card,
    parse_cards,
    pretty,
    pretty_text,
    rank_of,
    suit_of,
)

ALL_RANKS = list(range(2, 15))


def _plain(ranks: list[int]) -> Counter[int]:
    return Counter(make(r, s) for s in range(4) for r in ranks)


def _times(counter: Counter[int], k: int) -> Counter[int]:
    return Counter({c: v * k for c, v in counter.items()})


EXPECTED: dict[int, Counter[int]] = {
    32: _plain(list(range(7, 15))),
    36: _plain(list(range(6, 15))),
    40: _plain([2, 3, 4, 5, 6, 7, 11, 12, 13, 14]),
    52: _plain(ALL_RANKS),
    53: _plain(ALL_RANKS) + Counter({JOKER: 1}),
    56: _plain(ALL_RANKS) + Counter({JOKER11: 1, JOKER15: 1, JOKER20: 1, BROOM: 1}),
    76: _times(_plain(list(range(6, 15))), 2) + Counter({JOKER: 4}),
    104: _times(_plain(ALL_RANKS), 2),
    106: _times(_plain(ALL_RANKS), 2) + Counter({JOKER: 2}),
    108: _times(_plain(ALL_RANKS), 2) + Counter({JOKER: 4}),
}


@pytest.mark.parametrize("size", sorted(EXPECTED))
def test_deck_contents_and_duplicates(size: int) -> None:
    cards = deck(size)
    assert len(cards) == size
    assert Counter(cards) == EXPECTED[size]


@pytest.mark.parametrize("size", sorted(EXPECTED))
def test_notation_round_trips(size: int) -> None:
    cards = deck(size)
    texts = cards_str(cards)
    assert parse_cards(texts) == cards
    assert parse_cards(" ".join(texts)) == cards
    assert parse_cards(", ".join(t.lower() for t in texts)) == cards
    for card in set(cards):
        assert parse_card(card_str(card)) == card
    assert Counter(texts) == Counter({card_str(c): v for c, v in EXPECTED[size].items()})


def test_deck_is_a_fresh_list() -> None:
    first = deck(36)
    first.clear()
    assert len(deck(36)) == 36


def test_card_texts() -> None:
    assert card_str(make(14, 0)) == "AS"
    assert card_str(make(10, 1)) == "10H"
    assert card_str(make(12, 2)) == "QD"
    assert card_str(make(7, 3)) == "7C"
    assert [card_str(c) for c in (JOKER, JOKER11, JOKER15, JOKER20, BROOM)] == ["JK", "J11", "J15", "J20", "BR"]
    assert parse_card("TS") == parse_card("10s") == make(10, 0)
    assert parse_card(" jk ") == JOKER


@pytest.mark.parametrize("text", ["", "1S", "11H", "AX", "ZZ", "JK2", "10", "S"])
def test_bad_texts(text: str) -> None:
    with pytest.raises(CardError):
        parse_card(text)


def test_bad_codes_and_decks() -> None:
    with pytest.raises(CardError):
        card_str(15)
    with pytest.raises(CardError):
        deck(50)


def test_card_properties() -> None:
    qh = parse_card("QH")
    assert suit_of(qh) == 1 and rank_of(qh) == 12 and is_red(qh) and not is_joker(qh)
    assert suit_of(JOKER) == -1 and rank_of(JOKER) == 0 and is_joker(JOKER) and not is_red(JOKER)
    assert not is_red(parse_card("AS")) and is_red(parse_card("2D"))
    assert pretty(parse_card("10H")) == "10♥" and pretty(JOKER) == "🃏" and pretty(BROOM) == "🧹"
    assert pretty_text("play AS over") == "play A♠ over"
