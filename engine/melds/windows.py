"""Lower bounds from a few positions at a time, for the rank programme's hard cases.

The rank programme (``dp.py``) proves "no arrangement leaves out fewer than b cards" only by
searching every state; when the reason is local (three kings and a queen that need more
jokers than there are), a problem cut down to a window of positions proves the same with a
few hundred states. The window problem keeps the cards of positions ``a..b`` as they are and
makes the cards of the two positions on each side (and every ace, which may lie at either
end) optional at no cost. Any arrangement of the whole cut to ``a-2..b+2`` is one of the
window problem: a run reaching into the window from outside keeps three cards inside the cut,
melds outside the window lose their cards at no cost, jokers used are no more than before.
So the least budget of a window is a lower bound for the whole (and an impossible window
proves the whole impossible).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from engine import cards
from engine.melds.variants import Variant

Problem = tuple[list[int], list[int], list[int]]  # (mandatory, optional, weight-1 optional) per card


def _places(card: int) -> tuple[int, ...]:
    r = cards.rank_of(card)
    return (1, 14) if r == cards.ACE else (r,)


def window_problems(variant: Variant, mand: Sequence[int], opt: Sequence[int], hand: Sequence[int],
                    width: int) -> Iterator[Problem]:
    """The window problems of ``width`` positions, lowest window first (cards as in ``RankDP``:
    counts per card code; ``hand[c]`` of the ``opt[c]`` optional copies weigh 1)."""
    places = variant.positions()
    lo, hi = places[0], places[-1]
    for a in range(lo, hi - width + 2):
        b = a + width - 1
        m2, o2, h2 = [0] * 64, [0] * 64, [0] * 64
        for c in range(64):
            if not (mand[c] or opt[c]):
                continue
            near = [p for p in _places(c) if a - 2 <= p <= b + 2]
            if not near:
                continue
            if cards.rank_of(c) != cards.ACE and a <= near[0] <= b:
                m2[c], o2[c], h2[c] = mand[c], opt[c], hand[c]
            else:
                o2[c] = mand[c] + opt[c]
        yield m2, o2, h2
