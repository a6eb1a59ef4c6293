"""The solver's objective: of the layouts that take the cards, the one that changes the fewest old melds, then
moves the fewest old cards (engine/melds/least_change.py).

Small positions are checked against a brute force that knows nothing of the search (every set of old melds
opened, the smallest first, each asked of ``brute_feasible``); large ones against a layout known to exist: a
random table cut into an old table and a hand (whole melds taken away, and one end card off ``e`` melds), whose
own full table changes exactly ``e`` old melds.
"""

from __future__ import annotations

import itertools
import random

import pytest

from engine import cards
from engine.melds import Variant, check_layout, parse_table, registered_variants, solve
from engine.melds.least_change import changed_melds, cost, moved_cards
from engine.melds.positions import random_table
from engine.melds.tablecards import JOKER_AS
from tests.engine.test_melds_exact import brute_feasible, random_small_position

VARIANTS = registered_variants()  # every rummy's meld rules, by name
MACHIAVELLI = VARIANTS["machiavelli"]


def _singles(variant: Variant, table: list[list[int]]) -> frozenset[int]:
    return frozenset(i for i, m in enumerate(table) if variant.table_singles and len(m) == 1)


def brute_fewest_changed(variant: Variant, table: list[list[int]], added: list[int]) -> int | None:
    """The fewest old melds a legal layout changes: the smallest set of old melds that, opened with the added
    cards (the others left whole), can be laid out; None when no set can."""
    singles = _singles(variant, table)
    melds = [i for i in range(len(table)) if i not in singles]
    for size in range(len(melds) + 1):
        for opened in itertools.combinations(melds, size):
            part = [table[i] for i in sorted(set(opened) | singles)]
            if brute_feasible(variant, part, added):
                return size
    return None


def test_cost_counts_changed_melds_then_moved_cards() -> None:
    old = parse_table("5S-6S-7S | 9H-9D-9C | 2D-3D-4D-5D-6D")
    appended = parse_table("5S-6S-7S-8S | 9H-9D-9C | 2D-3D-4D-5D-6D")
    split = parse_table("5S-6S-7S | 9H-9D-9C | 2D-3D-4D | 5D-6D-7D")
    assert changed_melds(MACHIAVELLI, old, old) == []
    assert cost(MACHIAVELLI, old, appended) == (1, 0)  # 8♠ joins; no old card moves
    assert changed_melds(MACHIAVELLI, old, split) == [2]
    assert moved_cards(MACHIAVELLI, old, split) == 2  # 5♦ 6♦ leave their run for the new one


def test_cards_that_need_one_meld_opened_change_only_that_meld() -> None:
    old = parse_table("5S-6S-7S | 8S-9S-10S | 9H-9D-9C | 2D-3D-4D | JH-QH-KH")
    sol = solve(MACHIAVELLI, old, cards.parse_cards("8H 10H 9S"))
    assert sol is not None
    # 9♠ takes 9♥'s place in the set, 9♥ joins 8♥ 10♥ (or they all go before J♥ Q♥ K♥): one old meld changes
    assert cost(MACHIAVELLI, old, sol.table)[0] == 1, sol.table


def test_fewest_changed_melds_on_small_positions_agrees_with_brute_force() -> None:
    checked = 0
    for i in range(240):
        name = list(VARIANTS)[i % len(VARIANTS)]
        variant = VARIANTS[name]
        table, added, _ = random_small_position(variant, random.Random(f"least/{i}"))
        got = solve(variant, table, added)
        want = brute_fewest_changed(variant, table, added)
        assert (got is None) == (want is None), (name, table, added)
        if got is None:
            continue
        assert check_layout(variant, table, added, got.table) is None
        assert cost(variant, table, got.table, _singles(variant, table))[0] == want, (name, table, added, got.table)
        checked += 1
    assert checked > 80


def _cut_position(variant: Variant, rng: random.Random, extended: int) -> tuple[list[list[int]], list[int],
                                                                                 list[list[int]]]:
    """(old table, hand, a full table laying the hand) where the full table changes ``extended`` old melds:
    some whole melds of a random table go to the hand, and one end card of ``extended`` others."""
    full, _ = random_table(variant, rng, rng.randint(40, 90))
    old: list[list[int]] = []
    hand: list[int] = []
    layout: list[list[int]] = []
    order = list(range(len(full)))
    rng.shuffle(order)
    cuts = 0
    for i in order:
        meld = full[i]
        if len(meld) > 1 and rng.random() < 0.25:
            hand += [cards.JOKER if x >= JOKER_AS else x for x in meld]
            layout.append(meld)
        elif cuts < extended and len(meld) > variant.min_meld and all(x < JOKER_AS for x in meld):
            cuts += 1
            hand.append(meld[-1])
            old.append(meld[:-1])
            layout.append(meld)
        else:
            old.append(meld)
            layout.append(meld)
    if not hand:
        hand = [cards.JOKER if x >= JOKER_AS else x for x in old[0]] if len(old[0]) > 1 else []
        layout, old = layout, old[1:]
    return old, hand, layout


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_never_more_changes_than_a_layout_that_keeps_the_untouched_melds_whole(name: str) -> None:
    variant = VARIANTS[name]
    rng = random.Random(f"cut/{name}")
    seen = 0
    for k in range(24):
        extended = k % 4
        old, hand, layout = _cut_position(variant, rng, extended)
        if not hand or check_layout(variant, old, hand, layout) is not None:
            continue  # a joker rule refuses the reference layout (Tahiti's frozen melds): nothing to compare
        reference = cost(variant, old, layout, _singles(variant, old))[0]
        sol = solve(variant, old, hand)
        assert sol is not None
        assert check_layout(variant, old, hand, sol.table) is None
        got = cost(variant, old, sol.table, _singles(variant, old))[0]
        assert got <= reference, (name, old, hand, sol.table)
        if reference == 0:
            assert got == 0  # the lay-down fits in new melds: every old meld stays as it was
        seen += 1
    assert seen >= 12
