"""The easy level: a rule-of-thumb player per game, what a sound club player does without counting.

Trick games share one play rule: want the trick (short of the bid, or the trick is worth points)
→ win it as cheaply as is safe (the cheapest winner when last to play, the strongest one otherwise),
or throw the cheapest card when it cannot be won; don't want it (the bid is made) → duck with the
highest card that still loses, or get rid of the highest when every card wins. Trumps and jokers are
the most expensive cards, so they are kept. Whether a play wins is asked of the engine (a clone plays
it), so Carnival's jokers over/under and pairs, Klaberjass' trump order and Calabrasella's 3-2-A
order need no code of their own. Bids come from an estimate of the hand's sure and likely tricks;
Karusele captures are valued by the points they bring.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable

from engine.cards import CARD_TEXT, JOKER, SUITS, rank_of, suit_of
from engine.core import State, get_game

_CODE = {text: code for code, text in CARD_TEXT.items()}


def action_cards(action: str) -> list[int]:
    """The cards named in an action's text (``play JK over`` → [JK], ``give 7S 9H`` → [7S, 9H])."""
    return [_CODE[t] for t in action.split()[1:] if t in _CODE]


# -- card strength per game (orders a hand from cheap to expensive) ----------------------------
_KLAB_TRUMP = {11: 20, 9: 19, 14: 18, 10: 17, 13: 16, 12: 15, 8: 14, 7: 13}
_KLAB_PLAIN = {14: 8, 10: 7, 13: 6, 12: 5, 11: 4, 9: 3, 8: 2, 7: 1}
_CALA = {3: 10, 2: 9, 14: 8, 13: 7, 12: 6, 11: 5, 7: 4, 6: 3, 5: 2, 4: 1}


def trump_of(state: State) -> int:
    trump = getattr(state, "trump", -1)
    return -1 if trump is None else trump


def strength(state: State, card: int) -> float:
    """How expensive a card is to give up: jokers, then trumps, then rank within the game's order."""
    if card >= 64:
        return 100.0
    game, suit, rank = state.GAME_ID, suit_of(card), rank_of(card)
    trump = trump_of(state)
    if game == "klaberjass":
        return (_KLAB_TRUMP[rank] + 20) if suit == trump else _KLAB_PLAIN[rank]
    if game == "calabrasella":
        return _CALA[rank]
    base = float(rank)
    if game == "variety" and getattr(state, "contract", None) == 6:
        base = 16.0 - rank  # the lowest card wins
    return base + (20 if suit == trump and trump >= 0 else 0)


def action_cost(state: State, action: str) -> float:
    return sum(strength(state, c) for c in action_cards(action))


# -- trick games ---------------------------------------------------------------------------------
def _best_now(state: State) -> int | None:
    """The seat currently winning the trick in play (None: no trick in play)."""
    trick = state.view(None).get("trick")
    return trick.get("best") if trick else None


def _wants_trick(state: State, seat: int) -> bool:
    game = state.GAME_ID
    if game in ("oh_hell", "carnival"):
        bids, won = state.bids, (state.won if game == "oh_hell" else state.tricks)  # type: ignore[attr-defined]
        return bids[seat] is not None and won[seat] < bids[seat]
    if game == "variety":
        return state.contract not in (7, 8)  # type: ignore[attr-defined]
    return True


def _partner_winning(state: State, seat: int, best: int | None) -> bool:
    """Calabrasella's partners and Variety's sides play together: a partner's trick is ours."""
    if best is None or best == seat:
        return False
    if state.GAME_ID == "calabrasella":
        soloist = state.soloist  # type: ignore[attr-defined]
        return soloist is not None and seat != soloist and best != soloist
    if state.GAME_ID == "variety":
        attackers = state.attackers  # type: ignore[attr-defined]
        return (seat in attackers) == (best in attackers)
    return False


def _outcome(state: State, seat: int, action: str) -> tuple[bool, bool]:
    """(wins the trick so far, completes it) if ``seat`` played ``action`` now."""
    trial = state.clone()
    events = trial.act(seat, action)
    for event in events:
        if event.get("type") == "trick":
            return event.get("winner") == seat, True
    return _best_now(trial) == seat, False


