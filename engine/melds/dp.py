"""The fast exact solver: a dynamic programme over run positions (van Rijn, Takes & Vis 2015).

Positions run from the low ace (1) to the high ace (14) as the variant allows. Going up the
positions, and through the four suits at each one, the state holds, per suit, the open runs
(each by length class 1, 2 or "3 or more", and in variants with a joker limit the number of
jokers in it), the cards of the current rank put aside for sets, the free jokers left and,
when an ace may be high or low, how many aces of each suit were kept for the top. At the end
of a position the cards put aside must split into sets (a small precomputed table). A run of
length 1 or 2 must go on; a longer one may stop. The number of states is polynomial in the
number of positions for a fixed number of suits, packs and jokers.

Mandatory cards must all be used; optional ones (Tahiti's loose singles, the hand in
``best_subset``) may stay out; with a skip budget the programme asks whether all but that
many of the optional cards can go down. Jokers are all free here (their meaning is chosen); jokers that must
keep a meaning are natural cards to this solver.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

from engine import cards
from engine.melds.tablecards import JOKER_AS
from engine.melds.variants import Variant


def _card_at(pos: int, suit: int) -> int:
    return cards.make(14 if pos == 1 else pos, suit)


@cache
def set_split(x: tuple[int, ...], jokers: int, cap: int, max_set: int, min_meld: int) -> tuple | None:
    """Split ``x[s]`` naturals of each suit (one rank) plus ``jokers`` into sets of distinct
    suits; a witness ((suits...), jokers) per set, or None. ``cap``: jokers per meld."""
    if not any(x):
        return () if jokers == 0 else None
    first = next(s for s in range(4) if x[s])
    rest = [s for s in range(4) if x[s] and s != first]
    for mask in range(1 << len(rest)):
        suits = (first, *[rest[i] for i in range(len(rest)) if mask >> i & 1])
        for k in range(0, min(cap, jokers, max_set - len(suits)) + 1):
            if len(suits) + k < min_meld:
                continue
            nx = list(x)
            for s in suits:
                nx[s] -= 1
            sub = set_split(tuple(nx), jokers - k, cap, max_set, min_meld)
            if sub is not None:
                return ((suits, k), *sub)
    return None


TOP = 16  # flag: a run that began with a joker; it must reach the last position (see below)
NEW_NATURAL = 4  # length class 1, no joker


def new_joker(cap: int | None) -> int:
    """A run that begins with a joker. Such a run can always be shifted up one place (the joker
    moved from its bottom to its top) unless it ends at the last position, so only runs that
    reach the top need to begin with a joker: the flag ``TOP`` forbids stopping earlier."""
    return TOP | 4 | (1 if cap is not None else 0)


def next_code(code: int, joker: bool, cap: int | None) -> int:
    """The run code after one more card (a joker counts only under a joker limit)."""
    cls = min(((code >> 2) & 3) + 1, 3)
    j = (code & 3) + (1 if joker and cap is not None else 0)
    return (code & TOP) | cls << 2 | j


# (new runs, naturals to sets, naturals used, jokers used, plan, short runs, runs of one, a TOP run)
Move = tuple[tuple[int, ...], int, int, int, tuple[int, ...], int, int, bool]
# (position index, suit, open runs per suit, naturals put aside per suit, free jokers: mandatory, optional)
State = tuple[int, int, tuple[tuple[int, ...], ...], tuple[int, ...], int, int]


@lru_cache(maxsize=200_000)
def _suit_moves(runs: tuple[int, ...], total: int, jokers: int, cap: int | None, allow_sets: bool,
                can_continue: bool) -> tuple[Move, ...]:
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
                    if cap is None and (jok + k_j) and (x or k_n):
                        continue  # without a joker limit a natural takes a joker's place here
                    nr = new + [NEW_NATURAL] * k_n + [new_joker(cap)] * k_j
                    short = sum(1 for r in nr if (r >> 2) & 3 < 3)
                    ones = sum(1 for r in nr if (r >> 2) & 3 == 1)
                    top = any(r & TOP for r in nr)
                    out.append((tuple(sorted(nr)), x, total, jok + k_j, (*plan, k_n, k_j), short, ones, top))
            return
        code, n = groups[gi]
        cls, j = (code >> 2) & 3, code & 3
        joker_ok = can_continue and (cap is None or j < cap)
        for a_stop in range(0, (n if cls == 3 and not code & TOP else 0) + 1):
            for a_jok in range(0, (n - a_stop if joker_ok else 0) + 1):
                a_nat = n - a_stop - a_jok
                if a_nat and not can_continue:
                    continue
                if nat + a_nat > total or jok + a_jok > jokers:
                    continue
                rec(gi + 1, nat + a_nat, jok + a_jok,
                    new + [next_code(code, False, cap)] * a_nat + [next_code(code, True, cap)] * a_jok,
                    plan + [a_nat, a_jok, a_stop])

    rec(0, 0, 0, [], [])
    return tuple(out)


class RankDP:
    """One run of the programme; ``solve()`` returns (melds, optional naturals used, optional
    jokers used) or None. ``budget``: at most that many optional cards (jokers included) left out;
