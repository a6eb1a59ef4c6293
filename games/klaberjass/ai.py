"""Klaberjass' AI knowledge: its trump order (jack, nine, ace, ten...) and plain order (ace, ten,
king...), an auction by the count of trumps and aces; search plays the cards but leaves the auction
to the heuristic (random roll-outs judge a bid by nine random tricks: noise, where the count of
trumps and aces is sound) and counts deals by ``deal_no``."""

from __future__ import annotations

from typing import Protocol, cast

from engine.ai.knowledge import Knowledge
from engine.ai.tricks import TrickSense, hand_of, trick_game, trump_of
from engine.cards import SUITS, rank_of, suit_of
from engine.core import State

TRUMP_ORDER = {11: 20, 9: 19, 14: 18, 10: 17, 13: 16, 12: 15, 8: 14, 7: 13}
PLAIN_ORDER = {14: 8, 10: 7, 13: 6, 12: 5, 11: 4, 9: 3, 8: 2, 7: 1}
AUCTION = frozenset({"bid1", "bid2", "schmeiss"})


class KlaberjassSeen(Protocol):
    """The Klaberjass state's fields the AI reads."""

    phase: str
    upcard: int


def _seen(state: State) -> KlaberjassSeen:
    return cast(KlaberjassSeen, state)


def strength(state: State, card: int) -> float:
    rank = rank_of(card)
    return (TRUMP_ORDER[rank] + 20) if suit_of(card) == trump_of(state) else PLAIN_ORDER[rank]


def auction(state: State, seat: int, legal: list[str]) -> str:
    hand = hand_of(state, seat)

    def power(suit: int) -> float:
        trumps = [rank_of(c) for c in hand if suit_of(c) == suit]
        points = sum({11: 20, 9: 14, 14: 11, 10: 10, 13: 4, 12: 3}.get(r, 0) for r in trumps)
        aces = sum(1 for c in hand if rank_of(c) == 14 and suit_of(c) != suit)
        return points + 8 * aces + 5 * len(trumps)

    if "accept" in legal:
        turned = suit_of(_seen(state).upcard)
        return "accept" if power(turned) < 45 else "refuse"
    if "take" in legal:
        return "take" if power(suit_of(_seen(state).upcard)) >= 42 else "pass"
    names = [a for a in legal if a.startswith("name")]
    best = max(names, key=lambda a: power(SUITS.index(a.split()[1])), default=None)
    if best is not None and power(SUITS.index(best.split()[1])) >= 48:
        return best
    return "pass"


def before_play(state: State, seat: int, legal: list[str]) -> str | None:
    """Outside the card play (the auction and its schmeiss), the auction's rule."""
    return auction(state, seat, legal) if _seen(state).phase != "play" else None


KNOWLEDGE = Knowledge(
    heuristic=trick_game(TrickSense(strength=strength), before_play=before_play),
    deal_field="deal_no",
    scale=80.0,
    heuristic_phases=AUCTION,
)
