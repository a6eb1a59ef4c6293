"""What a new table costs the people reading it, and the search for the cheapest one.

A lay-down's proposal is looked at by a player before they confirm it, and the table afterwards by the
whole group: every old meld that changes is one more thing to check, and a table reshuffled from top
to bottom hides what was laid. So among the layouts that take the cards, ``solve`` returns the one
with the lowest ``cost``: the fewest old melds changed, then the fewest old cards moved out of the
meld they lay in.

The search works on *opened* sets: the old melds that may change (the others stay whole; a joker in
an opened meld is released only by a card of the hand or of an opened meld); a partition of the opened
melds' cards plus the added ones is a layout. Opening exactly the melds a layout changes works, so the
fewest opened melds that work is the fewest changed. ``cheapest`` tries the opened sets linked to the
added cards (``links``), the smallest first, within a fixed number of partitions (deterministic: the
same input gives the same layout; the bound keeps a 100-card table answering in milliseconds); if they
run out first, it shrinks the best layout found (keeping its melds whole one by one, the largest
first). The loose singles of Tahiti are no melds: they are always open and never counted.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from engine import cards
from engine.melds.tablecards import JOKER_AS
from engine.melds.validate import normalise
from engine.melds.variants import Variant

Cost = tuple[int, int]  # (old melds changed, old cards moved)
Table = list[list[int]]

EXACT_TRIALS = 40  # partitions the exhaustive part of the search may ask for, per lay-down (bench/melds.py)


def _key(variant: Variant, meld: Sequence[int]) -> tuple[int, ...]:
    return tuple(normalise(variant, meld)) if len(meld) > 1 else tuple(meld)


def changed_melds(variant: Variant, old: Sequence[Sequence[int]], new: Sequence[Sequence[int]],
                  singles: frozenset[int] = frozenset()) -> list[int]:
    """Indices of the old melds (not the loose ``singles``) that ``new`` does not hold unchanged
    (as a multiset: a double pack may have two equal melds)."""
    return _match(variant, old, new, singles)[0]


def _match(variant: Variant, old: Sequence[Sequence[int]], new: Sequence[Sequence[int]],
           singles: frozenset[int]) -> tuple[list[int], list[int]]:
    """(indices of the changed old melds, indices of the new melds that are not an unchanged old one)."""
    left: dict[tuple[int, ...], list[int]] = {}
    for j, m in enumerate(new):
        left.setdefault(_key(variant, m), []).append(j)
    changed = []
    for i, meld in enumerate(old):
        if i in singles:
            continue
        same = left.get(_key(variant, meld))
        if same:
            same.pop()
        else:
            changed.append(i)
    return changed, sorted(j for js in left.values() for j in js)


def moved_cards(variant: Variant, old: Sequence[Sequence[int]], new: Sequence[Sequence[int]],
                singles: frozenset[int] = frozenset()) -> int:
    """Cards of the changed old melds that do not end in the new meld holding most of their meld
    (appending 8♠ to 5♠ 6♠ 7♠ moves none; splitting a run moves the cards of its smaller part)."""
    return cost(variant, old, new, singles)[1]


def cost(variant: Variant, old: Sequence[Sequence[int]], new: Sequence[Sequence[int]],
         singles: frozenset[int] = frozenset()) -> Cost:
    """The objective: (old melds changed, old cards moved), lower is better."""
    changed, fresh = _match(variant, old, new, singles)
    where: dict[int, list[int]] = {}  # card -> the fresh melds holding it, once per copy
    for j in fresh:
        for x in new[j]:
            where.setdefault(x, []).append(j)
    moved = 0
    for i in changed:
        counts: Counter[int] = Counter()
        for x, n in Counter(old[i]).items():
            for j, k in Counter(where.get(x, ())).items():
                counts[j] += min(n, k)
        moved += len(old[i]) - max(counts.values(), default=0)
    return len(changed), moved


def links(old: Sequence[Sequence[int]], added: Sequence[int],
          orphans: Sequence[int] = ()) -> tuple[frozenset[int], list[frozenset[int]], list[frozenset[int]]]:
    """(the old melds that may share a new meld with an added card, each old meld's such neighbours, for each
    of the ``orphans`` the old melds that may share its meld).

    In a layout with the fewest changes, every group of changed melds linked by shared new melds holds an
    added card (else that group could stay as it was), and two cards next to each other in a new meld are
    of one rank or of one suit within ``2 + jokers`` places (a joker fills a gap). A joker on the table
    counts as its card unless a real card of that card lies in the pool (then it may be released and go
    anywhere: its meld neighbours every meld); a joker in the hand makes every meld a seed. An orphan is an