def trick_play(state: State, seat: int, legal: list[str]) -> str:
    plays = [a for a in legal if action_cards(a)]
    if not plays:
        return legal[0]
    cost = {a: action_cost(state, a) for a in plays}
    want = _wants_trick(state, seat)
    before = _best_now(state)
    if before is None:  # leading
        return _lead(state, seat, plays, cost, want)
    if want and _partner_winning(state, seat, before):
        want = False
    results = {a: _outcome(state, seat, a) for a in plays}
    winners = [a for a in plays if results[a][0]]
    losers = [a for a in plays if not results[a][0]]
    if want:
        if winners:
            last = any(results[a][1] for a in winners)
            return min(winners, key=cost.get) if last else max(winners, key=cost.get)  # type: ignore[arg-type]
        return min(losers, key=cost.get)  # type: ignore[arg-type]
    if losers:
        return max(losers, key=cost.get)  # type: ignore[arg-type]
    return max(winners, key=cost.get)  # type: ignore[arg-type]


def _lead(state: State, seat: int, plays: list[str], cost: dict[str, float], want: bool) -> str:
    trump = trump_of(state)
    if not want:
        return min(plays, key=cost.get)  # type: ignore[arg-type]
    game = state.GAME_ID
    if game == "carnival":
        bids, tricks = state.bids, state.tricks  # type: ignore[attr-defined]
        pairs = [a for a in plays if a.startswith("carnival")]
        if pairs and bids[seat] - tricks[seat] >= 2:
            return max(pairs, key=cost.get)  # type: ignore[arg-type]
        plays = [a for a in plays if not a.startswith("carnival")] or plays
    side = [a for a in plays if all(suit_of(c) != trump for c in action_cards(a)) and "JK" not in a]
    tops = [a for a in side if _is_top(state, action_cards(a)[0])]
    if tops:
        return max(tops, key=cost.get)  # type: ignore[arg-type]
    pool = side or plays
    return min(pool, key=cost.get)  # type: ignore[arg-type]


def _is_top(state: State, card: int) -> bool:
    """An ace (Klaberjass: an ace; Calabrasella: a 3) leads well: it wins unless trumped."""
    rank = rank_of(card)
    return rank == (3 if state.GAME_ID == "calabrasella" else 14)


# -- bids ---------------------------------------------------------------------------------------
def estimate_tricks(hand: list[int], trump: int, players: int, short_pack: bool = False) -> float:
    """Tricks a hand should take: jokers and top trumps sure, side aces likely, length in trumps.
    ``short_pack``: Carnival's 6-to-ace double pack, where kings and queens rank higher."""
    est = 0.0
    trumps = [c for c in hand if c < 64 and suit_of(c) == trump]
    side_factor = (1.0 if players <= 4 else 0.8) if short_pack else min(1.3, 4.0 / players)
    trump_value = {14: 1.0, 13: 0.9, 12: 0.8, 11: 0.7} if short_pack else {14: 1.0, 13: 0.85, 12: 0.6, 11: 0.45}
    side_value = {14: 0.9, 13: 0.6, 12: 0.35, 11: 0.15} if short_pack else {14: 0.8, 13: 0.35, 12: 0.1}
    for card in hand:
        if card >= 64:
            est += 1.0
            continue
        rank = rank_of(card)
        if suit_of(card) == trump:
            est += trump_value.get(rank, 0.5 if short_pack else 0.25)
        else:
            est += side_factor * side_value.get(rank, 0.0) * (1.0 if len(hand) > 2 or rank == 14 else 0.6)
    est += max(0, len(trumps) - 3) * 0.4
    return est


def choose_bid(state: State, seat: int, legal: list[str]) -> str:
    hand = state.hands[seat]  # type: ignore[attr-defined]
    est = estimate_tricks(hand, trump_of(state), state.n, short_pack=state.GAME_ID == "carnival")
    values = sorted(int(a.split()[1]) for a in legal)
    best = min(values, key=lambda b: (abs(b - est), b))
    return f"bid {best}"


