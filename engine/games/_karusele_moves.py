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
from typing import Any

from engine.cards import BROOM, JOKER11, JOKER15, JOKER20, card_str, rank_of, suit_of

Item = dict[str, Any]

SPECIAL_VALUE = {JOKER11: 11, JOKER15: 15, JOKER20: 20}
SEARCH_BUDGET = 4000  # search nodes per hand card (captures) or per build base (extra groups)
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

def _completions(
    vals: list[int], start: int, used: int, remaining: int, counter: list[int], budget: int
) -> Iterator[int]:
    """Masks of unused indices >= start whose values sum to ``remaining`` (> 0)."""
    for j in range(start, len(vals)):
        if counter[0] > budget:
            return
        if used >> j & 1:
            continue
        x = vals[j]
        if x > remaining:
            continue
        counter[0] += 1
        if x == remaining:
            yield 1 << j
        else:
            for rest in _completions(vals, j + 1, used | 1 << j, remaining - x, counter, budget):
                yield rest | 1 << j


def packings(vals: list[int], target: int, budget: int = SEARCH_BUDGET) -> tuple[dict[int, list[int]], bool]:
    """Saturated packings of ``vals`` (every value < target) into groups summing to ``target``.

    Returns ({mask of used indices: [group masks]}, truncated). A packing is saturated when no
    subset of the unused values sums to ``target``. The empty packing appears only if it is
    saturated. Each set of indices is listed once, with the first grouping found.
    """
    n = len(vals)
    limit = (1 << (target + 1)) - 1
    found: dict[int, list[int]] = {}
    counter = [0]
    truncated = False

    def rec(i: int, used: int, skipped_sums: int, groups: list[int]) -> None:
        nonlocal truncated
        while i < n and used >> i & 1:
            i += 1
        if truncated:
            return
        counter[0] += 1
        if counter[0] > budget:
            truncated = True
            return
        if i == n:
            found.setdefault(used, groups)
            return
        x = vals[i]
        for rest in _completions(vals, i + 1, used | 1 << i, target - x, counter, budget):
            rec(i + 1, used | 1 << i | rest, skipped_sums, [*groups, rest | 1 << i])
            if truncated:
                return
        sums = (skipped_sums | skipped_sums << x | 1 << x) & limit
        if not sums >> target & 1:  # leaving vals[i] out must not leave a whole group behind
            rec(i + 1, used, sums, groups)

    rec(0, 0, 0, [])
    return found, truncated


def _bits(mask: int) -> list[int]:
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


# --- moves ------------------------------------------------------------------------------------

def group_text(cards: list[int], build: bool) -> str:
    """``AH+5C`` for loose cards (sorted), ``(AH+5C)`` for a build (in stacking order)."""
    ordered = cards if build else sorted(cards, key=card_key)
    text = "+".join(card_str(c) for c in ordered)
    return f"({text})" if build else text


def _group_sort_key(group: tuple[list[int], bool]) -> tuple[int, int, list[tuple[int, int]]]:
    cards, build = group
    return (len(cards) if not build else 1, 1 if build else 0, [card_key(c) for c in cards])


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
    loose_idx: list[int] = []
    for idx, it in enumerate(table):
        iv = item_value(it)
        if iv == v:
            forced.append((list(it["cards"]), is_build(it)))
        elif iv is not None and iv < v and not is_build(it):
            loose_idx.append(idx)
    vals = [item_value(table[i]) or 0 for i in loose_idx]
    found, _ = packings(vals, v)
    options: list[tuple[int, str]] = []
    for mask, groups in found.items():
        if not mask and not forced:
            continue
        sums = [([table[loose_idx[i]]["cards"][0] for i in _bits(g)], False) for g in groups]
        taken = sum(len(c) for c, _ in forced) + bin(mask).count("1")
        options.append((taken, _take_text(card, forced + sums)))
    options.sort(key=lambda o: (-o[0], o[1]))
    return [text for _, text in options[:MAX_CAPTURES]]


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
        loose_idx = [i for i, it in enumerate(table)
                     if i != idx and not is_build(it) and (item_value(it) or 99) < total]
        vals = [item_value(table[i]) or 0 for i in loose_idx]
        found, _ = packings(vals, total)
        extra: list[str] = []
        for mask, groups in found.items():
            if not mask:
                continue
            parts = sorted(([table[loose_idx[i]]["cards"][0] for i in _bits(g)] for g in groups),
                           key=lambda cs: [card_key(c) for c in cs])
            extra.append(" ".join([head, *(group_text(cs, False) for cs in parts)]))
        extra.sort(key=lambda t: (-len(t.split()), t))
        moves.extend(extra[:MAX_EXTRA])
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
