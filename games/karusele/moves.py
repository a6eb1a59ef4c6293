"""Karusele move generation and checking: card values, table items, captures, builds, their text.

Kept apart from ``karusele.py`` (the state machine) because this is the combinatorial part:
which sets of table cards one hand card may take, and which builds it may make.

Table items are dicts ``{"cards": [int, ...], "owner": seat | None, "since": move | None}``:
one card (owner None) or a build (two or more number cards, owner = the last seat that
built or raised it). A build counts as one card of its total and is only ever taken whole,
as a group of its own, by a card equal to its total.

Legality is a *check* of the move the player wrote (``read_take``, ``read_build``), never
membership in a list: a number card takes every table item of its own value and any set of
disjoint groups of loose cards, each adding up to its value (the player's choice; at least one
group or equal card). The check splits the chosen loose cards into such groups exactly (no
step budget), so every legal capture is playable, and it names what is wrong when it refuses.
A capture is one move however its cards are written or grouped: ``canonical`` text depends
only on the set of cards taken.

The number of legal captures grows exponentially with the table, so the enumeration kept for
the AI, hints, one-press buttons and random play (``legal_sample``) is a bounded *sample*:
the largest captures of each hand card (up to ``SAMPLE_CAPTURES``), every plain build, up to
``MAX_EXTRA`` multi-builds per base, every trail and sweep.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import accumulate, combinations, islice, product
from operator import itemgetter
from operator import sub as sub_
from sys import intern
from typing import Any

from typing_extensions import TypedDict

from engine.cards import BROOM, CARD_TEXT, JOKER11, JOKER15, JOKER20, card_str, parse_card, rank_of, suit_of

Groups = list[list[int]]  # groups of value indices (or cards), each adding up to the target
PartitionMemo = dict[tuple[int, ...], Groups | None]  # value counts -> their split into groups, or None


class Item(TypedDict):
    """A table item (see the module docstring): one card, or a build with its owner and move number."""

    cards: list[int]
    owner: int | None
    since: int | None


SPECIAL_VALUE = {JOKER11: 11, JOKER15: 15, JOKER20: 20}
SEARCH_BUDGET = 2500  # search steps of the *sample* enumeration per hand card or build base
SAMPLE_CAPTURES = 4  # captures per hand card in the sample (the largest first): the one-press shortcuts
MAX_EXTRA = 6  # extra-build groupings per build base in the sample


def _value(card: int) -> int | None:
    """Numeric value: A = 1, 2..10 face value, jokers 11/15/20; None for J Q K and the broom."""
    if card >= 64:
        return SPECIAL_VALUE.get(card)
    rank = rank_of(card)
    if rank == 14:
        return 1
    return rank if rank <= 10 else None


_VALUES = [_value(card) for card in range(128)]  # every code below 128 (cards are below 69)
# value(card): numeric value (A = 1, 2..10, jokers 11/15/20; None for J Q K and the broom), as a table
# lookup: move generation asks it hundreds of times a step.
value = _VALUES.__getitem__


# is_court(card): J, Q or K (no value; taken only by the same rank), as a table lookup.
is_court = [card < 64 and 11 <= rank_of(card) <= 13 for card in range(128)].__getitem__


def item_value(item: Item) -> int | None:
    """A build's total, a number card's value, None for a court card."""
    cards = item["cards"]
    if len(cards) == 1:
        return _VALUES[cards[0]]
    return sum([_VALUES[c] or 0 for c in cards])


def is_build(item: Item) -> bool:
    return len(item["cards"]) > 1


def _card_key(card: int) -> tuple[int, int]:
    """Order inside a group: by value (A low), then suit; courts by rank, specials last."""
    v = _value(card)
    if card >= 64:
        return (100, card)
    return (v if v is not None else 20 + rank_of(card), suit_of(card))


# card_key(card): the order inside a group (by value, A low, then suit; courts by rank, specials
# last), as a table lookup.
card_key = [_card_key(card) for card in range(128)].__getitem__


# --- saturated packings (the sample enumeration) ---------------------------------------------------------------------

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


def _partition(ks: tuple[int, ...], values: list[int], target: int, memo: PartitionMemo,
               budget: _Budget) -> Groups | None:
    """Groups (lists of value indices) splitting the multiset ``ks`` into sums of ``target``, or None.
    The group holding the largest remaining value is tried in every way, so None means impossible."""
    if ks in memo:
        return memo[ks]
    i = next(filter(ks.__getitem__, range(len(ks))), None)  # the first value still held
    if i is None:
        return []
    rest = list(ks)
    rest[i] -= 1
    answer = None
    for comp in _sub_multisets(list(rest), values, i, target - values[i], budget):
        left = tuple(map(sub_, rest, comp))  # comp has rest's length
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
    The answer is cached (the same loose cards recur from move to move): read it, never change it.
    """
    return _packings(tuple(sorted(cards)), target, limit, allowance)


@lru_cache(maxsize=1 << 12)
def _packings(cards: tuple[int, ...], target: int, limit: int,
              allowance: int) -> tuple[list[tuple[list[int], list[list[int]]]], bool]:
    """``packings`` of the sorted ``cards``."""
    by_value: dict[int, list[int]] = {}
    for c in sorted(cards, key=card_key):
        by_value.setdefault(value(c) or 0, []).append(c)
    values = sorted(by_value, reverse=True)
    found, spent = _value_packings(tuple(values), tuple(len(by_value[x]) for x in values), target, allowance)
    out: list[tuple[list[int], list[list[int]]]] = []
    pools = [by_value[x] for x in values]
    for ks, groups in found:
        if all(k == 0 or k == len(pool) for k, pool in zip(ks, pools, strict=True)):
            # one way to pick (all or none of each value, the common case): no product to walk
            out.append(_fill([pool if k else () for k, pool in zip(ks, pools, strict=True)], groups))
            if len(out) >= limit:
                return out, True
            continue
        for pick in product(*[list(combinations(pool, k)) for pool, k in zip(pools, ks, strict=True)]):
            out.append(_fill(pick, groups))
            if len(out) >= limit:
                return out, True
    return out, spent


