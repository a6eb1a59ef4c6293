"""Oh Hell's AI knowledge: bid by the hand's estimated tricks, play for the bid; search with a roll-out
policy that keeps to the bid.

A random roll-out judges a bid by what random play would take with the hand, which says little about
what a player who keeps to a bid takes: search then bids and plays to noise. The roll-out policy plays
the heuristic's plan (take tricks while short of the bid, duck once it is made) in a few integer
comparisons, with a little randomness so that the roll-outs of one determinisation still differ.
"""

from __future__ import annotations

import random
from typing import Protocol, cast

from engine.ai.knowledge import Knowledge
from engine.ai.tricks import TrickSense, estimate_tricks, trick_game
from engine.core import State
from engine.tricks import plain_winning_index

# The share of roll-out moves played at random (diversity; a pure policy is easy to exploit).
EPSILON = 0.1
BID_CODE = 64  # the fast path: bid b is the int 64 + b (games/oh_hell/rules.py)
BID_NOISE = 0.6


class OhHellSeen(Protocol):
    """The Oh Hell state's fields the AI reads."""

    n: int
    trump: int
    hands: list[list[int]]
    bids: list[int | None]
    won: list[int]
    trick: list[int]


def _seen(state: State) -> OhHellSeen:
    return cast(OhHellSeen, state)


def _power(card: int, trump: int) -> int:
    """Strength to give up: trumps above every plain card, then rank (codes are suit * 16 + rank)."""
    return (card & 15) + (20 if card >> 4 == trump else 0)


def _beats(card: int, best: int, trump: int) -> bool:
    suit, best_suit = card >> 4, best >> 4
    if suit == best_suit:
        return card > best
    return suit == trump


def oh_hell_policy(state: State, seat: int, legal: list[int], rng: random.Random, epsilon: float = EPSILON) -> int:
    """Bid about the hand's estimated tricks; play for the bid (cheapest sure winner when last, the
    strongest card otherwise; the strongest loser once the bid is made)."""
    if len(legal) == 1:
        return legal[0]
    if epsilon and rng.random() < epsilon:
        return legal[rng.randrange(len(legal))]
    seen = _seen(state)
    trump = seen.trump
    if legal[0] >= BID_CODE:
        guess = estimate_tricks(seen.hands[seat], trump, seen.n) + rng.uniform(-BID_NOISE, BID_NOISE)
        return min(legal, key=lambda a: abs(a - BID_CODE - guess))
    bid = seen.bids[seat]
    want = bid is not None and seen.won[seat] < bid
    trick = seen.trick
    if not trick:
        return max(legal, key=lambda c: _power(c, trump)) if want else min(legal, key=lambda c: _power(c, trump))
    best = trick[plain_winning_index(trick, trump)]
    winners = [c for c in legal if _beats(c, best, trump)]
    losers = [c for c in legal if not _beats(c, best, trump)]
    if want:
        if not winners:
            return min(losers, key=lambda c: _power(c, trump))
        last = len(trick) == seen.n - 1
        return (min if last else max)(winners, key=lambda c: _power(c, trump))
    if losers:
        return max(losers, key=lambda c: _power(c, trump))
    return max(winners, key=lambda c: _power(c, trump))


def wants_trick(state: State, seat: int) -> bool:
    """Short of the bid."""
    seen = _seen(state)
    bid = seen.bids[seat]
    return bid is not None and seen.won[seat] < bid


KNOWLEDGE = Knowledge(
    heuristic=trick_game(TrickSense(wants_trick=wants_trick)),
    deal_field="deal_index",
    scale=10.0,
    rollout=oh_hell_policy,
)
