"""The table solver: a legal new table for the old one plus cards from a hand, or proof that
none exists; and the largest part of a hand that can go down.

``solve`` releases every joker that a real card can replace (a released joker may still
take its old meaning, so releasing never loses a solution), pins the others by the
variant's rule (Carousel: they move freely with their meaning; Vatican: they stay with a
natural card of their meld; Tahiti: their meld is frozen), then searches. It first tries to
keep every old meld (the added cards alone form new melds), then opens the melds near the added
cards, then the whole table; of the layouts that work it keeps the cheapest its search meets (the
fewest old melds changed, then old cards moved: ``least_change``).
Exact: None only when no legal arrangement exists. Deterministic: same input, same output.
"""

from __future__ import annotations

import functools
import gc
import itertools
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from engine import cards
from engine.melds import least_change
from engine.melds.dp import RankDP
from engine.melds.jokers import OldJoker, identity_matters, old_jokers, release_choices, release_sources
from engine.melds.layout import is_single
from engine.melds.search import FREE, PIN, Search, meaning
from engine.melds.tablecards import JOKER_AS, table_card_str
from engine.melds.validate import normalise
from engine.melds.variants import Variant

_P = ParamSpec("_P")
_R = TypeVar("_R")


_gc_lock = threading.Lock()
_gc_pausers = 0  # searches running now, in any thread
_gc_was_enabled = False  # the collector's state when the first of them started


