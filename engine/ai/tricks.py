"""The easy level's trick play, what a sound club player does without counting, for any trick game.

Want the trick (short of the bid, or the trick is worth points) → win it as cheaply as is safe (the
cheapest winner when last to play, the strongest one otherwise), or throw the cheapest card when it
cannot be won; don't want it (the bid is made) → duck with the highest card that still loses, or get
rid of the highest when every card wins. Trumps and jokers are the most expensive cards, so they are
kept. Whether a play wins is asked of the engine (a clone plays it), so jokers over/under and pairs,
odd trump orders and odd rank orders need no code here: a game says only what differs from the plain
case (``TrickSense``: its card strengths, when it wants a trick, who its partner is...). Bids come
from an estimate of the hand's sure and likely tricks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast

from engine.cards import CARD_TEXT, rank_of, suit_of
from engine.core import State

_CODE = {text: code for code, text in CARD_TEXT.items()}
JOKERS = 64  # card codes from here up are jokers: the most expensive cards of all


class HoldsHands(Protocol):
    """A card game's state as the bid estimate reads it."""

    hands: list[list[int]]


def action_cards(action: str) -> list[int]:
    """The cards named in an action's text (``play JK over`` → [JK], ``give 7S 9H`` → [7S, 9H])."""
    return [_CODE[t] for t in action.split()[1:] if t in _CODE]


def trump_of(state: State) -> int:
    """The trump suit, -1 without one (no ``trump`` field, or no trump this deal)."""
    trump: int | None = getattr(state, "trump", -1)
    return -1 if trump is None else trump


def hand_of(state: State, seat: int) -> list[int]:
    return cast(HoldsHands, state).hands[seat]


def trump_strength(state: State, card: int) -> float:
    """The plain order: rank, trumps above every plain card."""
    trump = trump_of(state)
    return float(rank_of(card)) + (20 if suit_of(card) == trump and trump >= 0 else 0)


def _always(state: State, seat: int) -> bool:
    return True


def _never(state: State, seat: int, best: int) -> bool:
    return False


@dataclass(frozen=True)
class TrickSense:
    """What a trick game tells the trick play, beyond the plain case.

    ``strength``: how expensive a (non-joker) card is to give up. ``wants_trick``: whether the seat
    wants the trick in play. ``partner_winning``: whether the seat now winning the trick (not this
    seat) plays on our side. ``top_rank``: the rank that leads well (wins unless trumped).
    ``lead_options``: the plays worth leading among the legal ones (given their costs), when some
    are kept back or one is a must."""

    strength: Callable[[State, int], float] = trump_strength
    wants_trick: Callable[[State, int], bool] = _always
    partner_winning: Callable[[State, int, int], bool] = _never
    top_rank: int = 14
    lead_options: Callable[[State, int, list[str], dict[str, float]], list[str]] | None = None


PLAIN = TrickSense()


def strength(state: State, card: int, sense: TrickSense = PLAIN) -> float:
    """How expensive a card is to give up: jokers, then the game's order."""
    return 100.0 if card >= JOKERS else sense.strength(state, card)


def action_cost(state: State, action: str, sense: TrickSense = PLAIN) -> float:
    return sum(strength(state, c, sense) for c in action_cards(action))


def _best_now(state: State) -> int | None:
    """The seat currently winning the trick in play (None: no trick in play)."""
    trick = state.view(None).get("trick")
    return trick.get("best") if trick else None


def _outcome(state: State, seat: int, action: str) -> tuple[bool, bool]:
    """(wins the trick so far, completes it) if ``seat`` played ``action`` now."""
    trial = state.clone()
    events = trial.act(seat, action)
    for event in events:
        if event.get("type") == "trick":
            return event.get("winner") == seat, True
    return _best_now(trial) == seat, False


