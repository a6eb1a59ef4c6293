"""Variety's AI knowledge: name the contract the hand suits, play with the side (the attackers or the
defenders), want no trick in the contracts that count tricks against (VII and VIII), the lowest card
wins in VI; search counts deals by ``deal_index``."""

from __future__ import annotations

from typing import Protocol, cast

from engine.ai.knowledge import Knowledge
from engine.ai.tricks import TrickSense, hand_of, trick_game, trump_of
from engine.cards import rank_of, suit_of
from engine.core import State

LOW_WINS = 6  # the contract where the lowest card wins
NO_TRICKS = (7, 8)  # the contracts where tricks cost


class VarietySeen(Protocol):
    """The Variety state's fields the AI reads."""

    contract: int | None
    attackers: list[int]


def _seen(state: State) -> VarietySeen:
    return cast(VarietySeen, state)


def strength(state: State, card: int) -> float:
    rank = rank_of(card)
    base = 16.0 - rank if _seen(state).contract == LOW_WINS else float(rank)
    trump = trump_of(state)
    return base + (20 if suit_of(card) == trump and trump >= 0 else 0)


def wants_trick(state: State, seat: int) -> bool:
    return _seen(state).contract not in NO_TRICKS


def partner_winning(state: State, seat: int, best: int) -> bool:
    """The sides play together: a partner's trick is ours."""
    attackers = _seen(state).attackers
    return (seat in attackers) == (best in attackers)


def contract(state: State, seat: int, legal: list[str]) -> str:
    """Name the contract the hand suits best (trump length and honours; low cards for VI and VIII)."""
    hand = hand_of(state, seat)
    high = sum(1 for c in hand if rank_of(c) >= 12)
    low = sum(1 for c in hand if rank_of(c) <= 7)

    def score(named: int) -> float:
        count = {s: sum(1 for c in hand if suit_of(c) == s) for s in range(4)}
        return {
            1: high * 0.8, 2: count[3] + high * 0.3, 3: count[1] + 0.5 * count[0],
            4: count[2] + 0.3 * sum(1 for c in hand if suit_of(c) in (1, 2)), 5: count[0] + high * 0.3,
            6: count[3] + low * 0.3, 7: count[0] - count[3] * 0.5, 8: low * 0.8,
        }[named]

    return max(legal, key=lambda a: score(int(a.split()[1])))


KNOWLEDGE = Knowledge(
    heuristic=trick_game(TrickSense(strength=strength, wants_trick=wants_trick, partner_winning=partner_winning),
                         bid=contract),
    deal_field="deal_index",
    scale=12.0,
)
