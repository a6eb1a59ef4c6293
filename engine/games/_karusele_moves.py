"""Karusele move generation: card values, table items, captures, builds and their text form.

Kept apart from ``karusele.py`` (the state machine) because this is the combinatorial part:
which sets of table cards one hand card may take, and which builds it may make.

Table items are dicts ``{"cards": [int, ...], "owner": seat | None, "since": move | None}``:
one card (owner None) or a build (two or more number cards, owner = the last seat that
built or raised it). A build counts as one card of its total and is only ever taken whole,
as a group of its own, by a card equal to its total.

Why captures are "saturated" (see the module docstring of ``karusele.py`` for the rules):
the number of ways to pick disjoint sum groups grows exponentially with the table (a table
of 12 number cards already allows over a thousand for one hand card), which no player can
choose from. A capture therefore takes every table item equal to the card's value, plus a
set of sum groups after which no further group of the leftover cards adds up to the value.
Different ways of grouping the same cards are one move (written in one canonical grouping).
The search has a node budget so that a pathological table (dozens of trailed cards) cannot
stall the bot; within the budget every saturated capture is listed, and the tests check
completeness against a brute force on small tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product
from typing import Any

from engine.cards import BROOM, JOKER11, JOKER15, JOKER20, card_str, rank_of, suit_of

Item = dict[str, Any]

SPECIAL_VALUE = {JOKER11: 11, JOKER15: 15, JOKER20: 20}
SEARCH_BUDGET = 2500  # search steps per hand card (captures) or per build base (extra groups)
MAX_CAPTURES = 24  # per hand card; only reached on tables no sensible play produces
MAX_EXTRA = 6  # extra-build groupings per build base


def value(card: int) -> int | None:
    """Numeric value: A = 1, 2..10 face value, jokers 11/15/20; None for J Q K and the broom."""
    if card >= 64:
        return SPECIAL_VALUE.get(card)
    rank = rank_of(card)
    if rank == 14:
        return 1
    return rank if rank <= 10 else None


def is_court(card: int) -> bool:
    return card < 64 and 11 <= rank_of(card) <= 13


def item_value(item: Item) -> int | None:
    """A build's total, a number card's value, None for a court card."""
    cards = item["cards"]
    if len(cards) == 1:
        return value(cards[0])
    return sum(value(c) or 0 for c in cards)


def is_build(item: Item) -> bool:
    return len(item["cards"]) > 1


def card_key(card: int) -> tuple[int, int]:
    """Order inside a group: by value (A low), then suit; courts by rank, specials last."""
    v = value(card)
    if card >= 64:
        return (100, card)
    return (v if v is not None else 20 + rank_of(card), suit_of(card))


# --- saturated packings ---------------------------------------------------------------------

class _Budget:
    """Counts search steps; ``spent`` turns True once the allowance is used up."""

    def __init__(self, allowance: int) -> None:
        self.left = allowance
        self.spent = False

    def step(self) -> bool:
        self.left -= 1
        if self.left < 0:
            self.spent = True
        return self.spent


def _sub_multisets(
    counts: list[int], values: list[int], start: int, remaining: int, budget: _Budget
) -> Iterator[list[int]]:
    """Count vectors (indices >= start) taken from ``counts`` whose values sum to ``remaining``."""
    if remaining == 0:
        yield [0] * len(counts)
        return
    for j in range(start, len(values)):
        x = values[j]
        if counts[j] == 0 or x > remaining or budget.step():
            continue
        for m in range(min(counts[j], remaining // x), 0, -1):
            counts[j] -= m
            for rest in _sub_multisets(counts, values, j + 1, remaining - m * x, budget):
                rest[j] += m
                yield rest
            counts[j] += m


def _partition(ks: tuple[int, ...], values: list[int], target: int, memo: dict, budget: _Budget) -> list | None:
    """Groups (lists of value indices) splitting the multiset ``ks`` into sums of ``target``, or None.
    The group holding the largest remaining value is tried in every way, so None means impossible."""
    if ks in memo:
        return memo[ks]
    i = next((j for j, k in enumerate(ks) if k), None)
    if i is None:
        return []
    rest = list(ks)
    rest[i] -= 1
    answer = None
    for comp in _sub_multisets(list(rest), values, i, target - values[i], budget):
        left = tuple(r - c for r, c in zip(rest, comp, strict=True))
        sub = _partition(left, values, target, memo, budget)
        if sub is not None:
            group = [i] + [j for j, c in enumerate(comp) for _ in range(c)]
            answer = [group, *sub]
            break
        if budget.spent:
            break
    memo[ks] = answer
    return answer


def packings(cards: list[int], target: int, limit: int,
             allowance: int = SEARCH_BUDGET) -> tuple[list[tuple[list[int], list[list[int]]]], bool]:
    """Saturated packings of loose number ``cards`` (each worth less than ``target``).

    A packing is a set of the cards split into groups summing to ``target``, after which no
    subset of the cards left over sums to ``target``. Returns up to ``limit`` of them, largest
    first, as (cards, groups), and whether the search was cut short (by ``limit`` or the budget).
    The empty packing is included when it is saturated. The search runs on value counts
    (cards of one value are interchangeable for legality) and expands to cards at the end.
    """
    by_value: dict[int, list[int]] = {}
    for c in sorted(cards, key=card_key):
        by_value.setdefault(value(c) or 0, []).append(c)
    values = sorted(by_value, reverse=True)
    counts = [len(by_value[x]) for x in values]
    mask = (1 << (target + 1)) - 1
    budget = _Budget(allowance)
    memo: dict = {}
    found: list[tuple[tuple[int, ...], list]] = []

    def rec(i: int, left_sums: int, ks: tuple[int, ...]) -> None:
        if budget.step():
            return
        if i == len(values):
            if sum(k * x for k, x in zip(ks, values, strict=True)) % target == 0:
                groups = _partition(ks, values, target, memo, budget)
                if groups is not None:
                    found.append((ks, groups))
            return
        x = values[i]
        sums = left_sums
        for k in range(counts[i], -1, -1):  # take k of this value, leave counts[i] - k
            if k < counts[i]:
                sums = (sums | sums << x) & mask
                if sums >> target & 1:
                    break  # the cards left would hold a whole group: leaving more only adds to it
            rec(i + 1, sums, (*ks, k))

    rec(0, 1, ())
    found.sort(key=lambda f: (-sum(f[0]), [-k for k in f[0]]))
    out: list[tuple[list[int], list[list[int]]]] = []
    for ks, groups in found:
        choices = [combinations(by_value[x], k) for x, k in zip(values, ks, strict=True)]
        for pick in product(*[list(c) for c in choices]):
            pools = [list(p) for p in pick]
            cards_groups = [[pools[j].pop(0) for j in group] for group in groups]
            out.append(([c for p in pick for c in p], cards_groups))
            if len(out) >= limit:
                return out, True
    return out, budget.spent


# --- moves ------------------------------------------------------------------------------------

def group_text(cards: list[int], build: bool) -> str:
    """``AH+5C`` for loose cards (sorted), ``(AH+5C)`` for a build (in stacking order)."""
    ordered = cards if build else sorted(cards, key=card_key)
    text = "+".join(card_str(c) for c in ordered)
    return f"({text})" if build else text


def _group_sort_key(group: tuple[list[int], bool]) -> tuple[int, int, list[tuple[int, int]]]:
    cards, build = group
    keys = [card_key(c) for c in cards]
    return (len(cards) if not build else 1, 1 if build else 0, keys if build else sorted(keys))


def _take_text(card: int, groups: list[tuple[list[int], bool]]) -> str:
    groups = sorted(groups, key=_group_sort_key)
    return " ".join(["take", card_str(card), *(group_text(cards, build) for cards, build in groups)])


def court_captures(card: int, table: list[Item]) -> list[str]:
    """One court card of the same rank, or all three when three lie on the table."""
    same = sorted((it["cards"][0] for it in table if not is_build(it) and is_court(it["cards"][0])
                   and rank_of(it["cards"][0]) == rank_of(card)), key=card_key)
    moves = [f"take {card_str(card)} {card_str(c)}" for c in same]
    if len(same) == 3:
        moves.insert(0, _take_text(card, [([c], False) for c in same]))
    return moves


def number_captures(card: int, table: list[Item]) -> list[str]:
    """Saturated captures of a number card (largest first), see the module docstring."""
    v = value(card)
    assert v is not None
    forced: list[tuple[list[int], bool]] = []
    loose: list[int] = []
    for it in table:
        iv = item_value(it)
        if iv == v:
            forced.append((list(it["cards"]), is_build(it)))
        elif iv is not None and iv < v and not is_build(it):
            loose.append(it["cards"][0])
    moves = []
    for taken, groups in packings(loose, v, MAX_CAPTURES)[0]:
        if taken or forced:
            moves.append(_take_text(card, forced + [(g, False) for g in groups]))
    return moves


def builds(card: int, hand: list[int], table: list[Item]) -> list[str]:
    """Builds with ``card``: onto one number card or build, total equal to another hand card's value,
    optionally grouping further loose cards into more builds of that total (all that fit)."""
    v = value(card)
    if v is None:
        return []
    totals = {value(c) for c in hand if c != card} - {None}
    moves: list[str] = []
    for idx, base in enumerate(table):
        bv = item_value(base)
        if bv is None or v + bv not in totals:
            continue
        total = v + bv
        head = f"build {card_str(card)} {group_text(base['cards'], is_build(base))}"
        moves.append(head)
        loose = [it["cards"][0] for i, it in enumerate(table)
                 if i != idx and not is_build(it) and (item_value(it) or 99) < total]
        for taken, groups in packings(loose, total, MAX_EXTRA)[0]:
            if taken:
                parts = sorted(groups, key=lambda cs: [card_key(c) for c in cs])
                moves.append(" ".join([head, *(group_text(cs, False) for cs in parts)]))
    return moves


def legal_moves(hand: list[int], table: list[Item]) -> list[str]:
    """Every legal move of a hand on a table, hand card by hand card: captures, builds, trail."""
    moves: list[str] = []
    for card in hand:
        if card == BROOM:
            moves.append("sweep BR")
            continue
        if is_court(card):
            moves.extend(court_captures(card, table))
        else:
            moves.extend(number_captures(card, table))
            moves.extend(builds(card, hand, table))
        moves.append(f"trail {card_str(card)}")
    return moves


# --- parsing ----------------------------------------------------------------------------------

def parse_group(text: str) -> tuple[list[str], bool]:
    """``(AH+5C)`` -> (["AH", "5C"], True); ``AH+5C`` -> (["AH", "5C"], False)."""
    build = text.startswith("(") and text.endswith(")")
    inner = text[1:-1] if build else text
    return inner.split("+"), build


def parse(action: str) -> tuple[str, str, list[tuple[list[str], bool]]]:
    """(verb, hand card text, groups) of an action text; no legality check."""
    words = action.split()
    if len(words) < 2:
        raise ValueError(f"not a Karusele action: {action!r}")
    return words[0], words[1], [parse_group(w) for w in words[2:]]
