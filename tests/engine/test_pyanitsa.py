"""Pyanitsa (RULES.md section 6): the deal, rounds, the Ace rule, wars, the winner rules, the cap; self-play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.cards import card_str, deck, parse_cards
from engine.core import GameError, IllegalAction, OptionsError, get_game
from engine.record import load, replay
from engine.selfplay import play_game

GAME = get_game("pyanitsa")
DATA = Path(__file__).parent / "data"


def position(piles: list[str], aside: str = "", **options: Any):
    deal = {"piles": [p.split() for p in piles], "aside": aside.split()}
    options.setdefault("gather", "in_order")
    return GAME.new(len(piles), seed=7, options=options, deals=[deal])


def flip_all(state) -> list[dict[str, Any]]:
    """Flip until the current round is resolved (or the game ends); return its events."""
    events: list[dict[str, Any]] = []
    while not state.over:
        assert state.legal_actions() == ["flip"]
        events += state.act(state.to_act, "flip")
        state.check_invariants()
        if events[-1]["type"] in ("round", "game_over", "out"):
            break
    return events


def round_event(events):
    return next(e for e in events if e["type"] == "round")


# -- the deal -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "size", "share", "aside"), [
    (2, 32, 16, 0), (3, 36, 12, 0), (4, 52, 13, 0), (5, 52, 10, 2), (6, 52, 8, 4), (7, 52, 7, 3), (8, 52, 6, 4),
])
def test_whole_pack_in_equal_shares(n, size, share, aside):
    state = GAME.new(n, seed=n)
    assert [len(p) for p in state.piles] == [share] * n
    assert len(state.aside) == aside
    assert sorted(state.all_cards) == sorted(deck(size))
    assert state.to_act == 0 and state.legal_actions() == ["flip"]
    assert state.view(0)["forced"] == "flip" and "hand" not in state.view(0)


def test_options():
    assert GAME.new(5, seed=1, options={"deck": 36}).view()["aside"] == 1
    with pytest.raises(OptionsError):
        GAME.new(2, seed=1, options={"winner": "last"})
    with pytest.raises(OptionsError):
        GAME.new(2, seed=1, options={"max_rounds": 0})
    with pytest.raises(GameError):
        position(["AS", ""])  # first_out needs cards for everyone


# -- rounds ----------------------------------------------------------------------------------------
def test_highest_card_takes_the_table_to_the_bottom_in_turn_order():
    state = position(["KS 2H", "9D 3C", "QH 4S"])
    assert state.to_act == 0
    events = state.act(0, "flip")
    assert events == [{"type": "flip", "seat": 0, "card": "KS", "war": False}]
    assert state.to_act == 1 and state.view()["table"] == [{"seat": 0, "card": "KS", "war": False}]
    with pytest.raises(IllegalAction):
        state.act(0, "flip")
    state.act(1, "flip")
    events = state.act(2, "flip")
    ev = round_event(events)
    assert ev["winner"] == 0 and ev["taken"] == 3 and ev["war"] is False and ev["round"] == 1
    assert state.piles[0] == parse_cards("2H KS 9D QH")
    assert ev["counts"] == [4, 1, 1] and state.scores() == [-4, -1, -1]
    assert state.to_act == 0 and state.view()["table"] == [] and state.view()["last_round"] == ev


def test_tied_aces_the_earlier_ace_wins_without_a_war():
    state = position(["5C 2H", "AS 3C", "AH 4S"])
    events = flip_all(state)
    assert not any(e["type"] == "war" for e in events)
    assert round_event(events)["winner"] == 1 and state.piles[1] == parse_cards("3C 5C AS AH")


def test_a_tie_is_settled_by_a_war_of_the_tied_players():
    state = position(["9S 2C 4H", "9H KC 5H", "5D 7D 6H"])
    events = [e for seat in (0, 1, 2) for e in state.act(seat, "flip")]
    war = next(e for e in events if e["type"] == "war")
    assert war == {"type": "war", "seats": [0, 1], "rank": "9", "fighters": [0, 1]}
    assert not any(e["type"] == "round" for e in events)
    assert state.view()["phase"] == "war" and state.to_act == 0
    state.act(0, "flip")
    assert state.to_act == 1
    events = state.act(1, "flip")
    ev = round_event(events)
    assert ev["winner"] == 1 and ev["taken"] == 5 and ev["war"] is True
    assert [c["card"] for c in ev["cards"]] == ["9S", "9H", "5D", "2C", "KC"]
    assert state.piles == [parse_cards("4H"), parse_cards("5H 9S 9H 5D 2C KC"), parse_cards("7D 6H")]
    assert state.to_act == 0 and state.view()["phase"] == "flip"


def test_a_war_that_ties_again_goes_to_the_earlier_player():
    # JD and JH tie; in the war seat 2's 8D beats seat 1's 2S; seat 0 (3S) takes no part
    state = position(["3S 8C 4H", "JD 2S 5H", "JH 8D 6H"])
    ev = round_event(flip_all(state))
    assert ev["winner"] == 2 and ev["taken"] == 5
    # 8S and 8D tie again: seat 1 turned first, so seat 1 takes
    state = position(["3S 8C 4H", "JD 8S 5H", "JH 8D 6H"])
    ev = round_event(flip_all(state))
    assert ev["winner"] == 1 and ev["taken"] == 5
    assert state.piles[1] == parse_cards("5H 3S JD JH 8S 8D")


def test_war_card_order_decides_when_one_tied_player_has_no_card():
    state = position(["9S", "9H KC", "5D 4D"], winner="collects_all")
    events = flip_all(state)
    war = next(e for e in events if e["type"] == "war")
    assert war["fighters"] == [1]
    ev = round_event(events)
    assert ev["winner"] == 1 and ev["taken"] == 3 and not ev["war"]
    assert {"type": "out", "seats": [0]} in events
    assert state.piles[1] == parse_cards("KC 9S 9H 5D")


def test_no_tied_player_can_fight_the_first_takes():
    state = position(["9S", "9H", "5D 4D"], winner="collects_all")
    events = flip_all(state)
    assert round_event(events)["winner"] == 0
    assert state.out == [[1]]


# -- the end ---------------------------------------------------------------------------------------
def test_first_out_wins_by_default():
    state = position(["2S 5C", "KH 7D"])
    flip_all(state)
    events = flip_all(state)
    assert state.over and state.winner_seats == [0] and state.winners() == [0]
    over = events[-1]
    assert over["type"] == "game_over" and over["reason"] == "first_out" and over["winners"] == [0]
    assert state.scores() == [0, -4]
    assert state.sheet()["deals"][0]["places"] == [1, 2]


def test_several_run_out_together_share_the_win():
    state = position(["2S", "3S", "KH"])
    events = flip_all(state)
    assert state.over and state.winner_seats == [0, 1] and events[-1]["places"] == [1, 1, 3]


def test_collects_all_last_holder_wins_and_places_follow_elimination():
    state = position(["2S 3D", "9S 4D", "KH QH"], winner="collects_all")
    events = flip_all(state)  # KH takes 2S 9S: nobody out yet
    assert not state.over
    events = flip_all(state)  # QH takes 3D 4D: seats 0 and 1 are out together
    assert {"type": "out", "seats": [0, 1]} in events
    assert state.over and state.winner_seats == [2] and state.reason == "collects_all"
    assert state.scores() == [0, 0, 6] and state.places() == [2, 2, 1]


def test_collects_all_later_elimination_ranks_higher():
    state = position(["2S 3D", "9S 8D 7D", "KH QH 4C"], winner="collects_all")
    flip_all(state)  # KH takes: 0: [3D], 1: [8D 7D], 2: [QH 4C 2S 9S KH]
    flip_all(state)  # QH takes: 0 out
    assert state.out == [[0]] and not state.over
    while not state.over:
        flip_all(state)
    places = state.places()
    assert places[0] == 3 and sorted(places) == [1, 2, 3] and places[state.winner_seats[0]] == 1


@pytest.mark.parametrize(("rule", "winner", "scores"), [("first_out", 1, [-3, -1]), ("collects_all", 0, [3, 1])])
def test_round_cap_decides_by_card_counts(rule, winner, scores):
    state = position(["KS 2C", "3H 4C"], winner=rule, max_rounds=1)
    events = flip_all(state)
    assert state.over and state.reason == "cap" and state.winner_seats == [winner]
    assert state.scores() == scores and events[-1]["reason"] == "cap"
    assert state.sheet()["deals"][0]["rounds"] == 1


def test_shuffled_gathering_keeps_the_cards_and_follows_the_seed():
    piles = ["KS 2H", "9D 3C", "QH 4S"]
    a = position(piles, gather="shuffled")
    b = position(piles, gather="shuffled")
    flip_all(a)
    flip_all(b)
    assert a.piles == b.piles
    assert sorted(a.piles[0]) == sorted(parse_cards("2H KS 9D QH")) and a.piles[0][0] == parse_cards("2H")[0]


# -- self-play: always ends, never loses a card -------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("rule", ["first_out", "collects_all"])
def test_selfplay_checked(n, rule):
    state, actions = play_game("pyanitsa", n, seed=n, policy="uniform", options={"winner": rule, "max_rounds": 150},
                               check_every=1)
    assert state.over and state.winners() == state.winner_seats
    assert state.rounds <= 150


@pytest.mark.parametrize("n", range(2, 9))
def test_selfplay_terminates_and_conserves(n):
    size = {2: 32, 3: 36}.get(n, 52)
    for seed in range(30):
        rule = "first_out" if seed % 2 else "collects_all"
        gather = "in_order" if seed % 3 == 0 else "shuffled"
        options = {"winner": rule, "gather": gather, "max_rounds": 400}
        state, actions = play_game("pyanitsa", n, seed=seed, options=options)
        state.check_invariants()
        assert state.over and state.rounds <= 400
        assert sum(len(p) for p in state.piles) + len(state.aside) == size
        assert sorted(state.piles[0] + state.piles[-1] + [c for p in state.piles[1:-1] for c in p] + state.aside) \
            == sorted(deck(size))
        counts = [len(p) for p in state.piles]
        if state.reason == "first_out":
            assert all(counts[w] == 0 for w in state.winner_seats)
        elif state.reason == "collects_all":
            assert counts[state.winner_seats[0]] == size - len(state.aside)
        else:
            assert state.rounds == 400
        # one flip per seat per round at most, plus the wars' flips
        assert len(actions) <= state.rounds * n * 2
        assert all(card_str(c) for c in state.all_cards)


@pytest.mark.parametrize(("n", "rule"), [(2, "first_out"), (4, "collects_all")])
def test_default_cap_and_shuffling_end_most_games_without_the_cap(n, rule):
    reasons = []
    for seed in range(12):
        state, _ = play_game("pyanitsa", n, seed=seed, options={"winner": rule})
        assert state.over and state.rounds <= 1000
        reasons.append(state.reason)
    assert reasons.count(rule) >= 9  # shuffled gathering avoids the endless loops of a fixed order


def test_short_record_replays_to_first_out():
    # Traced by hand: KH beats 2S, 7D beats 5C; P1 is out of cards first and wins; P2 holds all 4.
    state = replay(load(DATA / "pyanitsa_short_2p.json"))
    assert state.over and state.reason == "first_out" and state.winners() == [0]
    assert state.scores() == [0, -4] and state.sheet()["rounds_won"] == [0, 2]
