"""Variety: the RULES.md 10.4 auction and scoring examples as replayed records, contract rules, self-play."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine.cards import deck, parse_card, parse_cards
from engine.core import GameError, IllegalAction, OptionsError, get_game
from engine.record import load, replay
from engine.selfplay import POLICIES, play_game
from games.variety.rules import settle

DATA = Path(__file__).parent / "data"
GAME = get_game("variety")
# RULES.md 10.2: what both sides together capture in each contract
TOTALS = {1: 12, 2: 2 * 13, 3: 2 * 13, 4: 26 - 26, 5: 5 * 4 - 5 * 4, 6: 26, 7: -2 * 13, 8: -2 * 13}
TRUMPS = {1: None, 2: "C", 3: "H", 4: "D", 5: "S", 6: "C", 7: "S", 8: None}


# -- RULES.md 10.4 / 15.10 -----------------------------------------------------------------------------
def test_seed_auction_example_gives_contract_vii_p1_p3_and_p4_leads() -> None:
    record = load(DATA / "variety_auction.json")
    assert [a for _, a in record["actions"][:9]] == [
        "bid 1", "bid 2", "bid 3", "bid 4", "bid 5", "bid 6", "bid 7", "bid 8", "bid 7"]
    state = replay(record, upto=9)
    view = state.view(None)
    assert view["phase"] == "play" and view["contract"] == 7 and view["contract_name"] == "VII"
    assert view["attackers"] == [0, 2]  # P1 + P3
    assert view["first_bidder"] == 2 and view["leader"] == 3
    assert state.to_act == 3  # P4 leads, left of P3 who named VII first
    assert view["trump"] == "S"
    before = replay(record, upto=8)
    assert before.view(None)["phase"] == "auction" and before.to_act == 0
    assert "bid 1" not in before.legal_actions() and "bid 5" not in before.legal_actions()
    final = replay(record)
    assert final.over and final.sheet()["deals"][0]["contract"] == 7


def scored(name: str) -> dict:
    state = replay(load(DATA / name))
    assert state.over
    return state.sheet()["deals"][0]


def side_tricks(deal: dict) -> tuple[int, int]:
    attackers = sum(deal["tricks"][s] for s in deal["attackers"])
    return attackers, 13 - attackers


def test_contract_viii_attackers_win_with_fewer_minus_points() -> None:
    deal = scored("variety_viii_attackers_win.json")
    assert deal["contract"] == 8 and side_tricks(deal) == (5, 8)
    assert deal["attackers_won"] is True
    for s in range(4):
        assert deal["points"][s] == (-10 if s in deal["attackers"] else -16)


def test_contract_viii_attackers_lose_and_defenders_add_ten() -> None:
    deal = scored("variety_viii_attackers_lose.json")
    assert deal["contract"] == 8 and side_tricks(deal) == (8, 5)
    assert deal["attackers_won"] is False
    for s in range(4):
        assert deal["points"][s] == (-16 if s in deal["attackers"] else -10 + 10)


def test_contract_i_attackers_six_tricks_lose_defenders_get_twenty_two() -> None:
    deal = scored("variety_i_attackers_lose.json")
    assert deal["contract"] == 1 and side_tricks(deal) == (6, 7)
    for s in range(4):
        assert deal["points"][s] == (0 if s in deal["attackers"] else 12 + 10)


def test_settle_scores_each_contract_from_the_seed_table() -> None:
    attackers = [0, 2]
    tricks = [3, 3, 4, 3]
    captured = [[] for _ in range(4)]
    captured[0] = parse_cards("AS KS 10S JC 2H 3D")  # 3 spades, black 10 and J, 2 red
    captured[2] = parse_cards("10H JD 5C 6C")  # red 10 and J, 2 clubs
    rest = [c for c in deck(52) if c not in captured[0] + captured[2]]
    captured[1], captured[3] = rest[:21], rest[21:]

    def points(contract: int) -> tuple[int, int]:
        sides = settle(contract, attackers, tricks, captured)["side_points"]
        return sides["attackers"], sides["defenders"]

    assert points(2) == (2 * 7, 2 * 6)
    assert points(3) == (2 * 3, 2 * 10)
    assert points(4) == (4 - 6, 22 - 20)
    assert points(5) == (5 * 2 - 5 * 2, 5 * 2 - 5 * 2)
    assert points(6) == (4, 22)
    assert points(7) == (-2 * 3, -2 * 10)
    assert points(8) == (-14, -12)
    assert points(1) == (12, 0)
    tie = settle(4, attackers, tricks, [parse_cards("2H 2S"), [], [], parse_cards("3H 3S")])
    assert tie["side_points"] == {"attackers": 0, "defenders": 0} and tie["attackers_won"] is False
    assert tie["points"] == [0, 10, 0, 10]  # a tie is an attackers' loss


# -- the auction rules ---------------------------------------------------------------------------------------
def test_a_player_never_names_the_same_contract_twice() -> None:
    state = GAME.new(4, seed=2)
    for seat, c in [(0, 3), (1, 4), (2, 5), (3, 6)]:
        state.act(seat, f"bid {c}")
    assert state.legal_actions() == [f"bid {c}" for c in (1, 2, 4, 5, 6, 7, 8)]
    with pytest.raises(IllegalAction, match="already named"):
        state.act(0, "bid 3")
    events = state.act(0, "bid 6")  # P4's contract: the auction ends, P1 + P4 attack
    assert events[-1] == {"type": "contract", "contract": 6, "trump": "C", "attackers": [0, 3],
                          "first_bidder": 3, "leader": 0}
    assert state.to_act == 0 and state.view(0)["lowest_wins"] is True


def test_the_auction_ends_within_nine_bids_whatever_is_bid() -> None:
    for seed in range(30):
        state = GAME.new(4, seed=seed)
        bids = 0
        while state.view(None)["phase"] == "auction":
            legal = state.legal_actions()
            state.act(state.to_act, legal[(seed * 7 + bids * 3) % len(legal)])
            bids += 1
        assert bids <= 9
        auction = state.view(None)["auction"]
        last = auction[-1]
        earlier = [b for b in auction[:-1] if b["contract"] == last["contract"]]
        assert len(earlier) == 1 and earlier[0]["seat"] != last["seat"]
        assert state.view(None)["attackers"] == sorted([earlier[0]["seat"], last["seat"]])
        assert state.to_act == (earlier[0]["seat"] + 1) % 4


# -- play: follow suit only, contract VI lowest wins --------------------------------------------------------
def explicit_deal() -> list[dict]:
    hands = [
        "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2H",
        "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2S",
        "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2C",
        "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2D",
    ]
    return [{"dealer": 3, "hands": [h.split() for h in hands]}]


def to_contract(state, contract: int) -> None:
    state.act(0, f"bid {contract}")
    state.act(1, f"bid {contract}")


def test_contract_vi_lowest_card_of_the_led_suit_wins_and_lowest_trump_beats_it() -> None:
    state = GAME.new(4, seed=1, options={"deals": 1}, deals=explicit_deal())
    to_contract(state, 6)  # clubs trump; P1 named it first, so P2 leads
    assert state.to_act == 1
    state.act(1, "play 3H")
    state.act(2, "play AD")  # void in hearts: any card, no duty to trump
    state.act(3, "play 2D")
    events = state.act(0, "play 2H")
    assert events[-1]["winner"] == 0  # 2H is the lowest heart
    state.act(0, "play 3S")
    assert state.legal_actions() == ["play 2S"]
    state.act(1, "play 2S")
    state.act(2, "play 2C")
    events = state.act(3, "play 3C")
    assert events[-1]["winner"] == 2  # trumps beat spades; of the two trumps the lower wins


def test_highest_trump_wins_in_a_normal_contract() -> None:
    state = GAME.new(4, seed=1, options={"deals": 1}, deals=explicit_deal())
    to_contract(state, 5)  # spades trump
    state.act(1, "play AH")
    state.act(2, "play 2C")
    state.act(3, "play AC")
    events = state.act(0, "play 2H")
    assert events[-1]["winner"] == 1
    state.act(1, "play 2S")
    state.act(2, "play AD")
    state.act(3, "play 2D")
    events = state.act(0, "play 3S")
    assert events[-1]["winner"] == 0  # a trump led: the higher trump wins


def test_explicit_deal_and_option_validation() -> None:
    bad = explicit_deal()
    bad[0]["hands"][0][0] = "AH"  # AH twice, AS missing
    with pytest.raises(GameError):
        GAME.new(4, seed=1, deals=bad)
    with pytest.raises(GameError):
        GAME.new(3, seed=1)
    with pytest.raises(OptionsError, match="deals"):
        GAME.new(4, seed=1, options={"deals": 0})
    assert GAME.new(4, seed=1, options={"deals": "3"}).view(None)["deals_total"] == 3


def test_views_hide_the_other_hands() -> None:
    state = GAME.new(4, seed=8)
    hands = [state.view(s)["hand"] for s in range(4)]
    assert sorted(parse_card(c) for h in hands for c in h) == sorted(deck(52))
    assert "hand" not in state.view(None)
    for s in range(4):
        text = json.dumps(state.view(s))
        assert not any(f'"{c}"' in text for o in range(4) if o != s for c in hands[o])


# -- random self-play ----------------------------------------------------------------------------------------
def test_random_selfplay_with_checks_and_contract_totals() -> None:
    contracts: Counter[int] = Counter()
    for i in range(6):
        policy = POLICIES[i % 3]
        state, _ = play_game("variety", 4, seed=500 + i, policy=policy, check_every=2 if i < 3 else 0)
        state.check_invariants()
        assert state.over and len(state.sheet()["deals"]) == 8
        for deal in state.sheet()["deals"]:
            contracts[deal["contract"]] += 1
            sides = deal["side_points"]
            assert sides["attackers"] + sides["defenders"] == TOTALS[deal["contract"]]
            assert deal["trump"] == TRUMPS[deal["contract"]]
            assert sum(deal["tricks"]) == 13
    for i in range(40):
        state, _ = play_game("variety", 4, seed=900 + i, policy="uniform", options={"deals": 2})
        state.check_invariants()
        for deal in state.sheet()["deals"]:
            contracts[deal["contract"]] += 1
            sides = deal["side_points"]
            assert sides["attackers"] + sides["defenders"] == TOTALS[deal["contract"]]
    assert set(contracts) == set(range(1, 9)), contracts  # every contract was played at least once