added card no meld of the added cards alone can hold: one of the melds close to it must open."""
    free = sum(1 for c in added if c == cards.JOKER) + sum(1 for m in old for x in m if x >= JOKER_AS)
    reach = 2 + free
    reals = Counter(c for c in added if c != cards.JOKER) + Counter(x for m in old for x in m if x < JOKER_AS)
    wild = {i for i, m in enumerate(old) if any(x >= JOKER_AS and reals[x - JOKER_AS] for x in m)}
    cards_of = [[x - JOKER_AS if x >= JOKER_AS else x for x in m] for m in old]
    everyone = frozenset(range(len(old)))

    def near(a: Sequence[int], b: Sequence[int]) -> bool:
        return any(_close(x, y, reach) for x in a for y in b)

    hand = [c for c in added if c != cards.JOKER]
    if len(hand) < len(added):
        seeds = everyone
    else:
        seeds = frozenset(i for i in everyone if i in wild or near(cards_of[i], hand))
    neighbours = [everyone - {i} if i in wild else
                  frozenset(j for j in everyone if j != i and (j in wild or near(cards_of[i], cards_of[j])))
                  for i in range(len(old))]
    covers = [frozenset(i for i in everyone if i in wild or near(cards_of[i], [c])) for c in orphans]
    return seeds, neighbours, covers


def _close(x: int, y: int, reach: int) -> bool:
    if cards.rank_of(x) == cards.rank_of(y):
        return True
    if cards.suit_of(x) != cards.suit_of(y):
        return False
    return any(abs(p - q) <= reach for p in _places(x) for q in _places(y))


def _places(c: int) -> tuple[int, ...]:
    r = cards.rank_of(c)
    return (1, 14) if r == cards.ACE else (r,)


def _linked_sets(size: int, order: Sequence[int], seeds: frozenset[int], neighbours: Sequence[frozenset[int]],
                 covers: Sequence[frozenset[int]]) -> Iterator[frozenset[int]]:
    """Every set of ``size`` melds (from ``order``) each reaching a seed through the set and meeting every cover,
    in ``order``'s order."""
    for combo in itertools.combinations(order, size):
        chosen = set(combo)
        if not all(cover & chosen for cover in covers):
            continue
        reached = chosen & seeds
        frontier = list(reached)
        while frontier:
            i = frontier.pop()
            for j in neighbours[i] & chosen - reached:
                reached.add(j)
                frontier.append(j)
        if len(reached) == size:
            yield frozenset(combo)


def cheapest(variant: Variant, old: Sequence[Sequence[int]], added: Sequence[int], found: Table,
             attempt: Callable[[frozenset[int]], Table | None], orphans: Sequence[int] = (),
             trials: int = EXACT_TRIALS) -> Table:
    """The cheapest layout the search meets, starting from ``found`` (a layout that works).

    ``attempt(opened)``: a layout changing at most the old melds ``opened`` (indices; the loose singles
    are added here), or None when there is none. ``orphans``: added cards that no meld of the added
    cards alone holds (see ``links``)."""
    singles = frozenset(i for i, m in enumerate(old) if variant.table_singles and len(m) == 1)
    best, best_cost = found, cost(variant, old, found, singles)
    seeds, neighbours, covers = links(old, added, orphans)
    first = set(changed_melds(variant, old, best, singles))
    # the melds the first layout changed first (likely again), then those nearest the added cards
    order = sorted((i for i in range(len(old)) if i not in singles), key=lambda i: (i not in first, i not in seeds, i))

    def better(opened: frozenset[int]) -> bool:
        nonlocal best, best_cost
        trial = attempt(opened | singles)
        if trial is None:
            return False
        c = cost(variant, old, trial, singles)
        if c < best_cost:
            best, best_cost = trial, c
        return True

    # 1. every linked set of old melds, the smallest first, while the trials last: the first size that
    # works is the fewest changes there are, and its every set is tried for the fewest cards moved
    for size in range(1 if not singles else 0, best_cost[0]):
        worked = False
        for opened in _linked_sets(size, order, seeds, neighbours, covers):
            if trials <= 0:
                break
            trials -= 1
            worked = better(opened) or worked
        if worked:
            return best
        if trials <= 0:
            break
    else:
        return best  # no smaller set works: ``best`` changes the fewest melds there are
    # 2. the trials ran out: keep the changed melds whole one by one, the largest first
    for i in sorted(changed_melds(variant, old, best, singles), key=lambda i: (-len(old[i]), i)):
        opened = frozenset(changed_melds(variant, old, best, singles))
        if i in opened and len(opened) > 1:
            better(opened - {i})
    return best
