"""Carnival's AI knowledge: bid by the hand's estimate in its short double pack, play for the bid, lead
a pair while two or more tricks short; search counts deals by ``deal_index``."""

from __future__ import annotations

from typing import Protocol, cast

from engine.ai.knowledge import Knowledge
from engine.ai.tricks import TrickSense, bid_by_estimate, trick_game
from engine.core import State

PAIR = "carnival"  # the verb that leads a pair of identical cards


class CarnivalSeen(Protocol):
    """The Carnival state's fields the AI reads."""

    bids: list[int | None]
    tricks: list[int]


def _seen(state: State) -> CarnivalSeen:
    return cast(CarnivalSeen, state)


def wants_trick(state: State, seat: int) -> bool:
    """Short of the bid."""
    seen = _seen(state)
    bid = seen.bids[seat]
    return bid is not None and seen.tricks[seat] < bid


def lead_options(state: State, seat: int, plays: list[str], cost: dict[str, float]) -> list[str]:
    """Lead the dearest pair while two or more tricks short; otherwise keep the pairs back."""
    seen = _seen(state)
    bid = seen.bids[seat]
    pairs = [a for a in plays if a.startswith(PAIR)]
    if pairs and bid is not None and bid - seen.tricks[seat] >= 2:
        return [max(pairs, key=cost.__getitem__)]
    return [a for a in plays if not a.startswith(PAIR)] or plays


KNOWLEDGE = Knowledge(
    heuristic=trick_game(TrickSense(wants_trick=wants_trick, lead_options=lead_options),
                         bid=bid_by_estimate(short_pack=True)),
    deal_field="deal_index",
    scale=40.0,
)
