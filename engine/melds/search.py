"""Exact search for a partition of a multiset of table items into valid melds.

Items: a natural card code (0..63), ``FREE`` (a joker whose meaning the search chooses),
or a *pinned* joker ``PIN + 64 * i + c`` (a joker that must keep meaning ``c`` and, in
Vatican, share its meld with one of the natural cards in ``partners[item]``).
Mandatory items must all be used; optional items (Tahiti's loose singles, the hand in
``best_subset``) may be left over.

The search takes the smallest non-joker item left and tries every meld that can hold it,
memoising dead ends. It is exact and simple; ``dp.py`` is the fast path for the common case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from engine import cards
from engine.melds.tablecards import JOKER_AS
from engine.melds.variants import Variant

_CountsKey = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]  # (mandatory, optional) items

FREE = 64
PIN = 1000


def meaning(item: int) -> int:
    return (item - PIN) % 64 if item >= PIN else item


def _card_at(pos: int, suit: int) -> int:
    return cards.make(14 if pos == 1 else pos, suit)


class Search:
    """One exact search; ``run()`` returns melds of table ints and the optional items used."""

    def __init__(self, variant: Variant, mandatory: Counter[int], optional: Counter[int] | None = None,
                 partners: Mapping[int, frozenset[int]] | None = None, max_nodes: int | None = None) -> None:
        self.v = variant
        self.mand = Counter({k: n for k, n in mandatory.items() if n > 0})
        self.opt = Counter({k: n for k, n in (optional or Counter()).items() if n > 0})
        self.partners = dict(partners or {})
        self.cap = variant.max_jokers_per_meld
        self.dead: set[_CountsKey] = set()
        self.nodes = 0
        self.max_nodes = max_nodes

    def run(self) -> tuple[list[list[int]], Counter[int]] | None:
        opt0 = Counter(self.opt)
        melds: list[list[int]] = []
        if not self._go(melds):
            return None
        return melds, opt0 - self.opt

    # -- the recursion -------------------------------------------------------------

    def _key(self) -> _CountsKey:
        return tuple(sorted((+self.mand).items())), tuple(sorted((+self.opt).items()))

    def _go(self, melds: list[list[int]]) -> bool:
        self.nodes += 1
        items = [k for k in (+self.mand) if k != FREE] + [k for k in (+self.opt) if k != FREE]
        if not items:
            return self.mand[FREE] == 0
        key = self._key()
        if key in self.dead:
            return False
        x = min(items)
        optional_x = self.mand[x] == 0
        for meld in self._melds_with(x):
            taken = self._take(meld)
            melds.append([t for _, t in meld])
            if self._go(melds):
                return True
            melds.pop()
            self._give(taken)
        if optional_x:
            self.opt[x] -= 1
            if self._go(melds):
                return True
            self.opt[x] += 1
        self.dead.add(key)
        return False

    def _take(self, meld: list[tuple[int, int]]) -> list[tuple[int, bool]]:
        taken = []
        for item, _ in meld:
            if self.mand[item] > 0:
                self.mand[item] -= 1
                taken.append((item, True))
            else:
                self.opt[item] -= 1
                taken.append((item, False))
        return taken

    def _give(self, taken: list[tuple[int, bool]]) -> None:
        for item, mandatory in taken:
            (self.mand if mandatory else self.opt)[item] += 1

    def _avail(self, item: int, used: Counter[int]) -> bool:
        return self.mand[item] + self.opt[item] - used[item] > 0

    def _fillers(self, code: int, used: Counter[int]) -> list[int]:
        """Items that can stand at ``code`` in a meld: the natural, a pinned joker, a free joker."""
        out = [code] if self._avail(code, used) else []
        out += [k for k in list(self.mand) + list(self.opt)
                if k >= PIN and meaning(k) == code and self._avail(k, used) and k not in out]
        if self._avail(FREE, used):
            out.append(FREE)
        return out

    def _ok(self, meld: list[tuple[int, int]]) -> bool:
        naturals = {item for item, _ in meld if item < 64}
        jokers = sum(1 for item, _ in meld if item >= 64)
        if not naturals or (self.cap is not None and jokers > self.cap):
            return False
        return all(self.partners.get(item, naturals) & naturals for item, _ in meld if item >= PIN)

    def _melds_with(self, x: int) -> list[list[tuple[int, int]]]:
        """Every meld (as (item, table int) pairs) that holds item ``x``."""
        out: list[list[tuple[int, int]]] = []
        c = meaning(x)
        rank, suit = cards.rank_of(c), cards.suit_of(c)
        seen: set[tuple[int, ...]] = set()
        # runs
        positions = [p for p in self.v.positions() if (p == rank or (rank == cards.ACE and p == 1))]
        lo_pos, hi_pos = self.v.positions()[0], self.v.positions()[-1]
        for q in positions:
            for a in range(q, lo_pos - 1, -1):
                for b in range(max(q, a + self.v.min_meld - 1), hi_pos + 1):
                    if a == 1 and b == 14:
                        continue
                    slots = [_card_at(p, suit) for p in range(a, b + 1)]
                    for meld in self._fill(slots, q - a, x):
                        k = tuple(sorted(i for i, _ in meld))
                        if k not in seen and self._ok(meld):
                            seen.add(k)
                            out.append(meld)
        # sets
        others = [cards.make(rank, s) for s in range(4) if s != suit]
        for mask in range(1 << 3):
            chosen = [others[i] for i in range(3) if mask >> i & 1]
            size = 1 + len(chosen)
            if size < self.v.min_meld or size > self.v.max_set:
                continue
            for meld in self._fill([c, *chosen], 0, x):
                k = tuple(sorted(i for i, _ in meld))
                if k not in seen and self._ok(meld):
                    seen.add(k)
                    out.append(meld)
        return out

    def _fill(self, slots: list[int], fixed: int, x: int) -> list[list[tuple[int, int]]]:
        """Assignments of items to ``slots`` (natural codes), slot ``fixed`` holding ``x``."""
        results: list[list[tuple[int, int]]] = []
        used: Counter[int] = Counter({x: 1})

        def rec(i: int, acc: list[tuple[int, int]]) -> None:
            if i == len(slots):
                results.append(list(acc))
                return
            if i == fixed:
                acc.append((x, _table_int(x, slots[i])))
                rec(i + 1, acc)
                acc.pop()
                return
            for item in self._fillers(slots[i], used):
                used[item] += 1
                acc.append((item, _table_int(item, slots[i])))
                rec(i + 1, acc)
                acc.pop()
                used[item] -= 1

        if x == FREE or (x >= PIN and meaning(x) != slots[fixed]) or (x < 64 and x != slots[fixed]):
            return []
        rec(0, [])
        return results


def _table_int(item: int, code: int) -> int:
    return code if item < 64 else JOKER_AS + code