def variety_contract(state: State, seat: int, legal: list[str]) -> str:
    """Name the contract the hand suits best (trump length and honours; low cards for VI and VIII)."""
    hand = state.hands[seat]  # type: ignore[attr-defined]
    high = sum(1 for c in hand if rank_of(c) >= 12)
    low = sum(1 for c in hand if rank_of(c) <= 7)

    def score(contract: int) -> float:
        count = {s: sum(1 for c in hand if suit_of(c) == s) for s in range(4)}
        return {
            1: high * 0.8, 2: count[3] + high * 0.3, 3: count[1] + 0.5 * count[0],
            4: count[2] + 0.3 * sum(1 for c in hand if suit_of(c) in (1, 2)), 5: count[0] + high * 0.3,
            6: count[3] + low * 0.3, 7: count[0] - count[3] * 0.5, 8: low * 0.8,
        }[contract]

    return max(legal, key=lambda a: score(int(a.split()[1])))


def klaberjass_auction(state: State, seat: int, legal: list[str]) -> str:
    hand = state.hands[seat]  # type: ignore[attr-defined]

    def power(suit: int) -> float:
        trumps = [rank_of(c) for c in hand if suit_of(c) == suit]
        points = sum({11: 20, 9: 14, 14: 11, 10: 10, 13: 4, 12: 3}.get(r, 0) for r in trumps)
        aces = sum(1 for c in hand if rank_of(c) == 14 and suit_of(c) != suit)
        return points + 8 * aces + 5 * len(trumps)

    if "accept" in legal:
        turned = suit_of(state.upcard)  # type: ignore[attr-defined]
        return "accept" if power(turned) < 45 else "refuse"
    if "take" in legal:
        return "take" if power(suit_of(state.upcard)) >= 42 else "pass"  # type: ignore[attr-defined]
    names = [a for a in legal if a.startswith("name")]
    best = max(names, key=lambda a: power(SUITS.index(a.split()[1])), default=None)
    if best is not None and power(SUITS.index(best.split()[1])) >= 48:
        return best
    return "pass"


def calabrasella_move(state: State, seat: int, legal: list[str]) -> str:
    phase = state.phase  # type: ignore[attr-defined]
    hand = state.hands[seat]  # type: ignore[attr-defined]
    if phase == "declare":
        top = sum(1 for c in hand if rank_of(c) in (3, 2, 14))
        return "declare" if top >= 6 else "pass"
    if phase == "ask":
        asks = [a for a in legal if a.startswith("ask")]
        return asks[0] if asks else legal[-1]
    if phase == "return":
        return min(legal, key=lambda a: _discard_cost(hand, action_cards(a)))
    if phase == "discard":
        ones = [a for a in legal if len(action_cards(a)) <= 2]
        return min(ones, key=lambda a: _discard_rank(hand, a))
    if phase == "take":
        return max(legal, key=lambda a: sum(_CALA[rank_of(c)] for c in action_cards(a)))
    return trick_play(state, seat, legal)


def _discard_rank(hand: list[int], action: str) -> float:
    """Order discards: cheap cards per card first, and more of them (the widow may hold better)."""
    cards = action_cards(action)
    return _discard_cost(hand, cards) / len(cards) - len(cards)


def _discard_cost(hand: list[int], cards: list[int]) -> float:
    """Calabrasella: a card is cheap to give away when low and in a short suit."""
    total = 0.0
    for card in cards:
        length = sum(1 for c in hand if suit_of(c) == suit_of(card))
        total += _CALA[rank_of(card)] + length
    return total


# -- Karusele ----------------------------------------------------------------------------------
def karusele_card_points(card: int) -> float:
    """What a captured card is worth: the specials' points, a spade 1 (+ most spades), any card a little
    (most cards)."""
    special = _karusele_specials()
    pts: float = special[card][1] if card in special else 0
    if card < 64 and suit_of(card) == 0:
        pts += 1.2
    return pts + 0.2


