"""Dealing hidden cards afresh for determinised search: the generic part of ``State.determinize``.

A game says which places hold cards the seat cannot see (other hands, the stock, a widow), how many
each holds, which cards the seat knows to be in one (a card it was shown) and which suits a place
cannot hold (a void revealed by not following suit). :func:`deal_hidden` deals the unseen cards to
those places at random under the constraints.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, TypeVar

from engine.cards import suit_of

TRIES = 40


@dataclass
class Slot:
    """A place holding ``size`` cards hidden from the seat: ``known`` of them are known to it (they
    stay), the rest are drawn from the unseen pool; no drawn card may be of a suit in ``void``."""

    size: int
    known: list[int] = field(default_factory=list)
    void: set[int] = field(default_factory=set)


def deal_hidden(slots: Sequence[Slot], pool: Sequence[int], rng: random.Random) -> list[list[int]]:
    """Deal ``pool`` (the unseen cards not known anywhere) into ``slots``: each gets its known cards
    plus ``size - len(known)`` drawn cards avoiding its voids. Most-constrained cards go first, each
    into a slot weighted by its room; after ``TRIES`` dead ends the voids are dropped (the true deal
    always satisfies them, so this only happens when a void was inferred too eagerly)."""
    room = [s.size - len(s.known) for s in slots]
    if sum(room) != len(pool) or min(room, default=0) < 0:
        raise ValueError(f"{len(pool)} unseen cards for {sum(room)} hidden places")
    if not any(s.void for s in slots):  # no constraint: one shuffle, cut into the slots (search's hot path)
        cards = sorted(pool)
        rng.shuffle(cards)
        cut: list[list[int]] = []
        at = 0
        for s, r in zip(slots, room, strict=True):
            cut.append([*s.known, *cards[at:at + r]])
            at += r
        return cut
    for attempt in range(TRIES + 1):
        relaxed = attempt == TRIES
        cards = sorted(pool)  # the deal must not depend on where the unseen cards really are
        rng.shuffle(cards)
        allowed = [
            [i for i, s in enumerate(slots) if relaxed or suit_of(c) not in s.void] for c in cards
        ]
        order = sorted(range(len(cards)), key=lambda k: len(allowed[k]))
        left = list(room)
        out: list[list[int]] = [list(s.known) for s in slots]
        for k in order:
            options = [i for i in allowed[k] if left[i] > 0]
            if not options:
                break
            total = sum(left[i] for i in options)
            pick = rng.randrange(total)
            for i in options:
                pick -= left[i]
                if pick < 0:
                    break
            out[i].append(cards[k])
            left[i] -= 1
        else:
            return out
    raise AssertionError("unreachable: the relaxed deal cannot fail")


class _HandsState(Protocol):
    hands: list[list[int]]

    def clone(self) -> Self: ...


_H = TypeVar("_H", bound=_HandsState)


def redeal_other_hands(state: _H, seat: int, voids: dict[int, set[int]], rng: random.Random,
                       key: Callable[[int], int]) -> _H:
    """A clone of ``state`` whose other seats' hands are dealt afresh from those hands' cards together,
    each keeping its size and its ``voids``, sorted by ``key``: the determinisation of the trick games
    whose only hidden cards are the other hands (Oh Hell, Variety)."""
    others = [s for s in range(len(state.hands)) if s != seat]
    slots = [Slot(len(state.hands[s]), void=voids.get(s, set())) for s in others]
    pool = [c for s in others for c in state.hands[s]]
    new = state.clone()
    for s, hand in zip(others, deal_hidden(slots, pool, rng), strict=True):
        new.hands[s] = sorted(hand, key=key)
    return new


def hide_future(state: Any, rng: random.Random) -> None:
    """Future deals come from the seed (or explicit deals): replace both so search cannot peek."""
    state.seed = rng.getrandbits(52)
    state.deals = []


def voids_from_trick(plays: Iterable[tuple[int, int]], trump: int | None = None,
                     must_trump: bool = False) -> dict[int, set[int]]:
    """Voids a single trick reveals: ``plays`` as (seat, card), the lead first. A follower off the led
    suit is void in it; where trumping is a duty (``must_trump``), one who did not trump is void in
    trumps too."""
    out: dict[int, set[int]] = {}
    plays = list(plays)
    if not plays:
        return out
    led = suit_of(plays[0][1])
    if led < 0:
        return out
    for seat, card in plays[1:]:
        suit = suit_of(card)
        if suit < 0 or suit == led:
            continue
        out.setdefault(seat, set()).add(led)
        if must_trump and trump is not None and trump >= 0 and suit != trump:
            out[seat].add(trump)
    return out


def merge_voids(into: dict[int, set[int]], more: dict[int, set[int]]) -> None:
    for seat, suits in more.items():
        into.setdefault(seat, set()).update(suits)
