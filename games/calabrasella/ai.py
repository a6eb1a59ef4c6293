"""Calabrasella's AI knowledge: its rank order (3, 2, ace, king...), the declaration by the count of
top cards, discards from short suits, the two against the soloist play together; search counts deals
by ``deal_no`` and, among the thousand-odd discards, looks at the cheapest."""

from __future__ import annotations

from typing import Protocol, cast

from engine.ai.knowledge import Knowledge
from engine.ai.tricks import TrickSense, action_cards, hand_of, trick_play
from engine.cards import rank_of, suit_of
from engine.core import State

ORDER = {3: 10, 2: 9, 14: 8, 13: 7, 12: 6, 11: 5, 7: 4, 6: 3, 5: 2, 4: 1}


class CalabrasellaSeen(Protocol):
    """The Calabrasella state's fields the AI reads."""

    phase: str
    soloist: int | None


def _seen(state: State) -> CalabrasellaSeen:
    return cast(CalabrasellaSeen, state)


def strength(state: State, card: int) -> float:
    return ORDER[rank_of(card)]


def partner_winning(state: State, seat: int, best: int) -> bool:
    """The two against the soloist play together: a partner's trick is ours."""
    soloist = _seen(state).soloist
    return soloist is not None and seat != soloist and best != soloist


SENSE = TrickSense(strength=strength, partner_winning=partner_winning, top_rank=3)


def move(state: State, seat: int, legal: list[str]) -> str:
    phase = _seen(state).phase
    hand = hand_of(state, seat)
    if phase == "declare":
        top = sum(1 for c in hand if rank_of(c) in (3, 2, 14))
        return "declare" if top >= 6 else "pass"
    if phase == "ask":
        asks = [a for a in legal if a.startswith("ask")]
        return asks[0] if asks else legal[-1]
    if phase == "return":
        return min(legal, key=lambda a: discard_cost(hand, action_cards(a)))
    if phase == "discard":
        ones = [a for a in legal if len(action_cards(a)) <= 2]
        return min(ones, key=lambda a: discard_rank(hand, a))
    if phase == "take":
        return max(legal, key=lambda a: sum(ORDER[rank_of(c)] for c in action_cards(a)))
    return trick_play(state, seat, legal, SENSE)


def discard_rank(hand: list[int], action: str) -> float:
    """Order discards: cheap cards per card first, and more of them (the widow may hold better)."""
    cards = action_cards(action)
    return discard_cost(hand, cards) / len(cards) - len(cards)


def discard_cost(hand: list[int], cards: list[int]) -> float:
    """A card is cheap to give away when low and in a short suit."""
    total = 0.0
    for card in cards:
        length = sum(1 for c in hand if suit_of(c) == suit_of(card))
        total += ORDER[rank_of(card)] + length
    return total


def shortlist(state: State, seat: int, legal: list[str], k: int) -> list[str] | None:
    """Among too many discards: the heuristic's and the cheapest others (elsewhere the default)."""
    if len(legal) <= k or _seen(state).phase != "discard":
        return None
    pick = move(state, seat, legal)
    rest = sorted((a for a in legal if a != pick), key=lambda a: discard_rank(hand_of(state, seat), a))
    return [pick, *rest[: k - 1]]


KNOWLEDGE = Knowledge(heuristic=move, deal_field="deal_no", scale=20.0, shortlist=shortlist)
