"""Roll-out policies for search: cheap rules of thumb on the engine's integer fast path.

A random roll-out judges a bid by what random play would take with the hand, which says little about
what a player who keeps to a bid takes: search then bids and plays to noise. These policies play the
heuristic's plan (take tricks while short of the bid, duck once it is made) in a few integer
comparisons, with a little randomness so that the roll-outs of one determinisation still differ.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.ai.heuristic import estimate_tricks
from engine.tricks import plain_winning_index

# The share of roll-out moves played at random (diversity; a pure policy is easy to exploit).
EPSILON = 0.1
BID_CODE = 64  # Oh Hell's fast path: bid b is the int 64 + b (the Oh Hell rules module)
BID_NOISE = 0.6


def _power(card: int, trump: int) -> int:
    """Strength to give up: trumps above every plain card, then rank (codes are suit * 16 + rank)."""
    return (card & 15) + (20 if card >> 4 == trump else 0)


def _beats(card: int, best: int, trump: int) -> bool:
    suit, best_suit = card >> 4, best >> 4
    if suit == best_suit:
        return card > best
    return suit == trump


def oh_hell_policy(state: Any, seat: int, legal: list[int], rng: random.Random, epsilon: float = EPSILON) -> int:
    """Oh Hell: bid about the hand's estimated tricks; play for the bid (cheapest sure winner when
    last, the strongest card otherwise; the strongest loser once the bid is made)."""
    if len(legal) == 1:
        return legal[0]
    if epsilon and rng.random() < epsilon:
        return legal[rng.randrange(len(legal))]
    trump = state.trump
    if legal[0] >= BID_CODE:
        guess = estimate_tricks(state.hands[seat], trump, state.n) + rng.uniform(-BID_NOISE, BID_NOISE)
        return min(legal, key=lambda a: abs(a - BID_CODE - guess))
    want = state.won[seat] < state.bids[seat]
    trick = state.trick
    if not trick:
        return max(legal, key=lambda c: _power(c, trump)) if want else min(legal, key=lambda c: _power(c, trump))
    best = trick[plain_winning_index(trick, trump)]
    winners = [c for c in legal if _beats(c, best, trump)]
    losers = [c for c in legal if not _beats(c, best, trump)]
    if want:
        if not winners:
            return min(losers, key=lambda c: _power(c, trump))
        last = len(trick) == state.n - 1
        return (min if last else max)(winners, key=lambda c: _power(c, trump))
    if losers:
        return max(losers, key=lambda c: _power(c, trump))
    return max(winners, key=lambda c: _power(c, trump))


Policy = Callable[[Any, int, list[int], random.Random], int]
POLICIES: dict[str, Policy] = {"oh_hell": oh_hell_policy}
