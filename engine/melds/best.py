"""The most hand cards that can go down: the rank programme maximising instead of deciding.

``best_subset`` used to ask the feasibility programme "can all but k optional cards go down?"
for several k, each run carrying in its state which aces were kept for the top; one pass
that maximises is far cheaper. Every state of :class:`RankDP` answers here, for each way of
keeping aces for the top (bit ``r`` of a mask, as in the feasibility pass), how many
weighted optional cards can still go down: a tuple ``M`` where ``M[v]`` is the mask of the
``r`` that reach at least ``v`` (so ``M[0]`` says where the state can be completed at all).
Optional cards weigh 1 when they come from the hand and 0 otherwise (Tahiti's loose table
singles: they may go down, at no gain); of several optional copies of one card the hand
copies are counted first. Exact: the value is a true maximum over all arrangements.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import cards
from engine.melds.dp import RankDP, _card_at, set_split
from engine.melds.variants import Variant

Payload = tuple[int, ...]


def _shift(m: Payload, gain: int) -> Payload:
    return (m[0],) * gain + m if gain and m else m


def _restrict(m: Payload, mask: int) -> Payload:
    out = [x & mask for x in m]
    while out and not out[-1]:
        out.pop()
    return tuple(out)


def _merge(a: Payload, b: Payload) -> Payload:
    if len(a) < len(b):
        a, b = b, a
    return tuple(x | b[i] if i < len(b) else x for i, x in enumerate(a))


class BestDP(RankDP):
    """``solve()`` returns (melds, optional naturals used per code, optional jokers used) for an
    arrangement that puts down the most weighted optional cards, or None when even the
    mandatory cards alone cannot be arranged. ``hand[c]`` of the ``opt[c]`` copies weigh 1;
    ``hand_jokers`` of the ``free_o`` optional jokers weigh 1."""

    def __init__(self, variant: Variant, mand: Sequence[int], opt: Sequence[int], hand: Sequence[int],
                 free_m: int, free_o: int, hand_jokers: int) -> None:
        super().__init__(variant, mand, opt, free_m, free_o)
        self.hand = list(hand)
        self.hand_jokers = hand_jokers
        self.gmemo: dict[tuple, Payload] = {}

    # -- what each position may put down, and what it gains ---------------------------

    def _init_gain_totals(self) -> None:
        """Per position index and suit: (naturals down, gain, mask of kept-aces vectors)."""
        self.gtotals: list[list[list[tuple[int, int, int]]]] = []
        for p in self.pos:
            row = []
            for su in range(4):
                code = _card_at(p, su)
                m, o, h = self.mand[code], self.opt[code], self.hand[code]
                merged: dict[tuple[int, int], int] = {}

                def add(t: int, gain: int, mask: int, merged: dict[tuple[int, int], int] = merged) -> None:
                    if mask:
                        merged[(t, gain)] = merged.get((t, gain), 0) | mask

                if self.both and p == 14:
                    for rm, ro in self.res_opts[su]:
                        hand_left = h - min(o - ro, h)
                        for t in range(rm, rm + ro + 1):
                            add(t, min(t - rm, hand_left), self.comp[su][(rm, ro)])
                elif self.both and p == 1:
                    for t in range(m + o + 1):
                        used_m = min(m, t)
                        used_o = t - used_m
                        add(t, min(used_o, h), self.comp[su].get((m - used_m, o - used_o), 0))
                else:
                    for t in range(m, m + o + 1):
                        add(t, min(t - m, h), self.all)
                row.append(sorted(((t, g, mk) for (t, g), mk in merged.items()), reverse=True))
            self.gtotals.append(row)
        # the most that can still be gained from each position index on (an upper bound)
        self.upper = [0] * (self.last + 1)
        for i in range(self.last - 1, -1, -1):
            p = self.pos[i]
            gain = 0
            for su in range(4):
                code = _card_at(p, su)
                gain += min(self.opt[code], self.hand[code])  # aces twice: still a bound
            self.upper[i] = self.upper[i + 1] + gain
        self.upper = [u + min(self.fo0, self.hand_jokers) for u in self.upper]

    def _joker_gain(self, fo: int, used: int) -> int:
        """Weight of ``used`` more optional jokers when ``fo`` are left."""
        before = self.fo0 - fo
        return min(before + used, self.hand_jokers) - min(before, self.hand_jokers)

    # -- the pass ----------------------------------------------------------------------

    def _g(self, pi: int, s: int, runs: tuple, x: tuple, fm: int, fo: int) -> Payload:
        key = (pi, s, runs, x, fm, fo)
        hit = self.gmemo.get(key)
        if hit is not None:
            return hit
        out: Payload = ()
        if pi == self.last:
            if fm == 0 and all((r >> 2) & 3 == 3 for rs in runs for r in rs):
                out = (self.all,)
        elif s == 4:
            cap = 4 if self.cap is None else self.cap
            for j in range(0, fm + fo + 1):
                if set_split(x, j, cap, self.v.max_set, self.v.min_meld) is None:
                    continue
                jm = min(j, fm)
                jo = j - jm
                child = self._g(pi + 1, 0, runs, (0, 0, 0, 0), fm - jm, fo - jo)
                if child:
                    out = _merge(out, _shift(child, self._joker_gain(fo, jo)))
        else:
            out = self._suit_payload(pi, s, runs, x, fm, fo)
        self.gmemo[key] = out
        return out

    def _suit_payload(self, pi: int, s: int, runs: tuple, x: tuple, fm: int, fo: int) -> Payload:
        future_suits, future_cards = self.future[pi][s]
        capj = 4 if self.cap is None else self.cap
        best_possible = self.upper[pi] + 1  # a payload this long cannot grow: stop early
        out: Payload = ()
        for total, gain, comp in self.gtotals[pi][s]:
            for _move, new_runs, xs, jm, jo in self._moves(pi, s, runs, fm, fo, total):
                nx = x[:s] + (xs,) + x[s + 1:]
                nfm, nfo = fm - jm, fo - jo
                if xs or any(nx):
                    jl = nfm + nfo
                    if (sum(1 for v in nx if v) + future_suits + min(jl, capj) < self.v.min_meld
                            or sum(nx) + future_cards + jl < self.v.min_meld * max(nx)):
                        continue
                nruns = runs[:s] + (new_runs,) + runs[s + 1:]
                child = self._g(pi, s + 1, nruns, nx, nfm, nfo)
                if not child:
                    continue
                child = _restrict(child, comp)
                if child:
                    out = _merge(out, _shift(child, gain + self._joker_gain(fo, jo)))
                    if len(out) >= best_possible and out[-1] == self.all:
                        return out
        return out

    # -- the answer --------------------------------------------------------------------

    def solve(self) -> tuple[list[list[int]], list[int], int] | None:
        import sys

        sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
        self._init_masks()
        self._init_gain_totals()
        start = ((), (), (), ())
        root = self._g(0, 0, start, (0, 0, 0, 0), self.fm0, self.fo0)
        if not root:
            return None
        need = [len(root) - 1]
        top = root[-1]
        r = (top & -top).bit_length() - 1
        res = self._res_of(r)
        bit = 1 << r

        def choose(key: tuple) -> tuple:
            pi, s, runs, x, fm, fo, _ = key
            if s == 4:
                cap = 4 if self.cap is None else self.cap
                for j in range(0, fm + fo + 1):
                    if set_split(x, j, cap, self.v.max_set, self.v.min_meld) is None:
                        continue
                    jm = min(j, fm)
                    jo = j - jm
                    rest = need[0] - self._joker_gain(fo, jo)
                    child = self._g(pi + 1, 0, runs, (0, 0, 0, 0), fm - jm, fo - jo)
                    if rest >= 0 and len(child) > rest and child[rest] & bit:
                        need[0] = rest
                        return (j, jm, jo)
                raise AssertionError("no set split on the chosen path")
            for total, gain, comp in self.gtotals[pi][s]:
                if not comp & bit:
                    continue
                for move, new_runs, xs, jm, jo in self._moves(pi, s, runs, fm, fo, total):
                    rest = need[0] - gain - self._joker_gain(fo, jo)
                    if rest < 0:
                        continue
                    nruns = runs[:s] + (new_runs,) + runs[s + 1:]
                    nx = x[:s] + (xs,) + x[s + 1:]
                    child = self.gmemo.get((pi, s + 1, nruns, nx, fm - jm, fo - jo), ())
                    if len(child) > rest and child[rest] & bit:
                        need[0] = rest
                        return (total, move, jm, jo, res)
            raise AssertionError("no move on the chosen path")

        return self._rebuild(start, choose)


def most_down(variant: Variant, mand: Sequence[int], opt: Sequence[int], hand: Sequence[int], free_m: int,
              free_o: int, hand_jokers: int) -> tuple[list[list[int]], list[int], int] | None:
    """:class:`BestDP` in one call (see there)."""
    assert all(0 <= h <= o for h, o in zip(hand, opt, strict=True)), "hand copies are optional copies"
    assert cards.JOKER == 64
    return BestDP(variant, mand, opt, hand, free_m, free_o, hand_jokers).solve()
