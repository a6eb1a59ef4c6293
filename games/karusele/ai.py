"""Karusele's AI knowledge: captures valued by the points they bring; search ranks only the
heuristic's best few moves (random roll-outs are too noisy to rank twenty captures, builds and
trails; they do tell the best few apart), prefers captures in its roll-outs and cuts them after a few
moves each, scoring the piles as they stand (a deal is too long to play out every iteration)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any, Protocol, cast

from engine.ai.knowledge import Horizon, Knowledge
from engine.ai.tricks import action_cards
from engine.cards import JOKER, rank_of, suit_of
from engine.core import State, get_game

GAME_ID = "karusele"


class KaruseleSeen(Protocol):
    """The Karusele state's fields and methods the AI reads."""

    piles: list[list[int]]

    def side_of(self, seat: int) -> int: ...

    def _deal_points(self) -> dict[str, Any]: ...


def _seen(state: State) -> KaruseleSeen:
    return cast(KaruseleSeen, state)


@cache
def _specials() -> dict[int, tuple[str, int]]:
    """The special cards and their points, from the rules module the registry loaded."""
    found: dict[int, tuple[str, int]] = importlib.import_module(get_game(GAME_ID).state.__module__).SPECIAL_POINTS
    return found


def card_points(card: int) -> float:
    """What a captured card is worth: the specials' points, a spade 1 (+ most spades), any card a little
    (most cards)."""
    special = _specials()
    pts: float = special[card][1] if card in special else 0
    if card < 64 and suit_of(card) == 0:
        pts += 1.2
    return pts + 0.2


def ranked(state: State, seat: int, legal: list[str]) -> list[str]:
    """Moves, best first: points captured, a little for building, a cost for trailing value."""
    pile_before = len(_seen(state).piles[seat])

    def value(action: str) -> float:
        trial = state.clone()
        trial.act(seat, action)
        gained = _seen(trial).piles[seat][pile_before:]
        score = sum(card_points(c) for c in gained)
        verb = action.split()[0]
        played = action_cards(action)[0] if action_cards(action) else JOKER
        if verb == "trail":
            score -= 0.5 * card_points(played)
            if rank_of(played) in (11, 12, 13):
                score += 0.1  # courts are worth nothing and rarely give a capture away
        elif verb == "build":
            score += 0.6
        elif verb == "sweep" and not gained:
            score -= 5
        return score

    values = {a: value(a) for a in legal}
    return sorted(legal, key=lambda a: -values[a])


def move(state: State, seat: int, legal: list[str]) -> str:
    return ranked(state, seat, legal)[0]


def shortlist(state: State, seat: int, legal: list[str], k: int) -> list[str]:
    return ranked(state, seat, legal)[:k]


def outlook(state: State) -> list[int]:
    """The totals if the deal ended now: the captured piles scored as they stand."""
    seen = _seen(state)
    points = seen._deal_points()["side_points"]
    return [t + points[seen.side_of(s)] for s, t in enumerate(state.scores())]


KNOWLEDGE = Knowledge(
    heuristic=move,
    deal_field="deal_no",
    scale=12.0,
    horizon=Horizon(plies=4, outlook=outlook),
    greedy=("take", "sweep"),
    root_shortlist=4,
    shortlist=shortlist,
)