def _karusele_specials() -> dict[int, tuple[str, int]]:
    """Karusele's special cards and their points, from wherever the game's module lives."""
    global _SPECIALS
    if _SPECIALS is None:
        _SPECIALS = importlib.import_module(get_game("karusele").state.__module__).SPECIAL_POINTS
    return _SPECIALS


_SPECIALS: dict[int, tuple[str, int]] | None = None


def karusele_move(state: State, seat: int, legal: list[str]) -> str:
    return karusele_ranked(state, seat, legal)[0]


def karusele_ranked(state: State, seat: int, legal: list[str]) -> list[str]:
    """Karusele moves, best first: points captured, a little for building, a cost for trailing value."""
    pile_before = len(state.piles[seat])  # type: ignore[attr-defined]

    def value(action: str) -> float:
        trial = state.clone()
        trial.act(seat, action)
        gained = trial.piles[seat][pile_before:]  # type: ignore[attr-defined]
        score = sum(karusele_card_points(c) for c in gained)
        verb = action.split()[0]
        played = action_cards(action)[0] if action_cards(action) else JOKER
        if verb == "trail":
            score -= 0.5 * karusele_card_points(played)
            if rank_of(played) in (11, 12, 13):
                score += 0.1  # courts are worth nothing and rarely give a capture away
        elif verb == "build":
            score += 0.6
        elif verb == "sweep" and not gained:
            score -= 5
        return score

    values = {a: value(a) for a in legal}
    return sorted(legal, key=lambda a: -values[a])


# -- the player ---------------------------------------------------------------------------------
def heuristic_action(state: State, seat: int, rng: random.Random | None = None) -> str:
    """The easy level's move for ``seat`` (which must be the seat to act)."""
    legal = state.legal_actions(seat)
    if not legal:
        raise ValueError("no legal action for this seat")
    if len(legal) == 1:
        return legal[0]
    game = state.GAME_ID
    rule: Callable[[State, int, list[str]], str] | None = _RULES.get(game)
    if rule is not None:
        return rule(state, seat, legal)
    if game == "svinya":
        for verb in ("pig", "shop", "lift"):
            moves = [a for a in legal if a.startswith(verb)]
            if moves:
                return moves[0]
    return legal[(rng or random.Random(0)).randrange(len(legal))]


def _trick_game(state: State, seat: int, legal: list[str]) -> str:
    if legal[0].startswith("bid"):
        return variety_contract(state, seat, legal) if state.GAME_ID == "variety" else choose_bid(state, seat, legal)
    if "dix" in legal:
        return "dix"
    if state.GAME_ID == "klaberjass" and state.phase != "play":  # type: ignore[attr-defined]
        return klaberjass_auction(state, seat, legal)
    return trick_play(state, seat, legal)


_RULES: dict[str, Callable[[State, int, list[str]], str]] = {
    "oh_hell": _trick_game,
    "carnival": _trick_game,
    "variety": _trick_game,
    "klaberjass": _trick_game,
    "calabrasella": calabrasella_move,
    "karusele": karusele_move,
}


class HeuristicPlayer:
    """The easy level as a seat-filler with the same interface as ``RandomPlayer``."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State, seat: int | None = None) -> str:
        return heuristic_action(state, state.to_act if seat is None else seat, self.rng)  # type: ignore[arg-type]


def shortlist(state: State, seat: int, legal: list[str], k: int, rng: random.Random) -> list[str]:
    """At most ``k`` moves worth searching: Karusele's best by the heuristic's values; where there are too
    many (Calabrasella's 1,000-odd discards), the heuristic's move, the cheapest discards or a random few."""
    if state.GAME_ID == "karusele":
        return karusele_ranked(state, seat, legal)[:k]
    if len(legal) <= k:
        return list(legal)
    pick = heuristic_action(state, seat, rng)
    rest = [a for a in legal if a != pick]
    if state.GAME_ID == "calabrasella" and state.phase == "discard":  # type: ignore[attr-defined]
        hand = state.hands[seat]  # type: ignore[attr-defined]
        rest.sort(key=lambda a: _discard_rank(hand, a))
        return [pick, *rest[: k - 1]]
    return [pick, *rng.sample(rest, k - 1)]
