"""A toggle hand's joker question: jokers whose meaning the player should choose: a joker laid from the hand that
could stand for more than one card in its meld (``5♥ 6♥ 🃏`` is 4♥ or 7♥; ``7♠ 7♥ 🃏`` is 7♦ or 7♣). The solver
picks one; the player may want the other (it decides what a later real card releases)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine import melds
from engine.cards import JOKER, deck

NATURALS = sorted(set(deck(52)))


def meanings(variant: melds.Variant, meld: Sequence[int], pos: int) -> list[int]:
    """Every card the joker at ``pos`` could stand for with the rest of its meld unchanged."""
    out = []
    for c in NATURALS:
        trial = [*meld[:pos], melds.placed_joker(c), *meld[pos + 1:]]
        if melds.is_valid(variant, trial):
            out.append(c)
    return out


def ambiguous(variant: melds.Variant, old_table: Sequence[Sequence[int]], hand_cards: Sequence[int],
              new_table: Sequence[Sequence[int]]) -> list[list[int]]:
    """``[meld, position, meaning...]`` for each joker of a changed meld with 2+ meanings, when the
    lay-down brings a joker from the hand (the table's own jokers keep theirs)."""
    if JOKER not in hand_cards:
        return []
    old = Counter(tuple(m) for m in old_table)
    asks = []
    for i, meld in enumerate(new_table):
        if old[tuple(meld)] > 0:
            old[tuple(meld)] -= 1
            continue
        for j, x in enumerate(meld):
            if melds.is_placed_joker(x):
                options = [c for c in meanings(variant, meld, j)  # the old jokers keep their meaning
                           if melds.check_layout(variant, old_table, hand_cards,
                                                 settle([list(m) for m in new_table], i, j, c)) is None]
                if len(options) > 1:
                    asks.append([i, j, *options])
    return asks


def settle(table: list[list[int]], meld: int, pos: int, card: int) -> list[list[int]]:
    """The table with that joker standing for ``card`` (display order kept by the engine)."""
    new = [list(m) for m in table]
    new[meld][pos] = melds.placed_joker(card)
    return new