def _fill(pick: Sequence[Sequence[int]], groups: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """A packing in cards: the picked cards (value by value) and the groups, each value index in a group
    taking the next picked card of that value."""
    at = [0] * len(pick)
    cards_groups = []
    for group in groups:
        cards = []
        for j in group:
            cards.append(pick[j][at[j]])
            at[j] += 1
        cards_groups.append(cards)
    return [c for p in pick for c in p], cards_groups


@lru_cache(maxsize=1 << 12)
def _value_packings(values: tuple[int, ...], counts: tuple[int, ...], target: int,
                    allowance: int) -> tuple[list[tuple[tuple[int, ...], Groups]], bool]:
    """The search of ``packings`` on value counts: the saturated count vectors with their groups,
    largest first, and whether the budget ran out. A pure function of small tuples, and the same
    few tables of values recur all game long, so it is cached (Karusele's move sample is the cost
    of every simulated step); callers only read the result."""
    mask = (1 << (target + 1)) - 1
    budget = _Budget(allowance)
    memo: PartitionMemo = {}
    found: list[tuple[tuple[int, ...], Groups]] = []
    value_list = list(values)
    size = len(values)
    # A depth-first walk over the counts taken of each value (largest value first, most taken first) that
    # stops leaving cards of a value as soon as the cards left could make a group. Every call of a level
    # and every leaf is one step of the budget, in this order (the cut-off depends on it; the recorded
    # samples of tests/engine/test_karusele_sample.py hold it). The last two levels are inline loops.
    budget.left -= 1  # the root call
    if budget.left < 0:
        budget.spent = True
        return found, True
    if size == 0:
        return [((), [])], False  # nothing loose: the empty packing (``_partition`` of nothing)
    ks = [0] * size
    last = size - 1
    x_last = values[last]
    c_last = counts[last]

    def leaves(taken: int, sums: int) -> None:
        """The last value's counts under a prefix (``ks`` filled but for the last), one step each."""
        s = sums
        for k in range(c_last, -1, -1):
            if k < c_last:
                s = (s | s << x_last) & mask
                if s >> target & 1:
                    break
            budget.left -= 1
            if budget.left < 0:
                budget.spent = True
                continue
            if (taken + k * x_last) % target == 0:
                ks[last] = k
                leaf = tuple(ks)
                groups = _partition(leaf, value_list, target, memo, budget)
                if groups is not None:
                    found.append((leaf, groups))

    def rec(i: int, sums: int, taken: int) -> None:
        """Level ``i`` < last (its call's step already counted): each count taken, then the next level."""
        x = values[i]
        count = counts[i]
        inner = i + 1 < last
        for k in range(count, -1, -1):  # take k of this value, leave count - k
            if k < count:
                sums = (sums | sums << x) & mask
                if sums >> target & 1:
                    break  # the cards left would hold a whole group: leaving more only adds to it
            budget.left -= 1  # the next level's call
            if budget.left < 0:
                budget.spent = True
                continue
            ks[i] = k
            if inner:
                rec(i + 1, sums, taken + k * x)
            else:
                leaves(taken + k * x, sums)

    if size == 1:
        leaves(0, 1)
    else:
        rec(0, 1, 0)
    found.sort(key=lambda f: (-sum(f[0]), [-k for k in f[0]]))
    return found, budget.spent


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


_CARD_TEXT = [CARD_TEXT.get(card, "") for card in range(128)]  # card_str as a list look-up (cards only)
_KEY = [_card_key(card) for card in range(128)]
_first = itemgetter(0)


def _take_text(card: int, groups: list[tuple[list[int], bool]]) -> str:
    """``take H G1 G2 ...`` with the groups in canonical order (``_group_sort_key``) and canonical text
    (``group_text``): the same text, built in one pass (every sampled capture is written out)."""
    keyed = []
    for cards, build in groups:
        if build:
            keyed.append(((1, 1, [_KEY[c] for c in cards]), "(" + "+".join([_CARD_TEXT[c] for c in cards]) + ")"))
        else:
            ordered = sorted(cards, key=card_key)
            keyed.append(((len(cards), 0, [_KEY[c] for c in ordered]), "+".join([_CARD_TEXT[c] for c in ordered])))
    keyed.sort(key=_first)  # group keys differ (the groups are disjoint), so texts are never compared
    return " ".join(["take", _CARD_TEXT[card], *[text for _, text in keyed]])


def court_captures(card: int, table: list[Item]) -> list[str]:
    """One court card of the same rank, or all three when three lie on the table."""
    same = sorted((it["cards"][0] for it in table if not is_build(it) and is_court(it["cards"][0])
                   and rank_of(it["cards"][0]) == rank_of(card)), key=card_key)
    moves = [f"take {card_str(card)} {card_str(c)}" for c in same]
    if len(same) == 3:
        moves.insert(0, _take_text(card, [([c], False) for c in same]))
    return moves


def number_captures_sample(card: int, table: list[Item], limit: int = SAMPLE_CAPTURES,
                           info: list[tuple[list[int], bool, int | None]] | None = None) -> list[str]:
    """A sample of a number card's captures: the saturated ones (nothing more could be added),
    largest first, at most ``limit``. Legal captures not listed here are still legal (``read_take``).
    ``info``: ``table_info(table)``, when the caller has it already."""
    v = _VALUES[card]
    assert v is not None
    forced: list[tuple[list[int], bool]] = []
    loose: list[int] = []
    for cards, build, iv in info if info is not None else table_info(table):
        if iv == v:
            forced.append((list(cards), build))
        elif iv is not None and iv < v and not build:
            loose.append(cards[0])
    if sum([_VALUES[c] or 0 for c in loose]) < v:  # no group of loose cards adds up: only the equal items
        return [_take_text(card, forced)] if forced else []
    moves = []
    for taken, groups in packings(loose, v, limit)[0]:
        if taken or forced:
            moves.append(_take_text(card, forced + [(g, False) for g in groups]))
    if not moves and (forced or has_subset_sum(loose, v)):  # the search budget ran out: still offer one
        group = one_group(loose, v)
        moves.append(_take_text(card, forced + ([(group, False)] if group else [])))
    return moves


def table_info(table: list[Item]) -> list[tuple[list[int], bool, int | None]]:
    """(cards, is a build, value) of every table item: what the sample asks of each item, once."""
    values = _VALUES
    return [(cards, False, values[cards[0]]) if len(cards) == 1 else (cards, True, sum([values[c] or 0 for c in cards]))
            for cards in map(_cards_of, table)]


_cards_of = itemgetter("cards")


def one_group(cards: list[int], target: int) -> list[int] | None:
    """Some set of ``cards`` adding up to ``target`` (a subset-sum table walked back), or None."""
    reach: dict[int, tuple[int, int] | None] = {0: None}  # sum -> (card index, previous sum)
    for i, c in enumerate(cards):
        x = value(c) or 0
        for total in sorted(reach, reverse=True):
            new = total + x
            if new <= target and new not in reach:
                reach[new] = (i, total)
    if target not in reach:
        return None
    group, total = [], target
    while (step := reach[total]) is not None:
        i, total = step
        group.append(cards[i])
    return sorted(group, key=card_key)


def builds(card: int, hand: list[int], table: list[Item],
           info: list[tuple[list[int], bool, int | None]] | None = None) -> list[str]:
    """Builds with ``card``: onto one number card or build, total equal to another hand card's value,
    optionally grouping further loose cards into more builds of that total (all that fit).
    ``info``: ``table_info(table)``, when the caller has it already."""
    v = _VALUES[card]
    if v is None:
        return []
    totals = {_VALUES[c] for c in hand if c != card} - {None}
    if not totals:
        return []
    if info is None:
        info = table_info(table)
    moves: list[str] = []
    for idx, (base_cards, base_build, bv) in enumerate(info):
        if bv is None or v + bv not in totals:
            continue
        total = v + bv
        base = "(" + "+".join([_CARD_TEXT[c] for c in base_cards]) + ")" if base_build else _CARD_TEXT[base_cards[0]]
        head = "build " + _CARD_TEXT[card] + " " + base
        moves.append(head)
        loose = [cards[0] for i, (cards, build, iv) in enumerate(info)
                 if i != idx and not build and (iv or 99) < total]
        if sum([_VALUES[c] or 0 for c in loose]) < total:  # no extra group can add up to the total
            continue
        for taken, groups in packings(loose, total, MAX_EXTRA)[0]:
            if taken:
                parts = []  # (the group's card keys in order, its text): group_text, sorted by the keys
                for cs in groups:
                    ordered = sorted(cs, key=card_key)
                    parts.append(([_KEY[c] for c in ordered], "+".join([_CARD_TEXT[c] for c in ordered])))
                parts.sort(key=_first)  # disjoint groups: keys differ, texts are never compared
                moves.append(" ".join([head, *[text for _, text in parts]]))
    return moves


def legal_sample_reference(hand: list[int], table: list[Item]) -> list[str]:
    """``legal_sample`` written card by card with the functions above (the fast one below must list the same)."""
    moves: list[str] = []
    info = table_info(table)
    for card in hand:
        if card == BROOM:
            moves.append("sweep BR")
            continue
        if is_court(card):
            moves.extend(court_captures(card, table))
        else:
            moves.extend(number_captures_sample(card, table, info=info))
            moves.extend(builds(card, hand, table, info))
        moves.append("trail " + _CARD_TEXT[card])
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


@lru_cache(maxsize=1 << 14)
def parsed_move(action: str) -> tuple[str, int, tuple[tuple[int, ...], ...]]:
    """(verb, hand card, the groups' cards) of a canonical action text: ``parse`` read into card codes,
    cached (the fast path's step; the same moves recur from game to game). Shared: never change it."""
    verb, card_text, groups = parse(action)
    return verb, parse_card(card_text), tuple(tuple(parse_card(t) for t in texts) for texts, _ in groups)


# --- checking a move as written ------------------------------------------------------------

class Refusal(ValueError):
    """Why a written move is not legal: an English ``template`` with ``params`` (the bot
    translates the template; the engine shows ``str(self)``)."""

    def __init__(self, template: str, **params: Any) -> None:
        super().__init__(template.format(**params))
        self.template = template
        self.params = params


def split_groups(cards: list[int], target: int) -> list[list[int]] | None:
    """Split number ``cards`` (each worth less than ``target``) into groups each adding up to
    ``target``, or None when no such split exists. Exact: a memoised search on value counts
    (cards of one value are interchangeable), with no step budget. Deterministic: the same
    cards always give the same groups."""
    if not cards:
        return []
    total = sum(value(c) or 0 for c in cards)
    if total % target:
        return None
    by_value: dict[int, list[int]] = {}
    for c in sorted(cards, key=card_key):
        by_value.setdefault(value(c) or 0, []).append(c)
    values = sorted(by_value, reverse=True)
    counts = tuple(len(by_value[x]) for x in values)
    groups = _exact_partition(counts, values, target, {})
    if groups is None:
        return None
    pools = {x: list(by_value[x]) for x in values}
    return [[pools[values[j]].pop(0) for j in group] for group in groups]


def _exact_partition(ks: tuple[int, ...], values: list[int], target: int, memo: PartitionMemo) -> Groups | None:
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
    budget = _Budget(1 << 62)  # never spent: the search is exact
    for comp in _sub_multisets(list(rest), values, i, target - values[i], budget):
        left = tuple(r - c for r, c in zip(rest, comp, strict=True))
        sub = _exact_partition(left, values, target, memo)
        if sub is not None:
            answer = [[i] + [j for j, c in enumerate(comp) for _ in range(c)], *sub]
            break
    memo[ks] = answer
    return answer


def has_subset_sum(cards: list[int], target: int) -> bool:
    """Does some non-empty set of ``cards`` add up to ``target``? (bitset subset sum)"""
    mask = (1 << (target + 1)) - 1
    sums = 1
    for c in cards:
        sums = (sums | sums << (value(c) or 0)) & mask
    return bool(sums >> target & 1)


def _text_cards(cards: list[int]) -> str:
    return "+".join(card_str(c) for c in cards)


def _locate(words: list[str], table: list[Item]) -> list[tuple[list[int], list[int]]]:
    """For each written group: its cards and the table items they lie in. Refuses unknown cards,
    cards not on the table and cards named twice."""
    where = {c: i for i, it in enumerate(table) for c in it["cards"]}
    seen: set[int] = set()
    out = []
    for word in words:
        texts, _ = parse_group(word)
        cards = []
        for text in texts:
            try:
                card = parse_card(text)
            except ValueError:
                raise Refusal("{card} is not a card", card=text) from None
            if card not in where:
                raise Refusal("{card} is not on the table", card=card_str(card))
            if card in seen:
                raise Refusal("{card} is named twice", card=card_str(card))
            seen.add(card)
            cards.append(card)
        out.append((cards, sorted({where[c] for c in cards})))
    return out


def _whole_build(cards: list[int], items: list[int], table: list[Item]) -> Item | None:
    """The build a written group names (all its cards and nothing else), None for loose cards;
    refuses a group that takes part of a build or mixes a build with other cards."""
    builds = [table[i] for i in items if is_build(table[i])]
    if not builds:
        return None
    build = builds[0]
    if len(items) > 1 or sorted(cards) != sorted(build["cards"]):
        raise Refusal("the build {build} is taken whole and on its own",
                      build=group_text(build["cards"], True))
    return build


def _merge_build_parts(located: list[tuple[list[int], list[int]]],
                       table: list[Item]) -> list[tuple[list[int], list[int]]]:
    """A build's cards written as separate words (``take 10S 5S 5H``) make one group: the build."""
    out: list[tuple[list[int], list[int]]] = []
    parts: dict[int, list[int]] = {}
    for cards, items in located:
        if len(cards) == 1 and is_build(table[items[0]]):
            parts.setdefault(items[0], []).extend(cards)
        else:
            out.append((cards, items))
    return out + [(cards, [i]) for i, cards in parts.items()]


def read_take(card: int, words: list[str], table: list[Item]) -> str:
    """The canonical text of ``take CARD WORDS...`` if it is a legal capture, else Refusal.

    Number cards: every written group is a card of the card's value, a build of that value
    (whole) or loose cards adding up to it; single loose cards written apart are grouped by the
    engine (any split will do). Every table item of the card's value must be taken."""
    if is_court(card):
        return _read_court(card, words, table)
    v = value(card)
    if v is None:
        raise Refusal("{card} does not take: the broom sweeps", card=card_str(card))
    if not words:
        raise Refusal("name the table cards that {card} takes", card=card_str(card))
    taken_items: set[int] = set()
    equal: list[tuple[list[int], bool]] = []
    pool: list[int] = []
    for cards, items in _merge_build_parts(_locate(words, table), table):
        build = _whole_build(cards, items, table)
        if build is not None:
            total = item_value(build) or 0
            if total != v:
                raise Refusal("the build {build} is worth {total}, not {value}",
                              build=group_text(build["cards"], True), total=total, value=v)
            equal.append((list(build["cards"]), True))
            taken_items.update(items)
            continue
        for c in cards:
            if value(c) is None:
                raise Refusal("{card} has no value: only a court card of its rank takes it", card=card_str(c))
        total = sum(value(c) or 0 for c in cards)
        if len(cards) > 1 and total != v:
            raise Refusal("{group} adds up to {total}, not {value}", group=_text_cards(cards), total=total, value=v)
        if len(cards) == 1 and total > v:
            raise Refusal("{card} is worth {total}, more than {value}", card=card_str(cards[0]), total=total, value=v)
        taken_items.update(items)
        if len(cards) == 1 and total == v:
            equal.append((cards, False))
        else:
            pool.extend(cards)
    for i, it in enumerate(table):
        if i not in taken_items and item_value(it) == v:
            shown = group_text(it["cards"], is_build(it))
            raise Refusal("{item} is worth {value} too: a capture takes every card and build of its value",
                          item=shown, value=v)
    groups = split_groups(pool, v)
    if groups is None:
        loose = _text_cards(sorted(pool, key=card_key))
        total = sum(value(c) or 0 for c in pool)
        if total % v:
            raise Refusal("{cards} add up to {total}, which is not whole groups of {value}",
                          cards=loose, total=total, value=v)
        raise Refusal("{cards} cannot be split into groups of {value} each", cards=loose, value=v)
    return _take_text(card, equal + [(g, False) for g in groups])


def _read_court(card: int, words: list[str], table: list[Item]) -> str:
    """A court card takes one court of its rank, or all three when three lie on the table."""
    same = [it["cards"][0] for it in table
            if not is_build(it) and is_court(it["cards"][0]) and rank_of(it["cards"][0]) == rank_of(card)]
    located = _locate(words, table)
    cards = [c for cs, _ in located for c in cs]
    if not cards:
        raise Refusal("name the table cards that {card} takes", card=card_str(card))
    for c in cards:
        if c not in same:
            raise Refusal("{card} takes only a court card of its own rank, not {other}",
                          card=card_str(card), other=card_str(c))
    if len(cards) == 1 or len(cards) == 3 == len(same):
        return _take_text(card, [([c], False) for c in sorted(cards, key=card_key)])
    raise Refusal("a court card takes one court of its rank, or all three when three lie on the table")


def read_build(card: int, hand: list[int], words: list[str], table: list[Item]) -> str:
    """The canonical text of ``build CARD BASE [GROUPS...]`` if legal, else Refusal.

    The base is one table number card or one whole build; the total must be the value of
    another card the player keeps. Extra groups of loose cards adding up to the total become
    builds too; when any are grouped, every group that still fits must be (see ``karusele.py``)."""
    v = value(card)
    if v is None:
        raise Refusal("only number cards (A-10, jokers) build")
    if not words:
        raise Refusal("name the table card or build that {card} goes onto", card=card_str(card))
    located = _locate(words, table)
    base_cards, base_items = located[0]
    base_build = _whole_build(base_cards, base_items, table)
    if base_build is None:
        if len(base_cards) != 1:
            raise Refusal("a build goes onto one table card or one build, not {group}",
                          group=_text_cards(sorted(base_cards, key=card_key)))
        if value(base_cards[0]) is None:
            raise Refusal("{card} has no value: nothing builds on it", card=card_str(base_cards[0]))
        base = table[base_items[0]]
    else:
        base = base_build
    total = v + (item_value(base) or 0)
    if not any(value(c) == total for c in hand if c != card):
        raise Refusal("you need another card worth {total} in your hand to build {total}", total=total)
    used = set(base_items)
    extras: list[list[int]] = []
    for cards, items in located[1:]:
        if any(is_build(table[i]) for i in items):
            raise Refusal("a further build is made of loose cards, not of the build {build}",
                          build=group_text(table[items[0]]["cards"], True))
        group_sum = sum(value(c) or 0 for c in cards)
        if len(cards) < 2 or any(value(c) is None for c in cards) or group_sum != total:
            raise Refusal("{group} adds up to {sum}, not {total}", group=_text_cards(cards),
                          sum=group_sum if all(value(c) is not None for c in cards) else "?", total=total)
        used.update(items)
        extras.append(cards)
    if extras:
        leftover = [it["cards"][0] for i, it in enumerate(table)
                    if i not in used and not is_build(it) and (item_value(it) or 99) < total]
        if has_subset_sum(leftover, total):
            raise Refusal("more loose cards add up to {total}: group every one that fits", total=total)
    head = f"build {card_str(card)} {group_text(base['cards'], is_build(base))}"
    parts = sorted(extras, key=lambda cs: sorted(card_key(c) for c in cs))
    return " ".join([head, *(group_text(sorted(cs, key=card_key), False) for cs in parts)])


# --- building a capture card by card (the bot's capture builder) ---------------------------------

def capture_parts(card: int, table: list[Item]) -> tuple[list[int], list[int]]:
    """(items always taken, items the player may add) for a capture by ``card``, as table indices:
    a number card always takes the items of its value and may add loose number cards below it;
    a court card may pick courts of its rank."""
    if is_court(card):
        return [], [i for i, it in enumerate(table) if not is_build(it) and is_court(it["cards"][0])
                    and rank_of(it["cards"][0]) == rank_of(card)]
    v = value(card)
    if v is None:
        return [], []
    equal = [i for i, it in enumerate(table) if item_value(it) == v]
    optional = [i for i, it in enumerate(table) if not is_build(it) and (item_value(it) or 99) < v]
    return equal, optional


def capture_words(card: int, table: list[Item], chosen: list[int]) -> str:
    """The ``take`` text for the items of ``capture_parts`` the player chose (the engine checks it)."""
    equal, _ = capture_parts(card, table)
    items = [table[i] for i in sorted(set(equal) | set(chosen))]
    return " ".join(["take", card_str(card), *(group_text(it["cards"], is_build(it)) for it in items)])


def completable(card: int, table: list[Item], chosen: list[int]) -> bool:
    """Can the optional items ``chosen`` (table indices) still be completed into a legal capture by
    ``card``, by adding more? Exact (no step budget): the chosen loose cards must all fit into groups
    adding up to the card's value, topped up with other loose cards."""
    equal, optional = capture_parts(card, table)
    if any(i not in optional for i in chosen):
        return False
    if is_court(card):
        return len(chosen) <= 1 or len(optional) == 3
    v = value(card) or 0
    must = [table[i]["cards"][0] for i in chosen]
    rest = [table[i]["cards"][0] for i in optional if i not in chosen]
    if not must:
        return bool(equal) or has_subset_sum(rest, v)
    values = sorted({value(c) or 0 for c in must + rest}, reverse=True)
    need = tuple(sum(1 for c in must if value(c) == x) for x in values)
    have = tuple(sum(1 for c in rest if value(c) == x) for x in values)
    return _extendable(need, have, values, v, {})


def _extendable(need: tuple[int, ...], have: tuple[int, ...], values: list[int], target: int,
                memo: dict[tuple[tuple[int, ...], tuple[int, ...]], bool]) -> bool:
    """Do groups of ``target`` exist that use every card counted in ``need`` and some of ``have``?
    The group of the largest needed card is tried in every way; a group takes needed cards of a
    value before optional ones (they are interchangeable, and that leaves fewer obligations)."""
    key = (need, have)
    if key in memo:
        return memo[key]
    i = next((j for j, k in enumerate(need) if k), None)
    if i is None:
        return True
    need_left = list(need)
    need_left[i] -= 1
    both = [a + b for a, b in zip(need_left, have, strict=True)]
    answer = False
    budget = _Budget(1 << 62)  # never spent: the search is exact
    for comp in _sub_multisets(list(both), values, 0, target - values[i], budget):  # larger optional cards too
        from_need = [min(c, n) for c, n in zip(comp, need_left, strict=True)]
        next_need = tuple(n - f for n, f in zip(need_left, from_need, strict=True))
        next_have = tuple(h - (c - f) for h, c, f in zip(have, comp, from_need, strict=True))
        if _extendable(next_need, next_have, values, target, memo):
            answer = True
            break
    memo[key] = answer
    return answer


# --- the sample, fast: value-level templates of the packings, filled with the table's cards ----------------------
#
# ``legal_sample`` lists exactly what the functions above list (``number_captures_sample``, ``builds``,
# ``court_captures``), in the same order; it only avoids recomputing them card by card. The packings of loose
# cards depend on the cards only through their values (the search runs on value counts) and on each value's
# cards in suit order, so a packing is kept once per (value counts, target) as a *template*: its groups as
# format strings over the loose cards' texts (values ascending, suits in order), already in the order the
# texts list them. A table position then costs a dict look-up and a ``str.format`` per listed move. Most new
# keys hold idle values (cards no group of the target can use: a 9 without an ace for 10): such a key takes the
# template of the key without them, renumbered (``_key_without_idle``), so far fewer packings are searched. The
# templates are tuples of strings keyed by ints, which the garbage collector stops visiting, and there are at
# most ``TEMPLATES_MAX`` of them (then the older half is forgotten, and made again when asked).

TEMPLATE_LIMIT = max(SAMPLE_CAPTURES, MAX_EXTRA)  # a template holds the first packings of the list, for both uses
TEMPLATES_MAX = 1 << 15  # about 250 bytes each (the patterns are shared): 8 MB at most
_BITS = 3  # bits per value in a count key (at most 4 cards of a value)
# (counts key << 5 | target) -> the packings in order: None for the empty packing, else (capture text, build text)
_TEMPLATES: dict[int, tuple[tuple[str, str] | None, ...]] = {}
_TRAIL = [("trail " + _CARD_TEXT[card]) if _CARD_TEXT[card] else "" for card in range(128)]


def _make_template(key: int) -> tuple[tuple[str, str] | None, ...]:
    """The first ``TEMPLATE_LIMIT`` packings of ``_packings`` for the count key, as format strings."""
    reduced = _key_without_idle(key)
    if reduced is not None:
        return _renumbered(_template(reduced), key, reduced)
    target = key & 31
    counts_key = key >> 5
    asc = [(v, (counts_key >> (_BITS * v)) & 7) for v in range(1, 21)]
    asc = [(v, c) for v, c in asc if c]
    offset: dict[int, int] = {}
    at = 0
    for v, c in asc:
        offset[v] = at
        at += c
    values = tuple(v for v, _ in reversed(asc))
    counts = tuple(c for _, c in reversed(asc))
    if sum([v * c for v, c in asc]) < 2 * target:
        single = _single_group_template(values, counts, target, offset)
        if single is not None:
            return single
    found = _quick_value_packings(values, counts, target)
    if found is None:  # the budget runs out: the search itself says where it stops
        found, _spent = _value_packings.__wrapped__(values, counts, target, SEARCH_BUDGET)  # cached as a template
    out: list[tuple[str, str] | None] = []
    for ks, groups in found:
        for pick in _picks(ks, counts):
            out.append(_template_entry(values, pick, groups, offset) if any(ks) else None)
            if len(out) >= TEMPLATE_LIMIT:
                return tuple(out)
    return tuple(out)


_LANE = 32  # bits per coefficient of a count polynomial (a count of card sets: at most 5 ** 10 * 2 ** 3)


def _key_without_idle(key: int) -> int | None:
    """The count key without the idle values (no group of the target holds one of their cards), or None when
    none is idle or the search might run out of steps on the key (then the key's own walk says where).

    An idle card is in no packing's groups, and it never fills a group among the cards left over, so the
    packings are those of the other cards, with the same groups, in the same order (the sort key gains a zero
    column): the key's template is the smaller key's with the fields renumbered. That holds when the search
    lists every packing of the key, i.e. its budget cannot run out: its walk spends at most ``_walk_bound``
    steps, and ``_partition`` at most ``size`` steps per enumeration call (each call is a set of cards adding up
    to less than the target, A of them) in each vector it splits (a non-empty set of cards adding up to a
    multiple of the target, B of them, each split once: memoised). The counts of card sets by total come from
    one polynomial, the product over values of 1 + z^v + ... + z^(c v), and so does "idle": no set adding up
    to the target holds a card of value v."""
    target = key & 31
    counts_key = key >> 5
    if counts_key >> (_BITS * target):
        return None  # not a key of the sample's (its values are below the target)
    held = [(v, c) for v in range(1, target) if (c := (counts_key >> (_BITS * v)) & 7)]
    poly = 1
    for v, c in held:
        shifted = poly
        step = _LANE * v
        for _ in range(c):
            shifted <<= step
            poly += shifted
    total = sum([v * c for v, c in held])
    lanes = max(total, target) + 1
    ways = memoryview(poly.to_bytes(4 * lanes, "little")).cast("I").tolist()  # ways[s]: card sets adding to s
    kept = 0
    for v, c in held:
        # sets adding up to the target without a card of value v: the polynomial divided by 1 + z^v + ... +
        # z^(c v), i.e. times (1 - z^v) / (1 - z^((c + 1) v)), read at the target
        without = 0
        for s in range(target, -1, -(c + 1) * v):
            without += ways[s] - (ways[s - v] if s >= v else 0)
        if ways[target] > without:
            kept += c << (_BITS * v)
    if kept == counts_key:
        return None
    sets_below = sum(ways[:target])
    splits = sum(ways[target::target])
    if _walk_bound(tuple(c for _, c in reversed(held))) + len(held) * sets_below * splits > SEARCH_BUDGET:
        return None
    return kept << 5 | target


def _renumbered(template: tuple[tuple[str, str] | None, ...], key: int,
                reduced: int) -> tuple[tuple[str, str] | None, ...]:
    """``reduced``'s template as ``key``'s: a loose card's field is its position among ``key``'s loose cards
    (values ascending, then suit), where ``reduced`` leaves out the idle values' cards (positions keep order)."""
    counts_key = key >> 5
    kept = reduced >> 5
    fields: list[str] = []
    at = 0
    for v in range(1, 21):
        c = (counts_key >> (_BITS * v)) & 7
        if (kept >> (_BITS * v)) & 7:
            fields.extend([_FIELDS[at + i] for i in range(c)])
        at += c
    out: list[tuple[str, str] | None] = []
    for entry in template:
        if entry is None:
            out.append(None)
        else:
            capture = intern(entry[0].format(*fields))
            out.append((capture, capture if entry[1] is entry[0] else intern(entry[1].format(*fields))))
    return tuple(out)


def _picks(ks: Sequence[int], counts: Sequence[int]) -> Any:
    """Which cards of each value a count vector takes, by suit position: every choice, in order."""
    if all(k == 0 or k == c for k, c in zip(ks, counts, strict=True)):  # all or none of each: one choice
        return [tuple(tuple(range(c)) if k else () for k, c in zip(ks, counts, strict=True))]
    return product(*[list(combinations(range(c), k)) for c, k in zip(counts, ks, strict=True)])


def _walk_bound(counts: tuple[int, ...]) -> int:
    """The steps of ``_value_packings``' walk (its root, every level's calls and leaves) were nothing pruned."""
    bound = 1
    prefix = 1
    for c in counts:
        prefix *= c + 1
        bound += prefix
    return bound


def _quick_value_packings(values: tuple[int, ...], counts: tuple[int, ...],
                          target: int) -> list[tuple[tuple[int, ...], Groups]] | None:
    """``_value_packings``' list when its budget cannot run out, else None (then only the search knows where
    it stops).

    Without a cut-off its list is a pure function of the counts: every count vector whose cards left hold no
    group of ``target``, whose cards taken add up to a multiple of it, and which ``_partition`` splits, with
    ``_partition``'s groups (a pure function of the vector), sorted. Its steps are at most the unpruned walk's
    (``_walk_bound``) plus ``_partition``'s, whose total does not depend on the order the vectors come in (a
    vector's own steps are the same whether its parts were memoised or not, and each is searched once). So this
    walk also skips every branch whose taken total can no longer reach a multiple of the target, solves the
    last value's count instead of trying each, and the list stands when the bound fits in ``SEARCH_BUDGET``."""
    size = len(values)
    bound = _walk_bound(counts)
    if size < 2 or bound > SEARCH_BUDGET:
        return None
    mask = (1 << (target + 1)) - 1
    budget = _Budget(SEARCH_BUDGET - bound)  # ``_partition``'s steps: spent means the bound does not fit
    memo: PartitionMemo = {}
    found: list[tuple[tuple[int, ...], Groups]] = []
    value_list = list(values)
    ks = [0] * size
    last = size - 1
    x_last = values[last]
    c_last = counts[last]
    # reach[i]: the totals levels i.. can take (a bit per total); multiples: a bit per multiple of the target
    reach = [1] * (size + 1)
    for i in range(size - 1, -1, -1):
        r = 0
        for k in range(counts[i] + 1):
            r |= reach[i + 1] << (k * values[i])
        reach[i] = r
    multiples = 0
    for m in range(0, reach[0].bit_length() + target, target):
        multiples |= 1 << m

    def rec(i: int, sums: int, taken: int) -> bool:
        x = values[i]
        count = counts[i]
        inner = i + 1 < last
        after = reach[i + 1]
        for k in range(count, -1, -1):
            if k < count:
                sums = (sums | sums << x) & mask
                if sums >> target & 1:
                    break
            now = taken + k * x
            if not (after << now) & multiples:
                continue  # no leaf below takes a multiple of the target
            ks[i] = k
            if inner:
                if rec(i + 1, sums, now):  # noqa: F821  (deleted after the walk)
                    return True
                continue
            # the last level: its counts c_last, c_last - 1, ... down to the first that leaves a group
            low = 0
            s = sums
            for j in range(1, c_last + 1):
                s = (s | s << x_last) & mask
                if s >> target & 1:
                    low = c_last - j + 1
                    break
            for kl in range(c_last, low - 1, -1):  # the counts making the taken total a multiple, most first
                if (now + kl * x_last) % target:
                    continue
                ks[last] = kl
                leaf = tuple(ks)
                if now + kl * x_last == target:
                    # one group: ``_partition`` takes every card left after the first in one straight descent,
                    # a step per value it still holds; its groups are the vector's values in index order
                    group = [j for j, c in enumerate(leaf) for _ in range(c)]
                    held = [c for c in leaf if c]
                    budget.left -= len(held) - (held[0] == 1)
                    if budget.left < 0:
                        return True
                    found.append((leaf, [group]))
                    continue
                groups = _partition(leaf, value_list, target, memo, budget)
                if budget.spent:
                    return True
                if groups is not None:
                    found.append((leaf, groups))
        return False

    cut = rec(0, 1, 0)
    del rec  # the nested function refers to itself: a cycle only the garbage collector would free
    if cut:
        return None
    found.sort(key=lambda f: (-sum(f[0]), [-k for k in f[0]]))
    return found


def _single_group_template(values: tuple[int, ...], counts: tuple[int, ...], target: int,
                           offset: dict[int, int]) -> tuple[tuple[str, str] | None, ...] | None:
    """``_make_template`` when the loose cards add up to less than twice the target, or None when the search
    might run out of steps (then the search itself decides where it stops).

    At most one group fits then, so the saturated packings are exactly the count vectors adding up to the
    target (the cards left add up to less than it), or the empty packing when none does; ``_partition`` groups
    such a vector as one group, its values in index order. ``_value_packings`` spends at most one step per node
    of its unpruned walk and, per packing, one per other value held (``_partition``'s straight descent): when
    that bound fits in ``SEARCH_BUDGET`` its budget never runs out, and this lists what it lists."""
    size = len(values)
    bound = _walk_bound(counts)
    if bound > SEARCH_BUDGET:
        return None
    found: list[tuple[int, ...]] = []
    ks = [0] * size

    def walk(i: int, remaining: int) -> None:
        if remaining == 0:
            found.append(tuple(ks))
            return
        if i == size:
            return
        x = values[i]
        for k in range(min(counts[i], remaining // x), -1, -1):
            ks[i] = k
            walk(i + 1, remaining - k * x)  # noqa: F821  (deleted after the walk)
        ks[i] = 0

    walk(0, target)
    del walk  # the nested function refers to itself: a cycle only the garbage collector would free
    if not found:
        return (None,)
    bound += sum([sum([1 for k in f if k]) for f in found])
    if bound > SEARCH_BUDGET:
        return None
    found.sort(key=lambda f: (-sum(f), [-k for k in f]))
    out: list[tuple[str, str] | None] = []
    for f in found:
        for pick in _picks(f, counts):
            # one group: card_key order is offset order (values ascending, then suit position; jokers last)
            text = intern("+".join([f"{{{i}}}" for i in sorted([offset[values[j]] + pos
                                                                 for j, poss in enumerate(pick) for pos in poss])]))
            out.append((text, text))
            if len(out) >= TEMPLATE_LIMIT:
                return tuple(out)
    return tuple(out)


_FIELDS = ["{" + str(i) + "}" for i in range(128)]  # format fields by loose-card position


def _template_entry(values: tuple[int, ...], pick: Sequence[Sequence[int]], groups: list[list[int]],
                    offset: dict[int, int]) -> tuple[str, str]:
    """One packing (``_fill`` on card positions) as (its groups as a capture lists them, as a build does).
    A card's position (values ascending, then suits; jokers last, by value) sorts as its ``card_key`` does,
    so groups are ordered by their positions."""
    at = [0] * len(pick)
    groups_at = []
    for group in groups:
        cards = []
        for j in group:
            cards.append(offset[values[j]] + pick[j][at[j]])
            at[j] += 1
        cards.sort()
        groups_at.append(cards)
    fields = _FIELDS
    capture = " ".join(["+".join([fields[i] for i in g]) for g in sorted(groups_at, key=lambda g: (len(g), g))])
    build = " ".join(["+".join([fields[i] for i in g]) for g in sorted(groups_at)])
    return intern(capture), intern(build)  # the same few patterns recur in many templates: kept once


def _template(key: int) -> tuple[tuple[str, str] | None, ...]:
    found = _TEMPLATES.get(key)
    if found is None:
        found = _make_template(key)  # may store a smaller key's template first
        if len(_TEMPLATES) >= TEMPLATES_MAX:  # the older half goes (a full clear made every key cold at once)
            for old in list(islice(_TEMPLATES, TEMPLATES_MAX // 2)):
                del _TEMPLATES[old]
        _TEMPLATES[key] = found
    return found


_ORDER = [key[0] << 8 | key[1] for key in _KEY]  # card_key as one int (the same order): sorts faster than tuples
_COUNT = [0 if v is None else 1 << (_BITS * v) for v in _VALUES]  # a loose card's share of a count key
_LOW_BITS = sum([1 << (_BITS * v) for v in range(21)])  # the lowest bit of every value's field in a count key
_TAKE = [("take " + text) if text else "" for text in _CARD_TEXT]
_BUILD = [("build " + text + " ") if text else "" for text in _CARD_TEXT]


def _build_keys(cards: list[int]) -> list[tuple[int, int]]:
    return [_KEY[c] for c in cards]


def legal_sample(hand: list[int], table: list[Item]) -> list[str]:
    """A sample of the legal moves of a hand, card by card (see the module docstring): complete for
    trails, the broom, court captures and plain builds; bounded for sum captures and multi-builds."""
    values = _VALUES
    texts = _CARD_TEXT
    # one pass over the table: loose number cards, loose courts, builds; a bit per value lying on the table
    loose: list[int] = []
    courts: list[int] = []
    builds: list[tuple[list[int], int]] = []
    for it in table:
        cards = it["cards"]
        if len(cards) == 1:
            c = cards[0]
            if values[c] is None:
                courts.append(c)
            else:
                loose.append(c)
        else:
            builds.append((cards, sum([values[c] or 0 for c in cards])))
    loose.sort(key=_ORDER.__getitem__)  # by value (jokers last, by value), then suit: the templates' order
    loose_values = [values[c] or 0 for c in loose]  # number cards: never None (nor 0: an ace is 1)
    loose_texts = [texts[c] for c in loose]
    below = list(accumulate(loose_values, initial=0))  # below[n]: the sum of the n lowest loose values
    counts_key = sum(map(_COUNT.__getitem__, loose))
    # bit _BITS * v: a number item of value v lies on the table (a build base), read off the counts' fields
    lying = (counts_key | counts_key >> 1 | counts_key >> 2) & _LOW_BITS
    for _, x in builds:
        lying |= 1 << (_BITS * x)
    if courts:
        courts.sort(key=_ORDER.__getitem__)
    # build totals: bit _BITS * v per value v in hand (a total exceeds the card's own value: its own never counts)
    totals = 0
    for c in hand:
        totals |= _COUNT[c]
    moves: list[str] = []
    for card in hand:
        if card == BROOM:
            moves.append("sweep BR")
            continue
        v = values[card]
        if v is None:
            if courts:  # court_captures: one court of the rank, or all three first
                rank = card & 15
                same = [c for c in courts if c & 15 == rank]
                if len(same) == 3:
                    moves.append(" ".join(["take", texts[card], *[texts[c] for c in same]]))
                moves.extend(["take " + texts[card] + " " + texts[c] for c in same])
            moves.append(_TRAIL[card])
            continue
        # captures (number_captures_sample): the items of value v always (loose cards in card order, then
        # builds by their cards' keys: ``_take_text``'s order), then the template's groups
        n = bisect_left(loose_values, v)  # loose cards worth less than v
        head = _TAKE[card]
        equal = counts_key >> (_BITS * v) & 7
        forced = equal > 0
        if equal:
            head = " ".join([head, *loose_texts[n:n + equal]])
        if builds:
            worth = [cards for cards, bv in builds if bv == v]
            if worth:
                forced = True
                if len(worth) > 1:
                    worth.sort(key=_build_keys)
                head = " ".join([head, *["(" + "+".join([texts[c] for c in cards]) + ")" for cards in worth]])
        if below[n] < v:
            if forced:
                moves.append(head)
        else:
            template = _template((counts_key & ((1 << (_BITS * v)) - 1)) << 5 | v)
            if not template:  # the search ran out of steps before any packing: the original's fallback
                moves.extend(number_captures_sample(card, table))
            else:
                flat = loose_texts[:n]
                for entry in template[:SAMPLE_CAPTURES]:
                    if entry is not None:
                        moves.append(head + " " + entry[0].format(*flat))
                    elif forced:
                        moves.append(head)
        # builds: onto a number item of value t - v, for a total t held in hand (the table's order)
        if totals >> (_BITS * v) & lying:
            for it in table:
                base_cards = it["cards"]
                if len(base_cards) > 1:
                    total = v + sum([values[c] or 0 for c in base_cards])
                    if not totals >> (_BITS * total) & 1:
                        continue
                    head = _BUILD[card] + "(" + "+".join([texts[c] for c in base_cards]) + ")"
                    n = bisect_left(loose_values, total)
                    if below[n] < total:
                        moves.append(head)
                        continue
                    flat = loose_texts[:n]
                    key = counts_key & ((1 << (_BITS * total)) - 1)
                else:  # the base is one of the loose cards below the total: leave it out
                    base = base_cards[0]
                    bv = values[base]
                    if bv is None or not totals >> (_BITS * (total := v + bv)) & 1:
                        continue
                    head = _BUILD[card] + texts[base]
                    n = bisect_left(loose_values, total)
                    if below[n] - bv < total:
                        moves.append(head)
                        continue
                    flat = loose_texts[:n]
                    del flat[loose.index(base)]
                    key = (counts_key & ((1 << (_BITS * total)) - 1)) - _COUNT[base]
                moves.append(head)
                for entry in _template(key << 5 | total)[:MAX_EXTRA]:
                    if entry is not None:
                        moves.append(head + " " + entry[1].format(*flat))
        moves.append(_TRAIL[card])
    return moves
