"""Oh Hell against an independent implementation: OpenSpiel's ``oh_hell`` (optional dependency).

Both engines get the same deal (same cards to the same seats, the same trump card, the same dealer)
and the same moves; at every step they must agree on who acts and on the set of legal bids or cards,
and at the end on the tricks each seat took and on the score. OpenSpiel's rules match ours with the
hook on (the dealer may not make the bids total the tricks), one deal of k cards, a trump always turned.
"""

from __future__ import annotations

import random
import re

import pytest

from engine.cards import card_str, make
from engine.core import get_game

pyspiel = pytest.importorskip("pyspiel")

# OpenSpiel's card id is rank_index * 4 + suit_index, rank 2..A, suits in the order C D S H.
OS_SUITS_TO_OURS = {0: 3, 1: 2, 2: 0, 3: 1}
NUM_CARDS = 52


def os_to_card(action: int) -> int:
    return make(action // 4 + 2, OS_SUITS_TO_OURS[action % 4])


def test_card_mapping_matches_openspiel_names() -> None:
    game = pyspiel.load_game("oh_hell", {"players": 3, "num_tricks_fixed": 1})
    state = game.new_initial_state()
    state.apply_action(1)  # number of tricks
    state.apply_action(0)  # dealer
    for action in range(NUM_CARDS):
        name = state.action_to_string(action)  # e.g. "CT", "HA": suit then rank
        ours = card_str(os_to_card(action))
        rank = "10" if name[1] == "T" else name[1]
        assert ours == rank + name[0]
    assert len({os_to_card(a) for a in range(NUM_CARDS)}) == NUM_CARDS


def os_tricks_won(state) -> list[int]:
    match = re.search(r"Tricks Won:\s+([\d ]+)", str(state))
    assert match, "OpenSpiel's state text changed"
    return [int(x) for x in match.group(1).split()]


def play_one(games: dict, n: int, k: int, rng: random.Random) -> int:
    """Deal with OpenSpiel's chance nodes, copy the deal into ours, play both in lockstep; return steps."""
    os_game = games.setdefault((n, k), pyspiel.load_game(
        "oh_hell", {"players": n, "num_tricks_fixed": k, "off_bid_penalty": False, "points_per_trick": 1}))
    os_state = os_game.new_initial_state()
    os_state.apply_action(k)  # the (fixed) number of tricks
    dealer = rng.randrange(n)
    os_state.apply_action(dealer)
    hands: list[list[str]] = [[] for _ in range(n)]
    dealt = 0
    while os_state.is_chance_node():
        card = rng.choice([a for a, _ in os_state.chance_outcomes()])
        os_state.apply_action(card)
        if dealt < n * k:
            hands[dealt % n].append(card_str(os_to_card(card)))  # OpenSpiel deals card i to player i % n
        else:
            trump_card = card_str(os_to_card(card))
        dealt += 1
    options = {"hook": True, "hand_sizes": [k], "last_deal_no_trump": False}
    ours = get_game("oh_hell").new(n, seed=rng.randrange(10**9), options=options,
                                   deals=[{"dealer": dealer, "hands": hands, "trump": trump_card}])
    assert ours.view(None)["trump_card"] == trump_card
    steps = 0
    while not os_state.is_terminal():
        seat = os_state.current_player()
        assert ours.to_act == seat, f"step {steps}: OpenSpiel has seat {seat} to act, we have {ours.to_act}"
        os_legal = os_state.legal_actions()
        if ours.view(None)["phase"] == "bid":
            expected = {f"bid {a - NUM_CARDS}" for a in os_legal}
            to_os = {f"bid {a - NUM_CARDS}": a for a in os_legal}
        else:
            expected = {f"play {card_str(os_to_card(a))}" for a in os_legal}
            to_os = {f"play {card_str(os_to_card(a))}": a for a in os_legal}
        legal = ours.legal_actions(seat)
        assert set(legal) == expected, f"step {steps}: legal actions differ"
        assert len(legal) == len(expected)
        action = legal[rng.randrange(len(legal))]
        ours.act(seat, action)
        os_state.apply_action(to_os[action])
        steps += 1
    assert ours.over
    deal = ours.sheet()["deals"][0]
    assert deal["tricks"] == os_tricks_won(os_state)
    os_returns = os_state.returns()
    for bid, took, points, os_points in zip(deal["bids"], deal["tricks"], deal["points"], os_returns, strict=True):
        # OpenSpiel scores tricks + 10 for an exact bid; ours 10 + bid, or 0 for a miss
        assert points == (int(os_points) if bid == took else 0)
    return steps


def test_oh_hell_matches_openspiel_on_random_deals() -> None:
    rng = random.Random(20240601)
    games: dict = {}
    deals = 0
    steps = 0
    for n in range(3, 8):
        max_k = (NUM_CARDS - 1) // n  # OpenSpiel always turns a trump card
        for _ in range(500):
            steps += play_one(games, n, rng.randint(1, max_k), rng)
            deals += 1
    assert deals == 2500 and steps > 50_000


def test_bench_simulated_deals_are_the_same_for_openspiel() -> None:
    """bench/oh_hell.py shuffles OpenSpiel's pack inside its timing (as ours is): the same generator and
    code must give OpenSpiel the very deals ours plays (same hands, same trump card), or the ratio compares
    different work."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import oh_hell as bench  # type: ignore[import-not-found]

    from games.oh_hell.rules import OhHellState

    game = pyspiel.load_game("oh_hell", {"players": bench.PLAYERS, "num_tricks_fixed": bench.CARDS})
    packs = bench.sim_packs(50)
    expected = bench.deals_for_openspiel(
        [OhHellState.from_pack(bench.PLAYERS, bench._options(), pack) for pack in packs])
    rng = random.Random(bench.SIM_SEED)
    for want in expected:
        got = bench.os_shuffled_pack(rng)[: bench.PLAYERS * bench.CARDS + 1]
        states = []
        for cards in (want, got):
            state = game.new_initial_state()
            state.apply_action(bench.CARDS)
            state.apply_action(bench.PLAYERS - 1)
            for card in cards:
                state.apply_action(card)
            states.append(str(state))
        assert states[0] == states[1]