def trick_play(state: State, seat: int, legal: list[str], sense: TrickSense = PLAIN) -> str:
    """A card (or cards) to play to the trick; see the module docstring."""
    plays = [a for a in legal if action_cards(a)]
    if not plays:
        return legal[0]
    cost = {a: action_cost(state, a, sense) for a in plays}
    want = sense.wants_trick(state, seat)
    before = _best_now(state)
    if before is None:  # leading
        return _lead(state, plays, cost, want, sense, seat)
    if want and before != seat and sense.partner_winning(state, seat, before):
        want = False
    results = {a: _outcome(state, seat, a) for a in plays}
    winners = [a for a in plays if results[a][0]]
    losers = [a for a in plays if not results[a][0]]
    if want:
        if winners:
            last = any(results[a][1] for a in winners)
            return min(winners, key=cost.__getitem__) if last else max(winners, key=cost.__getitem__)
        return min(losers, key=cost.__getitem__)
    if losers:
        return max(losers, key=cost.__getitem__)
    return max(winners, key=cost.__getitem__)


def _lead(state: State, plays: list[str], cost: dict[str, float], want: bool, sense: TrickSense,
          seat: int) -> str:
    trump = trump_of(state)
    if not want:
        return min(plays, key=cost.__getitem__)
    if sense.lead_options is not None:
        plays = sense.lead_options(state, seat, plays, cost)
    side = [a for a in plays if all(suit_of(c) != trump for c in action_cards(a)) and "JK" not in a]
    tops = [a for a in side if rank_of(action_cards(a)[0]) == sense.top_rank]
    if tops:
        return max(tops, key=cost.__getitem__)
    pool = side or plays
    return min(pool, key=cost.__getitem__)


# -- bids ---------------------------------------------------------------------------------------
def estimate_tricks(hand: list[int], trump: int, players: int, short_pack: bool = False) -> float:
    """Tricks a hand should take: jokers and top trumps sure, side aces likely, length in trumps.
    ``short_pack``: a 6-to-ace double pack, where kings and queens rank higher."""
    est = 0.0
    trumps = [c for c in hand if c < JOKERS and suit_of(c) == trump]
    side_factor = (1.0 if players <= 4 else 0.8) if short_pack else min(1.3, 4.0 / players)
    trump_value = {14: 1.0, 13: 0.9, 12: 0.8, 11: 0.7} if short_pack else {14: 1.0, 13: 0.85, 12: 0.6, 11: 0.45}
    side_value = {14: 0.9, 13: 0.6, 12: 0.35, 11: 0.15} if short_pack else {14: 0.8, 13: 0.35, 12: 0.1}
    for card in hand:
        if card >= JOKERS:
            est += 1.0
            continue
        rank = rank_of(card)
        if suit_of(card) == trump:
            est += trump_value.get(rank, 0.5 if short_pack else 0.25)
        else:
            est += side_factor * side_value.get(rank, 0.0) * (1.0 if len(hand) > 2 or rank == 14 else 0.6)
    est += max(0, len(trumps) - 3) * 0.4
    return est


def bid_by_estimate(short_pack: bool = False) -> Callable[[State, int, list[str]], str]:
    """A bidder (``bid N`` actions) that bids nearest the hand's estimated tricks."""

    def bid(state: State, seat: int, legal: list[str]) -> str:
        est = estimate_tricks(hand_of(state, seat), trump_of(state), state.n, short_pack=short_pack)
        values = sorted(int(a.split()[1]) for a in legal)
        best = min(values, key=lambda b: (abs(b - est), b))
        return f"bid {best}"

    return bid


Rule = Callable[[State, int, list[str]], str]


def trick_game(sense: TrickSense = PLAIN, bid: Rule | None = None,
               before_play: Callable[[State, int, list[str]], str | None] | None = None) -> Rule:
    """The easy level of a bidding trick game: ``bid`` when the moves are bids (by the estimate by
    default), the dix when it may be declared, ``before_play`` (an auction) when it has a move, else
    the trick play."""
    bidder = bid or bid_by_estimate()

    def play(state: State, seat: int, legal: list[str]) -> str:
        if legal[0].startswith("bid"):
            return bidder(state, seat, legal)
        if "dix" in legal:
            return "dix"
        if before_play is not None:
            chosen = before_play(state, seat, legal)
            if chosen is not None:
                return chosen
        return trick_play(state, seat, legal, sense)

    return play
