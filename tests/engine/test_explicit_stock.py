"""Explicit deals whose stock is the rest of the pack (the rummies, Karusele): one check serves them all
(``engine.core.explicit_stock``), so a card given twice, a stock that is not the rest, and a missing
stock (the rest, shuffled by the deal's seed) read and behave alike in every such game."""

from __future__ import annotations

from typing import Any

import pytest

from engine.cards import card_str, deck
from engine.core import GameError, get_game

RUMMY_HAND = 13  # Machiavelli


def _rummy_deal(**extra: Any) -> dict[str, Any]:
    pack = deck(104)
    hands = [[card_str(c) for c in pack[i * RUMMY_HAND:(i + 1) * RUMMY_HAND]] for i in range(2)]
    return {"hands": hands, **extra}


def _karusele_deal(**extra: Any) -> dict[str, Any]:
    pack = deck(56)
    hands = [[card_str(c) for c in pack[i * 4:(i + 1) * 4]] for i in range(2)]
    table = [card_str(c) for c in pack[8:16]]
    return {"hands": hands, "table": table, **extra}


@pytest.mark.parametrize(("game", "deal"), [("machiavelli", _rummy_deal), ("karusele", _karusele_deal)])
def test_a_card_given_twice_is_refused(game: str, deal: Any) -> None:
    spec = deal()
    spec["hands"][1][0] = spec["hands"][0][0]
    spec["hands"][1][1] = spec["hands"][0][0]  # a pack of two copies: the third is one too many
    with pytest.raises(GameError, match=rf"^{game} deal 0: card {spec['hands'][0][0]} twice or not in the pack$"):
        get_game(game).new(2, seed=1, deals=[spec])


@pytest.mark.parametrize(("game", "deal", "words"), [
    ("machiavelli", _rummy_deal, "hands, singles and stock must make the pack"),
    ("karusele", _karusele_deal, "hands, table and stock must make the 56-card pack"),
])
def test_a_stock_that_is_not_the_rest_is_refused(game: str, deal: Any, words: str) -> None:
    with pytest.raises(GameError, match=rf"^{game} deal 0: {words}$"):
        get_game(game).new(2, seed=1, deals=[deal(stock=["2S"])])


@pytest.mark.parametrize(("game", "deal"), [("machiavelli", _rummy_deal), ("karusele", _karusele_deal)])
def test_no_stock_is_the_rest_shuffled_by_the_seed(game: str, deal: Any) -> None:
    first = get_game(game).new(2, seed=5, deals=[deal()])
    again = get_game(game).new(2, seed=5, deals=[deal()])
    other = get_game(game).new(2, seed=6, deals=[deal()])
    stock: list[int] = first.stock  # type: ignore[attr-defined]
    assert stock == again.stock  # type: ignore[attr-defined]
    assert stock != other.stock  # type: ignore[attr-defined]
    given = [c for h in first.hands for c in h] + first.table  # type: ignore[attr-defined]
    assert len(stock) + len(given) == len(deck(104 if game == "machiavelli" else 56))
