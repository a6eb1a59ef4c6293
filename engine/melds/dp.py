"""The fast exact solver: a dynamic programme over run positions (van Rijn, Takes & Vis 2015).

Positions run from the low ace (1) to the high ace (14) as the variant allows. Going up the
positions, and through the four suits at each one, the state holds, per suit, the open runs
(each by length class 1, 2 or "3 or more", and in variants with a joker limit the number of
jokers in it), the cards of the current rank put aside for sets, the free jokers left and the
weight of optional cards that may still be left out; when an ace may be high or low, how
many aces of each suit were kept for the top is a bit mask answered by each state instead
(see ``RankDP``). At the end of a position the cards put aside must split into sets (a small
precomputed table). A run of length 1 or 2 must go on; a longer one may stop. The number of
states is polynomial in the number of positions for a fixed number of suits, packs and jokers;
states are packed into ints, and the search stops at the first arrangement.

Mandatory cards must all be used; optional ones (Tahiti's loose singles, the hand in
``best_subset``) may stay out; with a budget the programme asks whether all but that much
weight of the optional cards can go down, and ``fewest_left_out`` finds the least budget.
Jokers are all free here (their meaning is chosen); jokers that must keep a meaning are
natural cards to this solver. Lean mode (the default) searches arrangements without spare
jokers and places the jokers left afterwards; a long search takes turns with the same
search read from the top down (``mirror.py``), which ends far sooner when what decides the
answer lies at the high ranks; ``windows.py`` bounds long ``best_subset`` searches from a
few positions at a time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

from engine import cards
from engine.melds.mirror import mirror_counts, mirror_found, mirror_variant
from engine.melds.tablecards import JOKER_AS
from engine.melds.validate import run_positions, why_invalid
from engine.melds.variants import Variant
from engine.melds.windows import window_problems

_RB = 12  # bits of a suit's open-runs id in a packed place
_RMASK = (1 << _RB) - 1
_XB = 4  # bits of a suit's naturals put aside
_XMASK = (1 << _XB) - 1
_XAT = 4 * _RB  # where the put-aside counts start
_STEPAT = _XAT + 4 * _XB  # where 5 * position index + suit starts
_JAT = _STEPAT + 8  # where the jokers left start (in a memo key)
_BAT = _JAT + 8  # where the budget left starts


# window width: states a search may visit before asking those windows (measured on bench/melds.py:
# wider windows or asking earlier cost more than they save)
_WINDOWS = {3: 10_000}
# states a search visits before it takes turns with the mirrored one (``mirror.py``): the first
# turn of the one that leads (the other's is half as long); measured on bench/melds.py: 10,000 left
# Vatican's best_subset p99 where it was, 3,000 did less; a plain decision (``solve``) waits longer,
# as the searches that lose most to the race (Carousel's of 1,000..3,000 states) are such
_RACE_VISITS = 1_000
_RACE_SOLVE = 3_000
# a plain decision first gives each search a short turn of this many states, so a solve the
# mirrored search answers within a few hundred states (the reason lies at the top) no longer
# waits for the upward one's 3,000; simulated on the state counts of both searches of every solve
# of 600 bench positions a variant (3 us a state, 0.9 ms to build the mirror): p99 up to 40% less
# (Guadalupe, Machiavelli, Manipulation; Tahiti 16%), mean 5% to 15% less, none worse
_RACE_PROBE = 300
_RACE_GROWTH = 2  # each round of turns, the allowances grow this much
# states one window problem may visit (bench/melds.py: 1,000 gave up on the windows that prove
# Tahiti's hardest best_subset hands)
_WINDOW_VISITS = 5_000


class _OutOfTime(Exception):
    """A search ran past its allowance of states (it is asked again later with more)."""


def _card_at(pos: int, suit: int) -> int:
    return cards.make(14 if pos == 1 else pos, suit)


SetSplit = tuple[tuple[tuple[int, ...], int], ...]  # per set: (its suits, its jokers)
Runs = tuple[tuple[int, ...], ...]  # per suit: its open runs' codes
StepKey = tuple[int, int, Runs, tuple[int, ...], int, int, tuple[int, ...]]  # (pi, s, runs, x, fm, fo, res)
# A rebuilding step's choice: a set split (j, jm, jo) or a run move (total, move, jm, jo, res); read by
# position, so a union of the two tuple types would not narrow.
Choice = tuple[Any, ...]


@cache
def set_split(x: tuple[int, ...], jokers: int, cap: int, max_set: int, min_meld: int,
              lean: bool = False) -> SetSplit | None:
    """Split ``x[s]`` naturals of each suit (one rank) plus ``jokers`` into sets of distinct
    suits; a witness ((suits...), jokers) per set, or None. ``cap``: jokers per meld.
    ``lean``: a set holds a joker only to reach the least size (see ``RankDP``)."""
    if not any(x):
        return () if jokers == 0 else None
    first = next(s for s in range(4) if x[s])
    rest = [s for s in range(4) if x[s] and s != first]
    for mask in range(1 << len(rest)):
        suits = (first, *[rest[i] for i in range(len(rest)) if mask >> i & 1])
        for k in range(0, min(cap, jokers, max_set - len(suits)) + 1):
            if len(suits) + k < min_meld or (lean and k and len(suits) + k > min_meld):
                continue
            nx = list(x)
            for s in suits:
                nx[s] -= 1
            sub = set_split(tuple(nx), jokers - k, cap, max_set, min_meld, lean)
            if sub is not None:
                return ((suits, k), *sub)
    return None


TOP = 16  # flag: a run that began with a joker; it must reach the last position (see below)
TAIL = 32  # flag (lean mode): the run ends in a joker it did not need; it may not stop here
NEW_NATURAL = 4  # length class 1, no joker


def new_joker(cap: int | None) -> int:
    """A run that begins with a joker. Such a run can always be shifted up one place (the joker
    moved from its bottom to its top) unless it ends at the last position, so only runs that
    reach the top need to begin with a joker: the flag ``TOP`` forbids stopping earlier."""
    return TOP | 4 | (1 if cap is not None else 0)


def next_code(code: int, joker: bool, cap: int | None, lean: bool = False) -> int:
    """The run code after one more card (a joker counts only under a joker limit). In lean
    mode a joker after three or more cards marks the run ``TAIL`` until a natural follows."""
    old = (code >> 2) & 3
    cls = min(old + 1, 3)
    j = (code & 3) + (1 if joker and cap is not None else 0)
    tail = TAIL if lean and joker and (old == 3 or code & TAIL) else 0
    return (code & TOP) | tail | cls << 2 | j


# (new runs, naturals to sets, naturals used, jokers used, plan, short runs, runs of one, a TOP run)
Move = tuple[tuple[int, ...], int, int, int, tuple[int, ...], int, int, bool]
# a solution: (melds, optional naturals used per code, optional jokers used)
Found = tuple[list[list[int]], list[int], int]


@lru_cache(maxsize=200_000)
def _suit_moves(runs: tuple[int, ...], total: int, jokers: int, cap: int | None, allow_sets: bool,
                can_continue: bool, lean: bool = False) -> tuple[Move, ...]:
    """Ways one suit's open ``runs`` (codes ``cls*4 + j``) meet ``total`` naturals and at most
    ``jokers`` jokers at one position: (new runs, naturals to sets, naturals used, jokers used,
    plan) where plan says per old run: 0 natural, 1 joker, 2 stop; then new runs (cls 1)."""
    out: list[Move] = []
    groups: list[tuple[int, int]] = []
    for r in runs:
        if groups and groups[-1][0] == r:
            groups[-1] = (r, groups[-1][1] + 1)
        else:
            groups.append((r, 1))

    def rec(gi: int, nat: int, jok: int, new: list[int], plan: list[int]) -> None:
        if gi == len(groups):
            stopped = any(plan[3 * g + 2] for g in range(len(groups)))
            free_nat = total - nat
            # new runs from naturals (k_n) and from jokers (k_j); the rest of the naturals go to sets
            for k_n in range(0, free_nat + 1):
                x = free_nat - k_n
                if x and not allow_sets:
                    continue
                for k_j in range(0, jokers - jok + 1):
                    if not can_continue and (k_n or k_j):
                        break
                    if cap is None and stopped and (k_n or k_j):
                        break  # merging the stopped run with the new one is as good
                    if cap is None and ((jok and (x or k_n)) or (k_j and x)):
                        # without a joker limit a natural takes a joker's place here: a joker
                        # going on in an old run swaps with a natural to a set or a new run
                        # (a new run led by a joker shifts up, see ``new_joker``), a joker
                        # leading a new run with a natural to a set. Not a joker-led new run
                        # with a natural-led one: swapped, they are the same (QD-KD-AD with
                        # JK-KD-AD needs both)
                        continue
                    nr = new + [NEW_NATURAL] * k_n + [new_joker(cap)] * k_j
                    short = sum(1 for r in nr if (r >> 2) & 3 < 3)
                    ones = sum(1 for r in nr if (r >> 2) & 3 == 1)
                    top = any(r & TOP for r in nr)
                    out.append((tuple(sorted(nr)), x, total, jok + k_j, (*plan, k_n, k_j), short, ones, top))
            return
        code, n = groups[gi]
        cls, j = (code >> 2) & 3, code & 3
        joker_ok = can_continue and (cap is None or j < cap)
        for a_stop in range(0, (n if cls == 3 and not code & (TOP | TAIL) else 0) + 1):
            for a_jok in range(0, (n - a_stop if joker_ok else 0) + 1):
                a_nat = n - a_stop - a_jok
                if a_nat and not can_continue:
                    continue
                if nat + a_nat > total or jok + a_jok > jokers:
                    continue
                rec(gi + 1, nat + a_nat, jok + a_jok,
                    new + [next_code(code, False, cap, lean)] * a_nat + [next_code(code, True, cap, lean)] * a_jok,
                    plan + [a_nat, a_jok, a_stop])

    rec(0, 0, 0, [], [])
    return tuple(out)


class RankDP:
    """One run of the programme; ``solve()`` returns (melds, optional naturals used, optional
    jokers used) or None. ``budget``: at most that much weight of optional cards left out
    (None: any number, plain feasibility). Weights: ``hand[c]`` of the ``opt[c]`` copies of a
    card and ``hand_jokers`` of the ``free_o`` optional jokers weigh 1, the rest 0 (Tahiti's
    loose table singles may stay out for free); by default every optional card weighs 1.
    ``fewest_left_out`` asks for growing budgets with one memo."""

    def __init__(self, variant: Variant, mand: Sequence[int], opt: Sequence[int], free_m: int, free_o: int,
                 budget: int | None = None, hand: Sequence[int] | None = None,
                 hand_jokers: int | None = None, lean: bool = True, windows: bool = True,
                 max_visits: int = 1 << 62, mirror: bool = True) -> None:
        self.v = variant
        self.mand = list(mand)
        self.opt = list(opt)
        self.fm0 = free_m
        self.fo0 = free_o
        self.cap = variant.max_jokers_per_meld
        self.budget = budget
        self.hand = list(opt) if hand is None else list(hand)
        self.hand_jokers = free_o if hand_jokers is None else hand_jokers
        self.lean = lean and free_m + free_o > 0
        self.windows = windows
        self.max_visits = max_visits  # past it the answer is given up (_OutOfTime)
        self.mirror = mirror and max_visits == 1 << 62  # long searches race the mirrored one
        self.mirrored: RankDP | None = None
        self.mirror_leads = False  # the mirrored search has the first turn (see ``_search``)
        self.turns: dict[int, list[tuple[int, int]]] = {}  # per budget: where its search stopped
        self.pos = list(variant.positions())
        self.both = variant.ace == "both"
        self.last = len(self.pos)
        # naturals of each suit at each position index (a position past the end holds none)
        self.ahead = [[self.mand[_card_at(p, su)] + self.opt[_card_at(p, su)] for su in range(4)]
                      for p in self.pos] + [[0] * 4, [0] * 4]
        # suits after ``s`` with naturals at each position index, and how many naturals
        self.future = [[(sum(1 for t in range(s + 1, 4) if self.ahead[i][t]),
                         sum(self.ahead[i][t] for t in range(s + 1, 4))) for s in range(4)]
                       for i in range(self.last)]
        # positions from an index to the last one with no natural of the suit (for TOP runs)
        self.gaps = [[0] * 4 for _ in range(self.last + 2)]
        for i in range(self.last - 1, -1, -1):
            self.gaps[i] = [self.gaps[i + 1][su] + (self.ahead[i][su] == 0) for su in range(4)]
        self.last_step = 5 * self.last
        self.visits = 0
        self.limit = 1 << 62
        self.lastbad = 0
        self.topbud = 0  # the largest budget a search began with (see ``_by_budget``)

    # availability of naturals of ``suit`` at position index ``pi``: (must, flex, optional, code)
    def _avail(self, pi: int, suit: int, res: tuple[int, ...]) -> tuple[int, int, int, int]:
        p = self.pos[pi]
        code = _card_at(p, suit)
        if self.both and p == 1:
            return 0, self.mand[code], self.opt[code], code
        if self.both and p == 14:
            return res[suit], 0, res[4 + suit], code
        return self.mand[code], 0, self.opt[code], code

    def solve(self) -> tuple[list[list[int]], list[int], int] | None:
        """(Windows, see ``fewest_left_out``, rarely shorten a plain search: not used here.)"""
        self._init_masks()
        found = self._search(self.budget or 0, self.max_visits, _RACE_SOLVE, _RACE_PROBE)
        if found is None or not self.lean:
            return found
        placed = self._place_spares(found)
        return placed if placed is not None else self._exact().solve()

    def fewest_left_out(self, lo: int, hi: int) -> tuple[int, tuple[list[list[int]], list[int], int]] | None:
        """The least budget in ``lo..hi`` that works and its solution, or None. The budgets are
        asked in turn; what one search proves (a state fails with so much left to skip) serves
        the next, so this costs about one search with the final budget."""
        assert self.budget is not None, "budgets count left-out cards only in budget mode"
        self._init_masks()
        widths = [*_WINDOWS, None]
        b = lo
        while b <= hi:
            self.budget = b
            try:
                found = self._search(b, self._give_up(widths[0]))
            except _OutOfTime:
                width = widths.pop(0)
                if width is None or not self.windows:
                    raise
                b = max(b, self._window_least(width, b, hi))
                continue
            if found is not None and self.lean:
                placed = self._place_spares(found)
                if placed is None:
                    return self._exact().fewest_left_out(b, hi)  # lean mode never asks too much
                found = placed
            if found is not None:
                return b, found
            b += 1
        return None

    # -- when the search is long: the mirrored search (``mirror.py``) --------------------

    def _search(self, bud: int, give_up: int, first: int = 0, probe: int = 0) -> Found | None:
        """One search with budget ``bud`` (``_OutOfTime`` when this one passes ``give_up``
        visits). A long search races the mirrored one: they take turns (a first round of
        ``probe`` visits each when given, then the first of ``first`` visits, else
        ``_RACE_VISITS``), allowances doubling, until one answers, and the first answer is the
        answer (the mirror's melds turned back). The one that answered last leads with the
        longer turn (the next budget is much the same problem)."""
        if not self.mirror:
            return self._solve_feasible(bud, give_up)
        allowance = first or _RACE_VISITS
        while True:
            shares = (probe, probe) if probe else (allowance, allowance // 2)
            for mirrored_turn, share in ((self.mirror_leads, shares[0]), (not self.mirror_leads, shares[1])):
                if mirrored_turn:
                    mirrored = self._mirrored()
                    mirrored.budget = self.budget
                    try:
                        found = mirrored._solve_feasible(bud, mirrored.visits + share)
                    except _OutOfTime:
                        continue
                    self.mirror_leads = True
                    return None if found is None else mirror_found(found)
                try:
                    found = self._solve_feasible(bud, min(give_up, self.visits + share))
                except _OutOfTime:
                    if self.visits >= give_up:
                        raise
                    continue
                self.mirror_leads = False
                return found
            if probe:
                probe = 0
            else:
                allowance *= _RACE_GROWTH

    def _mirrored(self) -> RankDP:
        """The same problem read from the top down, made once (its memo serves every budget)."""
        if self.mirrored is None:
            self.mirrored = RankDP(mirror_variant(self.v), mirror_counts(self.mand), mirror_counts(self.opt),
                                   self.fm0, self.fo0, self.budget, mirror_counts(self.hand), self.hand_jokers,
                                   lean=self.lean, windows=False, mirror=False)
            self.mirrored._init_masks()
        return self.mirrored

    # -- when the search is long: bounds from windows of positions (``windows.py``) -------

    def _give_up(self, width: int | None) -> int:
        """The visit count at which a search gives up to ask the windows of ``width``."""
        limit = self.visits + _WINDOWS[width] if width is not None and self.windows else 1 << 62
        return min(limit, self.max_visits)

    def _window_least(self, width: int, lo: int, hi: int) -> int:
        """The most any window of ``width`` positions must leave out (at least ``lo``; ``hi+1``
        when some window cannot do with ``hi``). A window's jokers may all stay unused; a window
        that takes long to answer is left out (it would rarely tell more than the search)."""
        counting = self.budget is not None
        for m2, o2, h2 in window_problems(self.v, self.mand, self.opt, self.hand, width):
            w = RankDP(self.v, m2, o2, 0, self.fm0 + self.fo0, 0 if counting else None, h2, 0, windows=False,
                       max_visits=_WINDOW_VISITS, mirror=False)
            try:
                if counting:
                    got = w.fewest_left_out(lo, hi)
                    lo = hi + 1 if got is None else got[0]
                elif w.solve() is None:
                    lo = hi + 1
            except _OutOfTime:
                continue
            if lo > hi:
                break
        return lo

    # -- lean mode: no joker where it is not needed ----------------------------------------
    #
    # A joker is spare when taking it out leaves every meld valid: at the end of a run of four
    # or more, or in a set of four or more. An arrangement with spare jokers becomes one with
    # fewer jokers by taking them out, so if any arrangement exists, one without spare jokers
    # using at most the jokers there are exists too. Lean mode searches only for those: a run
    # never stops right after a joker it did not need (``TAIL``), a run led by a joker has
    # exactly three cards (so it starts three places below the top: see ``new_joker``), a set
    # holds jokers only to reach three cards, and jokers may be left over. The jokers left are
    # then put at the end of a run or into a set; in the rare arrangement where they fit
    # nowhere (say every meld a full set) the exact mode, which places every joker in the
    # search, answers instead. Exact either way; lean mode has far fewer states to search.

    def _exact(self) -> RankDP:
        return RankDP(self.v, self.mand, self.opt, self.fm0, self.fo0, self.budget, self.hand, self.hand_jokers,
                      lean=False, windows=self.windows, max_visits=self.max_visits, mirror=self.mirror)

    def _place_spares(self, found: Found) -> Found | None:
        """``found`` with its jokers left over placed (the mandatory ones, and with a budget the
        hand jokers the search counted as down), or None if they do not fit."""
        melds, opt_used, free_o_used = found
        used = sum(1 for m in melds for x in m if x >= JOKER_AS)
        used_m = min(used, self.fm0)
        need_o = max(0, self.hand_jokers - free_o_used) if self.budget is not None else 0
        need_o = min(need_o, self.fo0 - free_o_used)
        grown = place_jokers(self.v, melds, self.fm0 - used_m + need_o)
        if grown is None:
            return None
        return grown, opt_used, free_o_used + need_o

    # -- the aces kept for the top are a bit mask, not part of the state -----------------
    #
    # When an ace may be low or high, how many aces of each suit were kept for the top matters
    # only at the last position. Instead of carrying that vector through every state, each
    # state remembers the bit masks of the vectors for which it is known to be completable and
    # known not to be; the low end picks a vector and the top end checks it.
    #
    # A wrong vector is often refuted only at the top, after most states were searched (some
    # aces of a suit kept for the top where no run can end in them): searching the vectors one
    # after another could spend 100 ms on wrong ones before an easy right one. So the vectors
    # take turns with a growing allowance of states each (a search that runs out is abandoned:
    # only states it finished are remembered, so nothing wrong is kept), and a failure proves
    # every vector the searched states fail for at once (a failure that never reached an ace
    # is a failure for all vectors).
    #
    # With a budget, the state also holds how much weight of optional cards may still be left
    # out (``bud``); an optional ace not used low is kept for the top and counted there.

    def _init_masks(self) -> None:
        opts = []
        for su in range(4):
            ace = cards.make(14, su)
            if self.both:
                opts.append([(rm, ro) for rm in range(self.mand[ace] + 1) for ro in range(self.opt[ace] + 1)])
            else:
                opts.append([(0, 0)])
        self.res_opts = opts
        self.stride = [1, len(opts[0]), len(opts[0]) * len(opts[1]), len(opts[0]) * len(opts[1]) * len(opts[2])]
        total = self.stride[3] * len(opts[3])
        self.all = (1 << total) - 1
        self.comp = []
        for su in range(4):
            row = {}
            for oi, o in enumerate(opts[su]):
                mask = 0
                for r in range(total):
                    if (r // self.stride[su]) % len(opts[su]) == oi:
                        mask |= 1 << r
                row[o] = mask
            self.comp.append(row)
        # the memo: per state (place | jokers left | budget left, see _encode): [good, bad]
        self.mmemo: dict[int, list[int]] = {}
        # per (step, this suit's runs, cards put aside, jokers, budget): the moves (``_suit_steps``)
        self.steps: dict[int, list[tuple[int, int, int, int]]] = {}
        self.move_cache: dict[tuple[int, int, int, int], list[tuple[int, int, int, int, int]]] = {}
        self.run_ids: dict[tuple[int, ...], int] = {(): 0}
        self.run_tuples: list[tuple[int, ...]] = [()]
        self.run_done: list[bool] = [True]
        self.x_facts: dict[int, tuple[int, int, int]] = {}
        self.set_jokers: dict[int, list[int]] = {}  # (put-aside counts, jokers left): jokers sets may take
        self.jokers0 = self.fm0 + self.fo0
        self._init_totals()

    # -- states as ints ------------------------------------------------------------------
    #
    # A state is (place, jokers left, budget left); the place packs the position index and
    # suit (as ``5 * pi + s``, so the next step always adds one), the open runs of each suit
    # (an id per distinct tuple of run codes, 12 bits a suit) and the naturals put aside for
    # sets (4 bits a suit). Jokers are used mandatory first, so the count left says how many
    # of each kind. Ints hash fast and a move turns one place into the next by one addition.

    def _run_id(self, runs: tuple[int, ...]) -> int:
        rid = self.run_ids.get(runs)
        if rid is None:
            rid = self.run_ids[runs] = len(self.run_tuples)
            assert rid < 1 << _RB, "too many kinds of open runs"
            self.run_tuples.append(runs)
            self.run_done.append(all(r & (12 | TAIL) == 12 for r in runs))
        return rid

    def _encode(self, pi: int, s: int, runs: tuple[tuple[int, ...], ...], x: tuple[int, ...]) -> int:
        place = 0
        for su in range(4):
            assert x[su] < 1 << _XB, "too many copies of one card"
            place |= self._run_id(runs[su]) << (_RB * su) | x[su] << (_XAT + _XB * su)
        return place | (5 * pi + s) << _STEPAT

    def _split_jokers(self, jokers: int) -> tuple[int, int]:
        """(mandatory, optional) jokers left when ``jokers`` are (mandatory ones go first)."""
        fm = max(0, jokers - self.fo0)
        return fm, jokers - fm

    def _x_facts(self, xbits: int) -> tuple[int, int, int]:
        """(suits with cards put aside, how many, the most of one suit) of a packed x."""
        hit = self.x_facts.get(xbits)
        if hit is None:
            xs = [(xbits >> (_XB * su)) & _XMASK for su in range(4)]
            hit = self.x_facts[xbits] = (sum(1 for v in xs if v), sum(xs), max(xs))
        return hit

    def _res_of(self, r: int) -> tuple[int, ...]:
        digits = [self.res_opts[su][(r // self.stride[su]) % len(self.res_opts[su])] for su in range(4)]
        return tuple(d[0] for d in digits) + tuple(d[1] for d in digits)

    def _solve_feasible(self, bud: int, give_up: int = 1 << 62) -> tuple[list[list[int]], list[int], int] | None:
        """One search for every vector with a small allowance (enough for most positions),
        then the vectors in turns with allowances growing fourfold. Raises
        :class:`_OutOfTime` after ``give_up`` visits (what was proven stays in the memo, and
        where the turns stopped: asked again with the same budget, they go on from there
        instead of walking every vector's unfinished path again)."""
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
        self.topbud = max(self.topbud, bud)
        start = ((), (), (), ())
        root = self._encode(0, 0, start, (0, 0, 0, 0))
        turns = self.turns.pop(bud, None)  # (vector, allowance) in the order they take turns
        if turns is None:
            self.limit = min(self.visits + 400, give_up)
            try:
                found = self._m(root, self.jokers0, bud, self.all)
                turns = [((found & -found).bit_length() - 1, 64)] if found else []
            except _OutOfTime:
                if self.visits >= give_up:
                    raise
                turns = [(r, 64) for r in range(self.all.bit_length())]
        for i, (r, allowance) in enumerate(turns):  # the list grows as vectors run out
            self.limit = min(self.visits + allowance, give_up)
            try:
                found = self._m(root, self.jokers0, bud, 1 << r)
            except _OutOfTime:
                if self.visits >= give_up:
                    self.turns[bud] = turns[i:]
                    raise
                turns.append((r, 4 * allowance))
                continue
            if found:
                return self._rebuild_for(start, r, bud)
        return None

    def _rebuild_for(self, start: Runs, r: int, bud: int) -> tuple[list[list[int]], list[int], int]:
        """The melds of a solution for kept-aces vector ``r`` (known to exist)."""
        self.limit = 1 << 62
        res = self._res_of(r)
        left = [bud]
        return self._rebuild(start, lambda key: self._pick(key, r, res, left))

    def _init_totals(self) -> None:
        """Per position index and suit: (how many naturals go down there, weight of optional
        cards left out there, mask of kept-aces vectors that allow it), most cards first. At
        the top, aces kept for it must go down (optional ones may, or count as left out); at
        the low end, what is not used is kept (mandatory aces used low first: keeping an
        optional ace instead is never worse)."""
        counting = self.budget is not None
        self.totals: list[list[list[tuple[int, int, int]]]] = []
        for p in self.pos:
            row = []
            for su in range(4):
                code = _card_at(p, su)
                m, o, h = self.mand[code], self.opt[code], self.hand[code]
                merged: dict[tuple[int, int], int] = {}

                def add(t: int, skip: int, mask: int, merged: dict[tuple[int, int], int] = merged) -> None:
                    if mask:
                        key = (t, skip if counting else 0)
                        merged[key] = merged.get(key, 0) | mask

                if self.both and p == 14:
                    for rm, ro in self.res_opts[su]:
                        for t in range(rm, rm + ro + 1):
                            add(t, max(0, h - (o - ro) - (t - rm)), self.comp[su][(rm, ro)])
                elif self.both and p == 1:
                    for t in range(m + o + 1):
                        used_m = min(m, t)
                        add(t, 0, self.comp[su][(m - used_m, o - (t - used_m))])
                else:
                    for t in range(m, m + o + 1):
                        add(t, max(0, h - (t - m)), self.all)
                row.append(sorted(((t, k, mk) for (t, k), mk in merged.items()), key=lambda e: (-e[0], e[1])))
            self.totals.append(row)

    def _jokers_left_out(self, fo: int) -> int:
        """Weight of the optional jokers not used (``fo`` of them), hand jokers used first; in
        lean mode none (the jokers left are placed afterwards)."""
        if self.budget is None or self.lean:
            return 0
        return max(0, self.hand_jokers - (self.fo0 - fo))

    def _moves(self, pi: int, s: int, suit_runs: tuple[int, ...], fm: int, fo: int,
               total: int) -> list[tuple[Move, tuple[int, ...], int, int, int]]:
        """Moves of suit ``s`` at position index ``pi`` putting ``total`` naturals down."""
        p = self.pos[pi]
        allow_sets = not (self.both and p == 1)
        jokers = fm + fo
        a1, a2, gaps = self.ahead[pi + 1][s], self.ahead[pi + 2][s], self.gaps[pi + 1][s]
        out = []
        for move in _suit_moves(suit_runs, total, jokers, self.cap, allow_sets, True, self.lean):
            new_runs, xs, _, jok, plan, short, ones, top = move
            left = jokers - jok
            if short and (short > a1 + left or ones > a2 + left):
                continue  # short runs cannot reach 3 cards
            if top and gaps > left:
                continue
            if self.lean and plan[-1] and pi != self.last - 3:
                continue  # lean: a run led by a joker has exactly three cards
            jm = min(jok, fm)
            out.append((move, new_runs, xs, jm, jok - jm))
        return out

    # -- the search ------------------------------------------------------------------------

    def _by_budget(self, key: int, bud: int) -> list[int]:
        """What the memo knows of a new state from the same state with another budget left: a
        vector bad with more left out allowed is bad here, one good with less is good here
        (every move open with less budget is open with more). Saves most of a search whose
        budget is one above the last (``fewest_left_out``) and many states inside one."""
        base = key & ((1 << _BAT) - 1)
        memo = self.mmemo
        good = bad = 0
        for b in range(bud):
            known = memo.get(base | b << _BAT)
            if known:
                good |= known[0]
        for b in range(bud + 1, self.topbud + 1):
            known = memo.get(base | b << _BAT)
            if known:
                bad |= known[1]
        return [good, bad]

    def _bad(self, place: int, jokers: int, bud: int) -> int:
        """The bits known bad for a state."""
        known = self.mmemo.get(place | jokers << _JAT | bud << _BAT)
        return known[1] if known else 0

    def _m(self, place: int, jokers: int, bud: int, want: int) -> int:
        """Some non-empty part of ``want`` (kept-aces vectors) for which this state can be
        completed, or 0 if none of ``want`` can (then ``self.lastbad`` holds every bit known
        bad for it); raises :class:`_OutOfTime` past ``self.limit`` states. Memo: bits known
        good, bits known bad (``want`` and every other vector for which each move is known to
        fail or not to apply)."""
        key = place | jokers << _JAT | bud << _BAT
        known = self.mmemo.get(key)
        if known is None:
            known = self.mmemo[key] = self._by_budget(key, bud) if self.topbud else [0, 0]
        if known[0] or known[1]:
            if want & known[0]:
                return want & known[0]
            want &= ~known[1]
            if not want:
                self.lastbad = known[1]
                return 0
        self.visits += 1
        if self.visits > self.limit:
            raise _OutOfTime
        found = 0
        failed = self.all
        many = failed != 1  # with one vector there is nothing to learn about the others
        step = place >> _STEPAT
        if step == self.last_step:
            fm, fo = self._split_jokers(jokers)
            done = self.run_done
            if ((fm == 0 or self.lean) and self._jokers_left_out(fo) <= bud and done[place & _RMASK]
                    and done[(place >> _RB) & _RMASK] and done[(place >> 2 * _RB) & _RMASK]
                    and done[(place >> 3 * _RB) & _RMASK]):
                found = want
        elif step % 5 == 4:
            for nplace, nj in self._set_steps(place, jokers):
                found = self._m(nplace, nj, bud, want)
                if found:
                    break
                failed &= self.lastbad
        else:
            moves = self.steps.get(step | ((place >> (_RB * (step % 5))) & _RMASK) << 8  # as ``_steps_key``
                                   | ((place >> _XAT) & 0xFFFF) << 20 | jokers << 36 | bud << 44)
            if moves is None:
                moves = self._suit_steps(place, jokers, bud)
            for comp, delta, nj, nbud in moves:
                w = comp & want
                if w:
                    found = self._m(place + delta, nj, nbud, w)
                    if found:
                        break
                    failed &= ~comp | self.lastbad
                elif many:
                    failed &= ~comp | self._bad(place + delta, nj, nbud)
        if found:
            known[0] |= found
        else:
            known[1] |= failed | want
            self.lastbad = known[1]
        return found

    def _set_steps(self, place: int, jokers: int) -> list[tuple[int, int]]:
        """The states after splitting the cards put aside at a position into sets."""
        xbits = (place >> _XAT) & 0xFFFF
        nplace = place - (xbits << _XAT) + (1 << _STEPAT)
        used = self.set_jokers.get(xbits | jokers << 16)
        if used is None:
            cap = 4 if self.cap is None else self.cap
            x = tuple((xbits >> (_XB * su)) & _XMASK for su in range(4))
            used = self.set_jokers[xbits | jokers << 16] = [
                j for j in range(0, jokers + 1) if set_split(x, j, cap, self.v.max_set, self.v.min_meld, self.lean)
                is not None]
        return [(nplace, jokers - j) for j in used]

    @staticmethod
    def _steps_key(place: int, jokers: int, bud: int) -> int:
        """The key of a state's moves in ``self.steps`` (``_m`` computes it inline)."""
        step = place >> _STEPAT
        return step | ((place >> (_RB * (step % 5))) & _RMASK) << 8 | ((place >> _XAT) & 0xFFFF) << 20 \
            | jokers << 36 | bud << 44

    def _suit_steps(self, place: int, jokers: int, bud: int) -> list[tuple[int, int, int, int]]:
        """(kept-aces mask, what the move adds to the place, jokers left, budget left) for every
        move of the suit. They depend on the state only through the step, this suit's open
        runs, the cards put aside, the jokers and the budget left: one list serves every state
        that differs only in the other suits' runs (most of them; keyed by the whole state, the
        list was built anew for nearly every state, 40% of a long search's time)."""
        step = place >> _STEPAT
        pi, s = divmod(step, 5)
        rid = (place >> (_RB * s)) & _RMASK
        skey = self._steps_key(place, jokers, bud)
        mkey = (pi, s, rid, jokers)
        moves = self.move_cache.get(mkey)
        if moves is None:
            fm, fo = self._split_jokers(jokers)
            moves = []
            for total, skip, comp in self.totals[pi][s]:
                for _move, new_runs, xs, jm, jo in self._moves(pi, s, self.run_tuples[rid], fm, fo, total):
                    delta = (1 << _STEPAT) + ((self._run_id(new_runs) - rid) << (_RB * s)) + (xs << (_XAT + _XB * s))
                    moves.append((comp, skip, delta, jm + jo, xs))
            self.move_cache[mkey] = moves
        future_suits, future_cards = self.future[pi][s]
        capj = 4 if self.cap is None else self.cap
        min_meld = self.v.min_meld
        nz, sm, mx = self._x_facts((place >> _XAT) & 0xFFFF)
        out: list[tuple[int, int, int, int]] = []
        for comp, skip, delta, jok, xs in moves:
            if skip > bud:
                continue
            if xs or sm:
                # the cards put aside for sets at this rank must still make sets of 3+
                jl = jokers - jok
                if (nz + (1 if xs else 0) + future_suits + min(jl, capj) < min_meld
                        or sm + xs + future_cards + jl < min_meld * max(mx, xs)):
                    continue
            out.append((comp, delta, jokers - jok, bud - skip))
        self.steps[skey] = out
        return out

    def _pick(self, key: StepKey, r: int, res: tuple[int, ...], left: list[int]) -> Choice:
        """The first move at ``key`` that keeps kept-aces vector ``r`` completable within the
        budget ``left[0]`` (updated to what the move leaves)."""
        pi, s, runs, x, fm, fo, _ = key
        bud = left[0]
        bit = 1 << r
        if s == 4:
            cap = 4 if self.cap is None else self.cap
            nplace = self._encode(pi + 1, 0, runs, (0, 0, 0, 0))
            for j in range(0, fm + fo + 1):
                if set_split(x, j, cap, self.v.max_set, self.v.min_meld, self.lean) is None:
                    continue
                jm = min(j, fm)
                if self._m(nplace, fm + fo - j, bud, bit):
                    return (j, jm, j - jm)
            raise AssertionError("no set split on the chosen path")
        for total, skip, comp in self.totals[pi][s]:
            if not comp & bit or skip > bud:
                continue
            for move, new_runs, xs, jm, jo in self._moves(pi, s, runs[s], fm, fo, total):
                nruns = runs[:s] + (new_runs,) + runs[s + 1:]
                nx = x[:s] + (xs,) + x[s + 1:]
                if self._m(self._encode(pi, s + 1, nruns, nx), fm + fo - jm - jo, bud - skip, bit):
                    left[0] = bud - skip
                    return (total, move, jm, jo, res)
        raise AssertionError("no move on the chosen path")

    # -- rebuilding concrete melds from the choices --------------------------------------

    def _rebuild(self, start: Runs, choose: Callable[[StepKey], Choice]) -> tuple[list[list[int]], list[int], int]:
        melds: list[list[int]] = []
        open_runs: list[list[tuple[int, list[int]]]] = [[] for _ in range(4)]  # (code, cards)
        opt_used = [0] * 64
        free_o_used = 0
        pi, s, runs, x, fm, fo, res = 0, 0, start, (0, 0, 0, 0), self.fm0, self.fo0, (0,) * 8
        set_cards: list[list[int]] = [[] for _ in range(4)]
        while pi < self.last:
            choice = choose((pi, s, runs, x, fm, fo, res))
            p = self.pos[pi]
            if s == 4:
                j, jm, jo = choice[:3]
                free_o_used += jo
                rank = 14 if p == 1 else p
                cap = 4 if self.cap is None else self.cap
                witness = set_split(x, j, cap, self.v.max_set, self.v.min_meld, self.lean)
                assert witness is not None, "the chosen split exists"
                for suits, k in witness:
                    meld = [set_cards[su].pop() for su in suits]
                    missing = [su for su in range(4) if su not in suits][:k]
                    meld += [JOKER_AS + cards.make(rank, su) for su in missing]
                    melds.append(meld)
                set_cards = [[] for _ in range(4)]
                pi, s, x, fm, fo = pi + 1, 0, (0, 0, 0, 0), fm - jm, fo - jo
                continue
            total, move, jm, jo, nres = choice[:5]
            must, flex, optn, code = self._avail(pi, s, res)
            used_o = total - must - min(flex, total - must)
            opt_used[code] += used_o
            free_o_used += jo
            new_runs, xs, _, _, plan = move[:5]
            nat_card, jok_card = code, JOKER_AS + code
            old = sorted(open_runs[s], key=lambda r: r[0])
            nxt: list[tuple[int, list[int]]] = []
            i = 0
            groups: list[list[int]] = []
            for code_r, _ in old:
                if groups and groups[-1][0] == code_r:
                    groups[-1][1] += 1
                else:
                    groups.append([code_r, 1])
            for gi, (code_r, n) in enumerate(groups):
                a_nat, a_jok, a_stop = plan[3 * gi: 3 * gi + 3]
                for k in range(n):
                    rc = old[i + k][1]
                    if k < a_nat:
                        rc.append(nat_card)
                        nxt.append((next_code(code_r, False, self.cap, self.lean), rc))
                    elif k < a_nat + a_jok:
                        rc.append(jok_card)
                        nxt.append((next_code(code_r, True, self.cap, self.lean), rc))
                    else:
                        melds.append(rc)
                i += n
            k_n, k_j = plan[-2], plan[-1]
            nxt += [(NEW_NATURAL, [nat_card]) for _ in range(k_n)]
            nxt += [(new_joker(self.cap), [jok_card]) for _ in range(k_j)]
            open_runs[s] = nxt
            set_cards[s] = [nat_card] * xs
            runs = runs[:s] + (new_runs,) + runs[s + 1:]
            x = x[:s] + (xs,) + x[s + 1:]
            fm, fo, res = fm - jm, fo - jo, nres
            s += 1
        for rs in open_runs:
            melds += [rc for _, rc in rs]
        return [m2 for m in melds for m2 in _split_around(m)], opt_used, free_o_used


def place_jokers(variant: Variant, melds: Sequence[Sequence[int]], n: int) -> list[list[int]] | None:
    """``melds`` with ``n`` more jokers, each at the end of a run or in a set, or None."""
    out = [list(m) for m in melds]
    for _ in range(n):
        for i, meld in enumerate(out):
            grown = _grow(variant, meld)
            if grown is not None:
                out[i] = grown
                break
        else:
            return None
    return out


def _grow(variant: Variant, meld: list[int]) -> list[int] | None:
    """``meld`` with one more joker (a missing suit of a set, a place above or below a run)."""
    meanings = [x - JOKER_AS if x >= JOKER_AS else x for x in meld]
    ranks = {cards.rank_of(c) for c in meanings}
    if len(ranks) == 1:
        rank, suits = ranks.pop(), {cards.suit_of(c) for c in meanings}
        candidates = [cards.make(rank, su) for su in range(4) if su not in suits]
    else:
        places = run_positions(variant, meanings)
        if places is None:
            return None
        su = cards.suit_of(meanings[0])
        allowed = variant.positions()
        candidates = [_card_at(p, su) for p in (max(places) + 1, min(places) - 1) if p in allowed]
    for c in candidates:
        trial = [*meld, JOKER_AS + c]
        if why_invalid(variant, trial) is None:
            return trial
    return None


def _split_around(meld: list[int]) -> list[list[int]]:
    """A run from the low ace to the high ace (14 cards) is split in two valid runs."""
    if len(meld) >= 14:
        return [meld[:7], meld[7:]]
    return [meld]