def gc_paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` with the cyclic garbage collector off; the last search to finish gives it back as the
    first one found it.

    A search allocates some 100,000 small lists and tuples, none in a cycle; each such burst
    makes the collector run, and in a large process (the bot) its full passes walk every
    object there is: a 10 ms solve took 130 ms inside bench/rummy_lay.py until this. The collector's
    switch is process-wide and the bot searches in worker threads, hence the count under a lock: a
    search that ends while another runs must not switch it back on, nor leave it off for good."""

    @functools.wraps(fn)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        global _gc_pausers, _gc_was_enabled
        with _gc_lock:
            if _gc_pausers == 0:
                _gc_was_enabled = gc.isenabled()
                gc.disable()
            _gc_pausers += 1
        try:
            return fn(*args, **kwargs)
        finally:
            with _gc_lock:
                _gc_pausers -= 1
                if _gc_pausers == 0 and _gc_was_enabled:
                    gc.enable()

    return paused


@dataclass
class Solution:
    """A new table: ``table`` (melds in display order; Tahiti's loose singles as one-card
    melds), ``kept`` (old melds left unchanged), ``released_jokers`` (meanings of old jokers
    whose meaning changed)."""

    table: list[list[int]]
    kept: int
    released_jokers: list[int] = field(default_factory=list)


@dataclass
class _Instance:
    fixed: list[list[int]]
    mand: Counter[int]
    opt: Counter[int]
    partners: dict[int, frozenset[int]]
    natural_like: Counter[int]


def _instances(variant: Variant, table: Sequence[Sequence[int]], added: Sequence[int]) -> Iterator[_Instance]:
    jokers = old_jokers(table)
    sources = release_sources(variant, table, added)
    for released in release_choices(variant, jokers, sources):
        yield _instance(variant, table, added, jokers, released)


def _instance(variant: Variant, table: Sequence[Sequence[int]], added: Sequence[int], jokers: list[OldJoker],
              released: frozenset[int]) -> _Instance:
    """The items to partition when the old jokers ``released`` (indices) are released."""
    added_items = Counter(FREE if c == cards.JOKER else c for c in added)
    fixed: list[list[int]] = []
    mand: Counter[int] = Counter(added_items)
    opt: Counter[int] = Counter()
    partners: dict[int, frozenset[int]] = {}
    natural_like: Counter[int] = Counter()
    frozen = {j.meld for i, j in enumerate(jokers) if i not in released} if variant.joker_meld_frozen else set()
    pin = 0
    for m, meld in enumerate(table):
        if m in frozen:
            fixed.append(list(meld))
            continue
        if is_single(variant, meld):
            opt[FREE if meld[0] >= 64 else meld[0]] += 1
            continue
        for x in meld:
            if x < 64:
                mand[x] += 1
    for i, j in enumerate(jokers):
        if j.meld in frozen:
            continue
        if i in released:
            mand[FREE] += 1
        elif variant.joker_stays_in_meld:
            item = PIN + 64 * pin + j.meaning
            pin += 1
            mand[item] += 1
            partners[item] = frozenset(x for x in table[j.meld] if x < 64)
        else:
            mand[j.meaning] += 1
            natural_like[j.meaning] += 1
    return _Instance(fixed, mand, opt, partners, natural_like)


def partition(variant: Variant, mand: Counter[int], opt: Counter[int] | None = None,
              partners: dict[int, frozenset[int]] | None = None,
              budget: int | None = None) -> tuple[list[list[int]], Counter[int]] | None:
    """Melds using every item of ``mand`` and some of ``opt`` (all but at most ``budget`` of
    them when it is given), or None. The rank programme when it applies, else the search."""
    opt = opt or Counter()
    if partners and any(mand[k] for k in partners):
        return _pinned(variant, mand, opt, partners, budget)
    free = mand[FREE] + opt[FREE]
    if budget is None and _some_card_fits_nowhere(variant, mand, opt):
        return None
    if variant.max_jokers_per_meld is not None or free <= variant.min_meld - 1:
        m = [mand[c] for c in range(64)]
        o = [opt[c] for c in range(64)]
        found = RankDP(variant, m, o, mand[FREE], opt[FREE], budget).solve()
        if found is None:
            return None
        melds, opt_used, free_used = found
        used = Counter({c: n for c, n in enumerate(opt_used) if n})
        if free_used:
            used[FREE] = free_used
        return melds, used
    if budget is not None:  # more free jokers than a real game has: try each subset
        for size in range(sum(opt.values()), sum(opt.values()) - budget - 1, -1):
            for sub in sorted(set(itertools.combinations(sorted(opt.elements()), size))):
                searched = Search(variant, mand + Counter(sub)).run()
                if searched is not None:
                    return searched[0], Counter(sub)
        return None
    return Search(variant, mand, opt).run()


def _some_card_fits_nowhere(variant: Variant, mand: Counter[int], opt: Counter[int]) -> bool:
    """A cheap refutation: a card that must go down but no meld of the pool could hold."""
    pool = mand + opt
    return any(c < 64 and not _card_fits(variant, pool, c) for c in mand)


def _card_fits(variant: Variant, pool: Counter[int], c: int) -> bool:
    """Whether some meld could hold natural ``c`` with the other items of ``pool`` (``FREE``
    jokers fill any place): a set, or a run of the shortest length (a longer run holding ``c``
    has such a piece)."""
    jokers = pool[FREE]
    cap = min(jokers, variant.max_jokers_per_meld if variant.max_jokers_per_meld is not None else jokers)
    lo, hi = variant.positions()[0], variant.positions()[-1]
    r, su = cards.rank_of(c), cards.suit_of(c)
    others = sum(1 for t in range(4) if t != su and pool[cards.make(r, t)])
    if others + min(cap, 3 - others) >= variant.min_meld - 1:
        return True
    for q in _positions(c):
        if not lo <= q <= hi:
            continue
        for a in range(max(lo, q - variant.min_meld + 1), q + 1):
            b = a + variant.min_meld - 1
            if b > hi:
                break
            missing = sum(1 for p in range(a, b + 1) if p != q and not pool[cards.make(14 if p == 1 else p, su)])
            if missing <= cap:
                return True
    return False


def _relaxed(mand: Counter[int]) -> Counter[int]:
    """The relaxation of the pinned searches: each pinned joker taken as just the card it stands for."""
    relaxed: Counter[int] = Counter()
    for k, n in mand.items():
        relaxed[meaning(k) if k >= PIN else k] += n
    return relaxed


def _without_meld(mand: Counter[int], opt: Counter[int],
                  meld: list[tuple[int, int]]) -> tuple[Counter[int], Counter[int], Counter[int]]:
    """What is left to arrange once a pinned joker's ``meld`` (item, table int pairs) is laid: the
    mandatory and optional items less the meld's (mandatory ones first), and the optional items it took."""
    rest_m, rest_o = Counter(mand), Counter(opt)
    took: Counter[int] = Counter()
    for item, _ in meld:
        if rest_m[item] > 0:
            rest_m[item] -= 1
        else:
            rest_o[item] -= 1
            took[item] += 1
    return rest_m, rest_o, took


def _pinned(variant: Variant, mand: Counter[int], opt: Counter[int], partners: dict[int, frozenset[int]],
            budget: int | None) -> tuple[list[list[int]], Counter[int]] | None:
    """Vatican's jokers that keep their meaning must share a meld with a natural card of their
    old meld. First the relaxation (such a joker is just its card): no arrangement there means
    none at all; if its arrangement already obeys the rule it is the answer. Otherwise every
    meld the joker may end in is tried, the rest solved again."""
    pins = sorted(k for k in mand if k >= PIN and mand[k])
    relaxed = _relaxed(mand)
    found = partition(variant, relaxed, opt, None, budget)
    if found is None:
        return None
    melds, used = found
    if _place_pins(melds, pins, partners):
        return melds, used
    x = pins[0]
    for meld in _pin_melds(variant, mand, opt, partners, x):
        rest_m, rest_o, took = _without_meld(mand, opt, meld)
        sub = partition(variant, +rest_m, +rest_o, partners, budget)
        if sub is not None:
            return [[t for _, t in meld], *sub[0]], sub[1] + took
    return None


def _pin_melds(variant: Variant, mand: Counter[int], opt: Counter[int], partners: dict[int, frozenset[int]],
               x: int) -> list[list[tuple[int, int]]]:
    """The melds pinned joker ``x`` may end in, as (item, table int) pairs, but no run that cuts
    into two runs each keeping every pinned joker in it next to a partner: an arrangement with
    such a run has the same cards laid as its two pieces, and the piece holding ``x`` is one of
    the melds tried (the other goes with the rest)."""
    melds = [meld for meld in Search(variant, mand, opt, partners)._melds_with(x)
             if not any(_keeps_pins(meld[:k], partners) and _keeps_pins(meld[k:], partners)
                        for k in range(variant.min_meld, len(meld) - variant.min_meld + 1))
             or len({cards.rank_of(t % JOKER_AS) for _, t in meld}) == 1]
    # the leanest first (fewest free jokers, fewest cards: the rest keeps the most to work
    # with), then the most like its old meld: a good answer early bounds the other branches
    old = partners[x]
    melds.sort(key=lambda meld: (sum(1 for item, _ in meld if item == FREE), len(meld),
                                 -len(old & {item for item, _ in meld})))
    return melds


def _keeps_pins(piece: list[tuple[int, int]], partners: dict[int, frozenset[int]]) -> bool:
    """Whether ``piece`` holds a natural card and each pinned joker in it a partner of its own."""
    naturals = {item for item, _ in piece if item < 64}
    return bool(naturals) and all(partners[item] & naturals for item, _ in piece if item >= PIN)


def _place_pins(melds: list[list[int]], pins: list[int], partners: dict[int, frozenset[int]]) -> bool:
    """Turn one natural of each pinned joker's meaning into that joker, in a meld that holds one
    of its partners; False (melds unchanged) if that cannot be done."""
    if not pins:
        return True
    x, rest = pins[0], pins[1:]
    c = meaning(x)
    for meld in melds:
        if c in meld and partners[x] & {y for y in meld if y < 64}:
            i = meld.index(c)
            meld[i] = JOKER_AS + c
            if _place_pins(melds, rest, partners):
                return True
            meld[i] = c
    return False


def _key(variant: Variant, meld: Sequence[int]) -> tuple[int, ...]:
    return tuple(normalise(variant, meld))


def _pin_jokers(variant: Variant, melds: list[list[int]], natural_like: Counter[int],
                old_keys: Counter[tuple[int, ...]]) -> None:
    """Turn ``natural_like[c]`` natural ``c`` back into jokers meaning ``c``, preferring melds
    that then equal an old meld (so they count as kept)."""
    for c, k in sorted(natural_like.items()):
        for prefer_old in (True, False):
            for meld in melds:
                while k and c in meld and sum(1 for x in meld if x < 64) > 1:
                    trial = list(meld)
                    trial[trial.index(c)] = JOKER_AS + c
                    if prefer_old and old_keys[_key(variant, trial)] == 0:
                        break
                    meld[:] = trial
                    k -= 1
        if k:
            raise AssertionError("solver lost a joker")  # cannot happen: c was counted in


def _finish(variant: Variant, table: Sequence[Sequence[int]], melds: list[list[int]]) -> Solution:
    melds = [normalise(variant, m) if len(m) > 1 else list(m) for m in melds]
    melds.sort(key=lambda m: (len(m) == 1, m))
    old = Counter(_key(variant, m) for m in table if not is_single(variant, m))
    new = Counter(_key(variant, m) for m in melds)
    kept = sum((old & new).values())
    old_j = Counter(x - JOKER_AS for m in table for x in m if x >= JOKER_AS)
    new_j = Counter(x - JOKER_AS for m in melds for x in m if x >= JOKER_AS)
    released = sorted((old_j - new_j).elements())
    return Solution(melds, kept, released)


@gc_paused
def solve(variant: Variant, table: Sequence[Sequence[int]], added: Sequence[int]) -> Solution | None:
    """A legal new table holding every old table card and every card of ``added``, or None; of those
    the search meets, the one changing the fewest old melds, then moving the fewest old cards
    (``least_change``: a proposal shows what was laid, not a reshuffled table).

    A first layout, the first that works: the added cards alone (every old meld kept); the added
    cards with the old melds near them (the others kept); the whole table. Then ``least_change.cheapest``
    keeps as many old melds whole as it can."""
    rows = [list(m) for m in table]
    keep_all = partition(variant, Counter(FREE if c == cards.JOKER else c for c in added))
    if keep_all is not None:
        return _finish(variant, rows, [*rows, *keep_all[0]])
    first = _first_layout(variant, rows, added)
    if first is None:
        return None

    def attempt(opened: frozenset[int]) -> list[list[int]] | None:
        local = _solve_all(variant, [rows[i] for i in sorted(opened)], added)
        return None if local is None else [*(m for i, m in enumerate(rows) if i not in opened), *local]

    return _finish(variant, rows, least_change.cheapest(variant, rows, added, first, attempt, _orphans(variant, added)))


def _orphans(variant: Variant, added: Sequence[int]) -> list[int]:
    """The added cards no meld of the added cards alone could hold (each needs an old meld opened)."""
    pool = Counter(FREE if c == cards.JOKER else c for c in added)
    out = []
    for c in added:
        if c != cards.JOKER:
            pool[c] -= 1
            if not _card_fits(variant, pool, c):
                out.append(c)
            pool[c] += 1
    return out


def _first_layout(variant: Variant, rows: list[list[int]], added: Sequence[int]) -> list[list[int]] | None:
    """Some layout, found fast: the old melds near the added cards opened, else the whole table."""
    tried: set[int] = set()
    for radius in (1, 2):
        near = _near_melds(variant, rows, added, radius)
        if not near or len(near) == len(rows) or len(near) in tried:
            continue
        tried.add(len(near))
        local = _solve_all(variant, [rows[i] for i in near], added)
        if local is not None:
            return [*(m for i, m in enumerate(rows) if i not in near), *local]
    return _solve_all(variant, rows, added)


def _positions(c: int) -> list[int]:
    r = cards.rank_of(c)
    return [1, 14] if r == cards.ACE else [r]


def _near_melds(variant: Variant, table: Sequence[Sequence[int]], added: Sequence[int], radius: int) -> set[int]:
    """Old melds with a card of an added card's rank, or of its suit within two places;
    ``radius`` 2 adds the melds near those."""
    seeds = [c for c in added if c != cards.JOKER]
    if any(c == cards.JOKER for c in added):
        return set(range(len(table)))  # a joker may go anywhere
    chosen: set[int] = set()
    for _ in range(radius):
        marks = {(cards.rank_of(c), -1) for c in seeds}
        marks |= {(p + d, cards.suit_of(c)) for c in seeds for p in _positions(c) for d in range(-2, 3)}
        new = set()
        for i, meld in enumerate(table):
            if i in chosen:
                continue
            for x in meld:
                c = x - JOKER_AS if x >= JOKER_AS else x
                if (cards.rank_of(c), -1) in marks or any((p, cards.suit_of(c)) in marks for p in _positions(c)):
                    new.add(i)
                    break
        chosen |= new
        seeds = [x - JOKER_AS if x >= JOKER_AS else x for i in new for x in table[i] if x != cards.JOKER]
    return chosen


def _solve_all(variant: Variant, table: list[list[int]], added: Sequence[int]) -> list[list[int]] | None:
    """Melds for the whole of ``table`` plus ``added`` (no old meld kept on purpose), or None."""
    old_keys = Counter(_key(variant, m) for m in table if not is_single(variant, m))
    for inst in _instances(variant, table, added):
        found = partition(variant, inst.mand, inst.opt, inst.partners)
        if found is None:
            continue
        melds, used = found
        left = inst.opt - used
        melds = [*inst.fixed, *melds]
        _pin_jokers(variant, melds, inst.natural_like, old_keys)
        singles = [[cards.JOKER if x == FREE else x] for x in sorted(left.elements())]
        return [*melds, *singles]
    return None


def explain_no_solution(variant: Variant, table: Sequence[Sequence[int]], added: Sequence[int]) -> str:
    """One line naming a card for a move that ``solve`` refuses."""
    table = [list(m) for m in table]
    everything = [x for m in table for x in m] + list(added)
    for c in added:
        if c != cards.JOKER and not _fits_somewhere(variant, everything, c):
            return f"no meld can hold {table_card_str(c)} with the cards on this table"
    names = " ".join(table_card_str(c) for c in added)
    first = table_card_str(added[0]) if added else "these cards"
    return f"no arrangement of the table uses {first} ({names}) with every table card in a valid meld"


def _fits_somewhere(variant: Variant, everything: Sequence[int], c: int) -> bool:
    """Whether some meld could hold ``c`` with ``everything`` else (hand and table cards); a
    joker on the table counts as free (it might be released), so a False is a proof."""
    pool = Counter(FREE if x == cards.JOKER or x >= JOKER_AS else x for x in everything)
    pool[c] -= 1
    return _card_fits(variant, pool, c)


_POINTS = {cards.ACE: 11, cards.KING: 10, cards.QUEEN: 10, cards.JACK: 10}


def card_points(card: int) -> int:
    """Tie-break weight in best_subset: face value, pictures 10, ace 11, joker 30."""
    if card == cards.JOKER:
        return 30
    r = cards.rank_of(card)
    return _POINTS.get(r, r)


@gc_paused
def best_subset(variant: Variant, table: Sequence[Sequence[int]], hand: Sequence[int]) -> list[int]:
    """The largest non-empty part of ``hand`` that can go down with the table, sorted; [] if no
    card can. Among parts of that size the first the search meets wins (deterministic).

    For each way of releasing the old jokers (a joker released by a hand card makes that card
    go down), the most released first, the rank programme asks whether all hand cards but 0,
    1, 2, ... can go down (``RankDP.fewest_left_out``: one memo for all, each question stops
    at its first arrangement); Tahiti's loose singles may stay out at no cost."""
    table = [list(m) for m in table]
    everything = [x for m in table for x in m] + list(hand)
    usable = sorted(c for c in hand if c == cards.JOKER or _fits_somewhere(variant, everything, c))
    if not usable:
        return []
    if partition(variant, Counter(FREE if c == cards.JOKER else c for c in usable)) is not None:
        return usable  # the hand alone makes melds
    best: list[int] = []
    lo = 0
    for forced, inst, dominant in _subset_instances(variant, table, usable):
        opt = Counter(FREE if c == cards.JOKER else c for c in usable) - Counter(forced)
        if len(forced) + sum(opt.values()) <= len(best):
            continue  # cannot put down more than the best so far
        subset = _most_down(variant, inst, forced, opt, len(best) + 1, lo)
        if len(subset) > len(best):
            best = subset
        if len(best) == len(usable) - lo:
            break
        if dominant:
            lo = 1  # the whole hand cannot go down in any other instance either
    return best


def _most_down(variant: Variant, inst: _Instance, forced: list[int], opt: Counter[int], at_least: int,
               lo: int = 0) -> list[int]:
    """``forced`` plus as many of the hand cards ``opt`` as can go down, if that makes
    ``at_least`` cards; else []. ``inst.opt`` (Tahiti's loose singles) may go down too, at no
    gain. ``lo``: so many hand cards are known to stay out at least."""
    found = _most_down_melds(variant, inst, forced, opt, at_least, lo)
    return found[0] if found else []


Down = tuple[list[int], list[list[int]]]  # (hand cards down, the melds they make with the table)


def _most_down_melds(variant: Variant, inst: _Instance, forced: list[int], opt: Counter[int], at_least: int,
                     lo: int) -> Down | None:
    if inst.partners and any(inst.mand[k] for k in inst.partners):
        return _most_down_pinned(variant, inst, forced, opt, at_least, lo)
    pool = opt + inst.opt
    if variant.max_jokers_per_meld is None and inst.mand[FREE] + pool[FREE] > variant.min_meld - 1:
        return _most_down_bisect(variant, inst, forced, opt, at_least, lo)
    most_out = len(forced) + sum(opt.values()) - at_least
    if most_out < lo:
        return None
    dp = RankDP(variant, [inst.mand[c] for c in range(64)], [pool[c] for c in range(64)], inst.mand[FREE],
                pool[FREE], budget=0, hand=[opt[c] for c in range(64)], hand_jokers=opt[FREE])
    found = dp.fewest_left_out(lo, most_out)
    if found is None:
        return None
    _, (melds, opt_used, free_used) = found
    down = [c for c in range(64) for _ in range(min(opt_used[c], opt[c]))]
    down += [cards.JOKER] * min(free_used, opt[FREE])
    return sorted(forced + down), melds


def _most_down_pinned(variant: Variant, inst: _Instance, forced: list[int], opt: Counter[int],
                      at_least: int, lo: int) -> Down | None:
    """Vatican's jokers that keep their meaning: the answer without their rule bounds the answer
    from above; if its arrangement can keep the rule it is the answer, else ``_least_out``
    branches from that bound (the bisection only with more free jokers than the rank programme
    takes)."""
    relaxed: Counter[int] = Counter()
    for k, n in inst.mand.items():
        relaxed[meaning(k) if k >= PIN else k] += n
    bound = _most_down_melds(variant, _Instance(inst.fixed, relaxed, inst.opt, {}, inst.natural_like), forced,
                             opt, at_least, lo)
    if bound is None:
        return None
    pins = sorted(k for k in inst.mand if k >= PIN and inst.mand[k])
    if _place_pins(bound[1], pins, inst.partners):
        return bound
    n = sum(opt.values())
    out = len(forced) + n - len(bound[0])
    if inst.opt or inst.mand[FREE] + opt[FREE] > variant.min_meld - 1:
        return _most_down_bisect(variant, inst, forced, opt, at_least, out)
    hi = min(n - (0 if forced else 1), len(forced) + n - at_least)
    down = Counter(FREE if c == cards.JOKER else c for c in bound[0]) - Counter(forced)
    least = _least_out(variant, inst.mand, opt, inst.partners, out, hi, (out, bound[1], down))
    if least is None:
        return None
    melds, used = least[1], least[2]
    return sorted(forced + [cards.JOKER if c == FREE else c for c in used.elements()]), melds


Least = tuple[int, list[list[int]], Counter[int]]  # (items of opt left out, melds, items of opt used)


def _least_out(variant: Variant, mand: Counter[int], opt: Counter[int], partners: dict[int, frozenset[int]],
               lo: int, hi: int, relaxed_answer: Least | None = None) -> Least | None:
    """The fewest items of ``opt`` (all weighing 1) left out in ``lo..hi`` with every item of
    ``mand`` down, Vatican's pinned jokers included, or None. Branch and bound: the answer
    without the pins' rule bounds it from below (and is the answer when the pins fit its
    melds); else every meld the first pin may end in is tried, each branch asked one
    ``fewest_left_out`` (one memo for all its budgets, not one search per budget as a bisection
    needs) below the best branch so far, and the search stops at the bound. At most
    ``min_meld - 1`` free jokers (the rank programme's case). ``relaxed_answer``: the answer
    without the rule when the caller has it."""
    if lo > hi:
        return None
    pins = sorted(k for k in mand if k >= PIN and mand[k])
    if relaxed_answer is None:
        relaxed = _relaxed(mand)
        dp = RankDP(variant, [relaxed[c] for c in range(64)], [opt[c] for c in range(64)], relaxed[FREE],
                    opt[FREE], budget=0)
        got = dp.fewest_left_out(lo, hi)
        if got is None:
            return None
        out, (melds, opt_used, free_used) = got
        used = Counter({c: k for c, k in enumerate(opt_used) if k})
        if free_used:
            used[FREE] = free_used
        if _place_pins(melds, pins, partners):
            return out, melds, used
    else:
        out = relaxed_answer[0]
    best: Least | None = None
    for meld in _pin_melds(variant, mand, opt, partners, pins[0]):
        rest_m, rest_o, took = _without_meld(mand, opt, meld)
        sub = _least_out(variant, +rest_m, +rest_o, partners, out, hi if best is None else best[0] - 1)
        if sub is not None:
            best = sub[0], [[t for _, t in meld], *sub[1]], sub[2] + took
            if best[0] == out:
                break
    return best


def _most_down_bisect(variant: Variant, inst: _Instance, forced: list[int], opt: Counter[int], at_least: int,
                      lo: int = 0) -> Down | None:
    """The decision version, asked for more and more hand cards left out (from ``lo``, a
    lower bound on how many must stay out), then bisected. Only for Vatican's pinned jokers and
    for more free jokers than a real deck has: never with Tahiti's loose singles."""
    assert not inst.opt, "loose singles take the rank programme"
    n = sum(opt.values())
    limit = min(n - (0 if forced else 1), len(forced) + n - at_least)  # most cards left out worth trying
    if limit < lo:
        return None
    b = lo
    found = partition(variant, inst.mand, opt, inst.partners, b)
    while found is None:
        if b >= limit:
            return None
        lo, b = b + 1, min(limit, max(b + 1, 2 * b))
        found = partition(variant, inst.mand, opt, inst.partners, b)
    hi = b
    while lo < hi:
        mid = (lo + hi) // 2
        trial = partition(variant, inst.mand, opt, inst.partners, mid)
        if trial is not None:
            hi, found = mid, trial
        else:
            lo = mid + 1
    return sorted(forced + [cards.JOKER if c == FREE else c for c in found[1].elements()]), found[0]


def _subset_instances(variant: Variant, table: Sequence[Sequence[int]],
                      hand: Sequence[int]) -> Iterator[tuple[list[int], _Instance, bool]]:
    """(hand cards that must go down, instance, dominant) for every way of releasing old
    jokers, the most released first. ``dominant``: every other way can put down the whole hand
    only if this one can (it releases every joker any way releases)."""
    jokers = old_jokers(table)
    on_table = Counter() if variant.swap_from_hand_only else release_sources(variant, table, [])
    in_hand = Counter(hand)
    by_meaning: dict[int, list[int]] = {}
    for i, j in enumerate(jokers):
        by_meaning.setdefault(j.meaning, []).append(i)
    per_meaning = []
    dominant = True
    for c, idx in sorted(by_meaning.items()):
        options: list[tuple[tuple[int, ...], list[int]]] = []
        # releasing never loses an arrangement, so a joker a table card can release is released
        for k in range(min(len(idx), on_table[c] + in_hand[c]), min(len(idx), on_table[c]) - 1, -1):
            combos = list(itertools.combinations(idx, k)) if identity_matters(variant) else [tuple(idx[:k])]
            if not options and len(combos) > 1:
                dominant = False
            options += [(combo, max(0, k - on_table[c]) * [c]) for combo in combos]
        per_meaning.append(options)
    for choice in itertools.product(*per_meaning):
        released = frozenset(i for combo, _ in choice for i in combo)
        forced = sorted(c for _, cs in choice for c in cs)
        yield forced, _instance(variant, table, forced, jokers, released), dominant
        dominant = False