None: any number (plain feasibility)."""

    def __init__(self, variant: Variant, mand: Sequence[int], opt: Sequence[int], free_m: int, free_o: int,
                 budget: int | None = None) -> None:
        self.v = variant
        self.mand = list(mand)
        self.opt = list(opt)
        self.fm0 = free_m
        self.fo0 = free_o
        self.cap = variant.max_jokers_per_meld
        self.budget = budget
        self.pos = list(variant.positions())
        self.both = variant.ace == "both"
        self.memo: dict[tuple, tuple[bool, tuple | None]] = {}
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
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
        start = ((), (), (), ())
        if self.budget is None:
            return self._solve_feasible(start)
        if not self._f(0, 0, start, (0, 0, 0, 0), self.fm0, self.fo0, (0,) * 8, self.budget):
            return None
        bud = [self.budget]

        def choose(key: tuple) -> tuple:
            choice = self.memo[(*key, bud[0])][1]
            assert choice is not None, "the chosen path was solved"
            bud[0] = choice[-1]
            return choice

        return self._rebuild(start, choose)

    # -- feasibility: the aces kept for the top are a bit mask, not part of the state --------
    #
    # When an ace may be low or high, how many aces of each suit were kept for the top matters
    # only at the last position. Instead of carrying that vector through every state, each
    # state answers with the bit mask of the vectors for which it can be completed; the low
    # end picks a vector and the top end checks it. States no longer multiply by the vectors.

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
        self.mmemo: dict[tuple, list[int]] = {}
        self.fmemo: dict[tuple, int] = {}
        self.steps: dict[tuple, list[tuple[int, State]]] = {}
        self.move_cache: dict[tuple, list[tuple]] = {}
        self._init_totals()

    def _res_of(self, r: int) -> tuple[int, ...]:
        digits = [self.res_opts[su][(r // self.stride[su]) % len(self.res_opts[su])] for su in range(4)]
        return tuple(d[0] for d in digits) + tuple(d[1] for d in digits)

    def _solve_feasible(self, start: tuple):
        self._init_masks()
        mask = self._m(0, 0, start, (0, 0, 0, 0), self.fm0, self.fo0)
        if not mask:
            return None
        r = (mask & -mask).bit_length() - 1
        res = self._res_of(r)
        return self._rebuild(start, lambda key: self._pick(key, r, res))

    def _init_totals(self) -> None:
        """Per position index and suit: (how many naturals go down there, mask of kept-aces
        vectors that allow it). At the top, aces kept for it must go down; at the low end,
        what is not used is kept."""
        self.totals = []
        for p in self.pos:
            row = []
            for su in range(4):
                code = _card_at(p, su)
                merged: dict[int, int] = {}
                if self.both and p == 14:
                    for o in self.res_opts[su]:
                        for t in range(o[0], o[0] + o[1] + 1):
                            merged[t] = merged.get(t, 0) | self.comp[su][o]
                elif self.both and p == 1:
                    flex, optn = self.mand[code], self.opt[code]
                    for t in range(flex + optn + 1):
                        used_flex = min(flex, t)
                        merged[t] = self.comp[su].get((flex - used_flex, optn - (t - used_flex)), 0)
                else:
                    for t in range(self.mand[code], self.mand[code] + self.opt[code] + 1):
                        merged[t] = self.all
                row.append(sorted(((t, m) for t, m in merged.items() if m), reverse=True))
            self.totals.append(row)

    def _moves(self, pi: int, s: int, runs: tuple, fm: int, fo: int, total: int):
        """Moves of suit ``s`` at position index ``pi`` putting ``total`` naturals down."""
        p = self.pos[pi]
        allow_sets = not (self.both and p == 1)
        jokers = fm + fo
        a1, a2, gaps = self.ahead[pi + 1][s], self.ahead[pi + 2][s], self.gaps[pi + 1][s]
        out = []
        for move in _suit_moves(runs[s], total, jokers, self.cap, allow_sets, True):
            new_runs, xs, _, jok, _plan, short, ones, top = move
            left = jokers - jok
            if short and (short > a1 + left or ones > a2 + left):
                continue  # short runs cannot reach 3 cards
            if top and gaps > left:
                continue
            jm = min(jok, fm)
            out.append((move, new_runs, xs, jm, jok - jm))
        return out

    def _m(self, pi: int, s: int, runs: tuple, x: tuple, fm: int, fo: int, want: int | None = None) -> int:
        """Some non-empty part of ``want`` (kept-aces vectors) for which this state can be
        completed, or 0 if none of ``want`` can. Memo: bits known good, bits known bad, asked.

        The first question explores with ``want`` and stops at the first answer (fast when an
        arrangement exists). A state asked again about other bits gets its full mask computed
        once (:meth:`_full`): without that, every kept-aces vector chosen at the low end would
        search the same states again, up to 81 times when no arrangement exists."""
        want = self.all if want is None else want
        key = (pi, s, runs, x, fm, fo)
        known = self.mmemo.get(key)
        if known is None:
            known = self.mmemo[key] = [0, 0, 0]
        if want & known[0]:
            return want & known[0]
        want &= ~known[1]
        if not want:
            return 0
        if known[2]:
            full = self._full(pi, s, runs, x, fm, fo)
            known[0], known[1] = full, self.all & ~full
            return want & full
        known[2] = 1
        found = 0
        if pi == self.last:
            if fm == 0 and all((r >> 2) & 3 == 3 for rs in runs for r in rs):
                found = want
        elif s == 4:
            for nxt in self._set_steps(pi, runs, x, fm, fo):
                found = self._m(*nxt, want)
                if found:
                    break
        else:
            for comp, nxt in self._suit_steps(pi, s, runs, x, fm, fo):
                w = comp & want
                if w:
                    found = self._m(*nxt, w)
                    if found:
                        break
        if found:
            known[0] |= found
        else:
            known[1] |= want
        return found

    def _full(self, pi: int, s: int, runs: tuple, x: tuple, fm: int, fo: int) -> int:
        """Every kept-aces vector for which this state can be completed (each state once)."""
        key = (pi, s, runs, x, fm, fo)
        hit = self.fmemo.get(key)
        if hit is not None:
            return hit
        full = 0
        if pi == self.last:
            if fm == 0 and all((r >> 2) & 3 == 3 for rs in runs for r in rs):
                full = self.all
        elif s == 4:
            for nxt in self._set_steps(pi, runs, x, fm, fo):
                full |= self._full(*nxt)
                if full == self.all:
                    break
        else:
            for comp, nxt in self._suit_steps(pi, s, runs, x, fm, fo):
                if comp & ~full:
                    full |= comp & self._full(*nxt)
                    if full == self.all:
                        break
        self.fmemo[key] = full
        return full

    def _set_steps(self, pi: int, runs: tuple, x: tuple, fm: int, fo: int) -> list[State]:
        """The states after splitting the cards put aside at a position into sets."""
        cap = 4 if self.cap is None else self.cap
        out: list[State] = []
        for j in range(0, fm + fo + 1):
            if set_split(x, j, cap, self.v.max_set, self.v.min_meld) is None:
                continue
            jm = min(j, fm)
            out.append((pi + 1, 0, runs, (0, 0, 0, 0), fm - jm, fo - (j - jm)))
        return out

    def _suit_steps(self, pi: int, s: int, runs: tuple, x: tuple, fm: int, fo: int) -> list[tuple[int, State]]:
        """(kept-aces mask, next state) for every move of suit ``s`` at position index ``pi``."""
        key = (pi, s, runs, x, fm, fo)
        hit = self.steps.get(key)
        if hit is not None:
            return hit
        mkey = (pi, s, runs[s], fm, fo)
        moves = self.move_cache.get(mkey)
        if moves is None:
            moves = [(comp, new_runs, xs, jm, jo) for total, comp in self.totals[pi][s]
                     for _move, new_runs, xs, jm, jo in self._moves(pi, s, runs, fm, fo, total)]
            self.move_cache[mkey] = moves
        future_suits, future_cards = self.future[pi][s]
        capj = 4 if self.cap is None else self.cap
        min_meld = self.v.min_meld
        nz = sum(1 for v in x if v)
        sm = sum(x)
        mx = max(x)
        head, tail = runs[:s], runs[s + 1:]
        xhead, xtail = x[:s], x[s + 1:]
        out: list[tuple[int, State]] = []
        for comp, new_runs, xs, jm, jo in moves:
            nfm, nfo = fm - jm, fo - jo
            if xs or sm:
                # the cards put aside for sets at this rank must still make sets of 3+
                jl = nfm + nfo
                if (nz + (1 if xs else 0) + future_suits + min(jl, capj) < min_meld
                        or sm + xs + future_cards + jl < min_meld * max(mx, xs)):
                    continue
            out.append((comp, (pi, s + 1, (*head, new_runs, *tail), (*xhead, xs, *xtail), nfm, nfo)))
        self.steps[key] = out
        return out

    def _pick(self, key: tuple, r: int, res: tuple) -> tuple:
        """The first move at ``key`` that keeps kept-aces vector ``r`` completable."""
        pi, s, runs, x, fm, fo, _ = key
        bit = 1 << r
        if s == 4:
            cap = 4 if self.cap is None else self.cap
            for j in range(0, fm + fo + 1):
                if set_split(x, j, cap, self.v.max_set, self.v.min_meld) is None:
                    continue
                jm = min(j, fm)
                if self._m(pi + 1, 0, runs, (0, 0, 0, 0), fm - jm, fo - (j - jm), bit):
                    return (j, jm, j - jm)
            raise AssertionError("no set split on the chosen path")
        for total, comp in self.totals[pi][s]:
            if not comp & bit:
                continue
            for move, new_runs, xs, jm, jo in self._moves(pi, s, runs, fm, fo, total):
                nruns = runs[:s] + (new_runs,) + runs[s + 1:]
                nx = x[:s] + (xs,) + x[s + 1:]
                if self._m(pi, s + 1, nruns, nx, fm - jm, fo - jo, bit):
                    return (total, move, jm, jo, res)
        raise AssertionError("no move on the chosen path")

    # -- at least so many optional cards down: the skip budget is part of the state ------
    #
    # ``best_subset`` asks "can all but ``budget`` of the optional cards go down?" and
    # bisects on the budget. An optional card not put down at its position spends one unit
    # (an optional ace not used low is kept for the top, and spends there if unused).

    def _f(self, pi: int, s: int, runs: tuple, x: tuple, fm: int, fo: int, res: tuple, bud: int) -> bool:
        key = (pi, s, runs, x, fm, fo, res, bud)
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0]
        choice = None
        if pi == self.last:
            ok = fm == 0 and fo <= bud and all((r >> 2) & 3 == 3 for rs in runs for r in rs)
        elif s == 4:
            choice = self._sets(pi, runs, x, fm, fo, res, bud)
            ok = choice is not None
        else:
            choice = self._suit(pi, s, runs, x, fm, fo, res, bud)
            ok = choice is not None
        self.memo[key] = (ok, choice)
        return ok

    def _sets(self, pi: int, runs: tuple, x: tuple, fm: int, fo: int, res: tuple, bud: int) -> tuple | None:
        cap = 4 if self.cap is None else self.cap
        for j in range(0, fm + fo + 1):
            if set_split(x, j, cap, self.v.max_set, self.v.min_meld) is None:
                continue
            jm = min(j, fm)
            jo = j - jm
            if self._f(pi + 1, 0, runs, (0, 0, 0, 0), fm - jm, fo - jo, res, bud):
                return (j, jm, jo, bud)
        return None

    def _suit(self, pi: int, s: int, runs: tuple, x: tuple, fm: int, fo: int, res: tuple, bud: int) -> tuple | None:
        must, flex, optn, code = self._avail(pi, s, res)
        p = self.pos[pi]
        for total in range(must + flex + optn, must - 1, -1):
            used_flex = min(flex, total - must)
            used_o = total - must - used_flex
            skipped = 0 if (self.both and p == 1) else optn - used_o
            if skipped > bud:
                break
            nres = res
            if self.both and p == 1:
                kept = list(res)
                kept[s] = flex - used_flex
                kept[4 + s] = optn - used_o
                nres = tuple(kept)
            for move, new_runs, xs, jm, jo in self._moves(pi, s, runs, fm, fo, total):
                nruns = runs[:s] + (new_runs,) + runs[s + 1:]
                nx = x[:s] + (xs,) + x[s + 1:]
                if self._f(pi, s + 1, nruns, nx, fm - jm, fo - jo, nres, bud - skipped):
                    return (total, move, jm, jo, nres, bud - skipped)
        return None

    # -- rebuilding concrete melds from the choices --------------------------------------

    def _rebuild(self, start: tuple, choose: Callable[[tuple], Any]) -> tuple[list[list[int]], list[int], int]:
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
                witness = set_split(x, j, cap, self.v.max_set, self.v.min_meld)
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
                        nxt.append((next_code(code_r, False, self.cap), rc))
                    elif k < a_nat + a_jok:
                        rc.append(jok_card)
                        nxt.append((next_code(code_r, True, self.cap), rc))
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


def _split_around(meld: list[int]) -> list[list[int]]:
    """A run from the low ace to the high ace (14 cards) is split in two valid runs."""
    if len(meld) >= 14:
        return [meld[:7], meld[7:]]
    return [meld]
