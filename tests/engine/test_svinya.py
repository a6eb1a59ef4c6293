"""Svinya (RULES.md section 5): the pig, the shops, priority, the turn structure, the end; and self-play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.cards import ACE, KING, card_str, cards_str, deck, parse_card, parse_cards, rank_of, suit_of
from engine.core import GameError, IllegalAction, OptionsError, get_game
from engine.record import load, replay
from engine.selfplay import POLICIES, play_game
from games.svinya.rules import fits_pig, fits_shop, neighbours

GAME = get_game("svinya")
DATA = Path(__file__).parent / "data"


def position(n: int, deal: dict[str, Any], **options: Any):
    return GAME.new(n, seed=1, options=options, deals=[deal])


def act(state, action: str):
    seat = state.to_act
    assert action in state.legal_actions(), f"{action!r} not in {state.legal_actions()}"
    events = state.act(seat, action)
    state.check_invariants()
    return events


# -- the pack and the set-up ----------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 9))
def test_pack_by_player_count(n):
    state = GAME.new(n, seed=n)
    size = 36 if n <= 3 else 52
    assert state.size == size and state.base == (6 if size == 36 else 2)
    assert sorted(state.all_cards) == sorted(deck(size))
    assert rank_of(state.pig[0]) == state.base
    assert all(len(shop) >= 1 for shop in state.shops)
    assert state.to_act == 0 and state.legal_actions()[0] == "draw"
    state.check_invariants()


def test_pack_option_overrides_and_validates():
    assert GAME.new(2, seed=3, options={"deck": "52"}).size == 52
    assert GAME.new(5, seed=3, options={"deck": 36}).base == 6
    with pytest.raises(OptionsError):
        GAME.new(3, seed=1, options={"deck": "40"})
    with pytest.raises(OptionsError):
        GAME.new(3, seed=1, options={"colour": "red"})


def test_setup_pig_then_shops_with_pig_priority():
    # top first: the first 6 from the top (6S) is the pig; seat 0 gets 9H; seat 1's 7S fits the pig,
    # so it goes there and seat 1 takes KD instead.
    order = ["9H", "6S", "7S", "KD", "10C", "QC", "6H", "AS"]
    state = position(2, {"deck": order})
    assert state.pig == parse_cards("6S 7S")
    assert state.shops == [parse_cards("9H"), parse_cards("KD")]
    assert [card_str(c) for c in reversed(state.stock)] == ["10C", "QC", "6H", "AS"]
    assert state.phase == "draw" and state.to_act == 0


def test_setup_needs_a_base_card():
    with pytest.raises(GameError):
        position(2, {"deck": ["9H", "10H", "JH"]})
    with pytest.raises(GameError):
        position(2, {"stock": ["9H"], "shops": [["9H"], []]})  # a card twice


# -- the single-card rules -------------------------------------------------------------------
def test_shop_builds_downward_any_suit_king_on_ace():
    c = parse_card
    assert fits_shop(c("8H"), [c("9S")]) and fits_shop(c("8S"), [c("9S")])
    assert not fits_shop(c("7H"), [c("9S")]) and not fits_shop(c("10H"), [c("9S")])
    assert fits_shop(c("KD"), [c("AS")]) and not fits_shop(c("QD"), [c("AS")])
    assert not fits_shop(c("AD"), [c("2S")]) and not fits_shop(c("AD"), [])  # aces go nowhere
    assert not any(fits_shop(card, [c("2S")]) for card in deck(52))  # nothing below the lowest card
    assert fits_shop(c("5C"), [])  # an emptied shop starts again


def test_pig_builds_upward_in_its_suit_and_starts_at_the_base():
    c = parse_card
    pig = parse_cards("6S 7S")
    assert fits_pig(c("8S"), pig, 6)
    assert not fits_pig(c("8H"), pig, 6) and not fits_pig(c("9S"), pig, 6) and not fits_pig(c("6H"), pig, 6)
    assert fits_pig(c("6H"), [], 6) and not fits_pig(c("7H"), [], 6) and fits_pig(c("2C"), [], 2)
    assert not fits_pig(c("AS"), parse_cards("6S 7S 8S 9S 10S JS QS KS")[:-1] + [c("KS")], 6)


def test_neighbours():
    assert neighbours(0, 2) == [1] and neighbours(1, 2) == [0]
    assert neighbours(0, 3) == [1, 2]
    assert neighbours(0, 4) == [1, 3] and neighbours(2, 4) == [1, 3]
    assert neighbours(7, 8) == [0, 6]


# -- the stock phase --------------------------------------------------------------------------
def test_stock_phase_priority_choice_and_keep():
    state = position(3, {
        "pig": ["6S", "7S"],
        "shops": [["JD"], ["9D"], ["9C"]],
        "stock": ["8S", "8H", "9S", "QH", "10H"],
    })
    assert state.legal_actions() == ["draw"]
    events = act(state, "draw")
    assert events == [{"type": "draw", "seat": 0, "stock": 4}]
    assert state.view(0)["drawn"] == "8S" and state.view(1)["drawn"] is None
    # 8S fits both neighbours' shops, but it fits the pig, so it must go there
    assert state.legal_actions() == ["pig 8S"] and state.view(0)["forced"] == "pig 8S"
    with pytest.raises(IllegalAction, match="must go on the pig"):
        state.act(0, "shop 1 8S")
    act(state, "pig 8S")
    assert state.to_act == 0 and state.phase == "draw"  # a placed card: draw again
    act(state, "draw")
    assert state.legal_actions() == ["shop 1 8H", "shop 2 8H"]  # wrong suit for the pig; a choice
    events = act(state, "shop 2 8H")
    assert events[0] == {"type": "shop", "seat": 0, "target": 2, "card": "8H", "source": "stock"}
    act(state, "draw")
    act(state, "pig 9S")
    act(state, "draw")
    assert state.legal_actions() == ["keep"]  # QH: not on the pig, not on 9D or 7.. shops
    act(state, "keep")
    assert state.to_act == 1 and state.phase == "draw"
    assert state.view(0)["hand"] == ["QH"]
    assert "hand" in state.view(1) and state.view(1)["hand"] == []
    assert state.view(1)["hand_counts"] == [1, 0, 0]
    assert "hand" not in state.view(None)
    assert state.view(None)["shops"][2] == {"top": "8H", "size": 2}


def test_only_neighbours_shops_at_four():
    state = position(4, {"pig": ["2S"], "shops": [["5C"], ["KD"], ["9C"], ["QH"]], "stock": ["8H", "JC"]})
    act(state, "draw")
    assert state.legal_actions() == ["keep"]  # 8H fits only seat 2's shop, opposite seat 0
    act(state, "keep")
    assert state.to_act == 1
    act(state, "draw")
    assert state.legal_actions() == ["keep"]  # JC: seat 1's neighbours are 0 (5C) and 2 (9C), not 3 (QH)


def test_king_on_an_ace_shop():
    state = position(2, {"pig": ["6S"], "shops": [["10H"], ["AD"]], "stock": ["KC", "QH"]})
    act(state, "draw")
    assert state.legal_actions() == ["shop 1 KC"]
    act(state, "shop 1 KC")
    act(state, "draw")
    assert state.legal_actions() == ["shop 1 QH"]


def test_a_finished_pig_is_set_aside_and_the_next_base_card_starts_one():
    state = position(2, {
        "pig": ["6H", "7H", "8H", "9H", "10H", "JH", "QH"],
        "shops": [["9C"], ["8D"]],
        "stock": ["KH", "6C", "7C", "AS"],
    })
    act(state, "draw")
    events = act(state, "pig KH")
    assert {"type": "pig_done", "suit": "H", "cards": ["6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]} in events
    assert state.pig == [] and len(state.pigs_done) == 1 and state.view()["pig"] is None
    act(state, "draw")
    assert state.legal_actions() == ["pig 6C"]  # 6C would fit nowhere else, and it must start the pig
    events = act(state, "pig 6C")
    assert events[0]["new"] is True
    act(state, "draw")
    assert state.legal_actions() == ["pig 7C"]
    act(state, "pig 7C")
    assert state.view()["pig"] == {"suit": "C", "cards": ["6C", "7C"]}


def test_lift_own_shop_top_onto_the_pig():
    deal = {"pig": ["6S", "7S"], "shops": [["9D", "8S"], ["JH"]], "stock": ["10C", "QD"]}
    state = position(2, deal)
    assert state.legal_actions() == ["draw", "lift"]
    events = act(state, "lift")
    assert events[0] == {"type": "pig", "seat": 0, "card": "8S", "source": "shop", "new": False}
    assert state.shops[0] == parse_cards("9D") and state.pig[-1] == parse_card("8S")
    assert state.legal_actions() == ["draw"]  # 9D is the wrong suit for the pig
    off = position(2, deal, lift=False)
    assert off.legal_actions() == ["draw"]
    with pytest.raises(IllegalAction, match="option lift"):
        off.act(0, "lift")


def test_lift_never_takes_an_ace_and_frees_it_only_by_the_king():
    state = position(2, {"pig": ["6S", "7S", "8S", "9S", "10S", "JS", "QS"], "shops": [["AH", "KS"], ["9C"]],
                         "stock": ["10C"]})
    assert "lift" in state.legal_actions()
    act(state, "lift")  # KS finishes the pig
    assert state.shops[0] == parse_cards("AH") and len(state.pigs_done) == 1
    assert "lift" not in state.legal_actions()


# -- the end of the stock and the reserve phase ------------------------------------------------
def test_stock_out_every_seat_with_only_aces_wins():
    state = position(3, {
        "pig": ["6S"], "shops": [["10D"], ["JH"], ["9C"]],
        "reserves": [["AS"], ["AH", "AD"], ["KC"]],
        "stock": ["10C"],
    })
    act(state, "draw")
    events = act(state, "shop 1 10C")
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "only_aces"
    assert state.over and state.winner_seats == [0, 1]
    assert state.scores() == [0, 0, -1] and state.winners() == [0, 1]
    assert state.sheet()["deals"][0]["places"] == [1, 1, 3]


def test_reserve_phase_open_hand_priority_and_turn_end():
    state = position(2, {
        "pig": ["6S", "7S"], "shops": [["10C"], ["9D"]],
        "reserves": [["8S", "QH", "AC"], ["9H", "JC", "6D"]],
        "stock": [],
    })
    assert state.phase == "reserve" and state.to_act == 0
    # 8S fits the pig and seat 1's 9D shop: the pig has priority; QH fits nothing
    assert state.legal_actions() == ["pig 8S"]
    act(state, "pig 8S")
    assert state.to_act == 1  # nothing else fits for seat 0: the turn passes
    assert state.legal_actions() == ["shop 0 9H"]  # 9H: the pig needs 9S; seat 0's shop is 10C
    events = act(state, "shop 0 9H")
    # now nothing fits for anybody: seat 0 keeps QH (1 non-Ace), seat 1 keeps JC 6D (2)
    assert state.over and state.reason == "blocked" and state.winner_seats == [0]
    assert events[-1] == {"type": "game_over", "scores": [-1, -2], "totals": [-1, -2], "winners": [0],
                          "reason": "blocked"}


def test_reserve_phase_keeps_playing_while_cards_fit_and_wins_with_only_aces():
    state = position(2, {
        "pig": ["6S", "7S"], "shops": [["QC"], ["9D"]],
        "reserves": [["8S", "9S", "8H", "AC"], ["KS", "QD", "10D"]],
        "stock": [],
    })
    assert state.legal_actions() == ["pig 8S", "shop 1 8H"]
    act(state, "shop 1 8H")
    assert state.to_act == 0 and state.legal_actions() == ["pig 8S"]
    act(state, "pig 8S")
    events = act(state, "pig 9S")
    assert state.over and state.winner_seats == [0] and events[-1]["reason"] == "only_aces"
    assert state.scores() == [0, -3]


def test_blocked_game_fewest_non_aces_win():
    state = position(3, {
        "pig": ["6S"], "shops": [["9C"], ["9D"], ["9H"]],
        "reserves": [["AS", "AH", "KD"], ["QC", "JC"], ["KH", "QH"]],
        "stock": [],
    })
    assert state.over and state.reason == "blocked"
    assert state.winner_seats == [0] and state.scores() == [-1, -2, -2]
    assert state.sheet()["deals"][0]["places"] == [1, 2, 2]
    assert state.sheet()["deals"][0]["aces"] == [2, 0, 0]


def test_pass_only_when_lifting_is_the_only_move():
    state = position(2, {
        "pig": ["6S", "7S"], "shops": [["9D", "8S"], ["QC"]],
        "reserves": [["10H", "KD"], ["JH", "7D"]],
        "stock": [],
    })
    assert state.to_act == 0 and state.legal_actions() == ["lift", "pass"]
    events = act(state, "pass")
    assert events[0] == {"type": "pass", "seat": 0}
    # seat 1: JH fits seat 0's shop? top 8S: no (needs 7); 7D fits it
    assert state.to_act == 1 and state.legal_actions() == ["shop 0 7D"]
    act(state, "shop 0 7D")
    # 7D covers the 8S: seat 0 can no longer lift; nothing else fits anywhere
    assert state.over and state.winner_seats == [1] and state.scores() == [-2, -1]


def test_nobody_passing_forever_ends_the_game():
    state = position(2, {
        "pig": ["6S", "7S"], "shops": [["9D", "8S"], ["9H"]],
        "reserves": [["10H"], ["JH"]],
        "stock": [],
    })
    act(state, "pass")
    assert state.over and state.reason == "blocked" and state.winner_seats == [0, 1]


# -- views -----------------------------------------------------------------------------------------
def test_views_hide_reserves_and_name_forced_moves():
    state = GAME.new(4, seed=11)
    while not any(state.reserves):
        act(state, state.legal_actions()[0])
    owner = next(s for s in range(4) if state.reserves[s])
    secret = [f'"{card_str(c)}"' for c in state.reserves[owner]]
    for seat in [*range(4), None]:
        view = state.view(seat)
        assert view["hand_counts"][owner] == len(state.reserves[owner])
        text = json.dumps(view)
        assert any(c in text for c in secret) == (seat == owner)
        if seat is not None:
            assert sorted(view["hand"]) == sorted(cards_str(state.reserves[seat]))
    act(state, "draw")
    drawn = state.pending
    assert state.view(state.to_act)["drawn"] == card_str(drawn)
    assert f'"{card_str(drawn)}"' not in json.dumps(state.view((state.to_act + 1) % 4))
    spectator = state.view(None)
    assert "hand" not in spectator and "reserves" not in spectator
    legal = state.legal_actions()
    assert spectator["forced"] == (legal[0] if len(legal) == 1 else None)


# -- self-play --------------------------------------------------------------------------------------
def independent_order_check(state) -> None:
    """The pig and shops in order, by a check written apart from the engine's helpers."""
    if state.pig:
        suits = {suit_of(c) for c in state.pig}
        assert len(suits) == 1
        assert [rank_of(c) for c in state.pig] == list(range(state.base, state.base + len(state.pig)))
    for done in state.pigs_done:
        assert [rank_of(c) for c in done] == list(range(state.base, KING + 1))
    for shop in state.shops:
        for low, high in zip(shop[1:], shop, strict=False):
            assert rank_of(low) != ACE
            assert rank_of(low) == (KING if rank_of(high) == ACE else rank_of(high) - 1)


@pytest.mark.parametrize("n", range(2, 9))
def test_selfplay_checked(n):
    for i in range(9):
        policy = POLICIES[i % 3]
        state, actions = play_game("svinya", n, seed=100 * n + i, policy=policy, check_every=1)
        assert state.over and state.winners() == state.winner_seats
        independent_order_check(state)
        assert sorted(state._every_card()) == sorted(deck(state.size))
        non_aces = [sum(1 for c in r if rank_of(c) != ACE) for r in state.reserves]
        assert state.scores() == [-k for k in non_aces]


@pytest.mark.parametrize("n", range(2, 9))
def test_selfplay_many_games_conserve_cards_and_order(n):
    options = {"lift": n % 2 == 0}
    for seed in range(150):
        state, actions = play_game("svinya", n, seed=seed, policy=POLICIES[seed % 3], options=options)
        state.check_invariants()
        independent_order_check(state)
        assert len(actions) < 400
        total = sum(len(p) for p in state.shops) + sum(len(r) for r in state.reserves)
        total += len(state.pig) + sum(len(p) for p in state.pigs_done) + len(state.stock)
        assert total == state.size


def test_short_record_replays_to_a_blocked_end():
    # Traced by hand: 6S is the pig; P1's shop 9H; P2's 7S goes on the pig, KD is P2's shop. 8H, QC, 10C
    # and AS fit nowhere and are kept. Then nobody can place: P1 holds 2 non-Aces, P2 one (QC) and AS.
    state = replay(load(DATA / "svinya_short_2p.json"))
    assert state.pig == parse_cards("6S 7S") and state.shops == [parse_cards("9H"), parse_cards("KD")]
    assert state.over and state.reason == "blocked" and state.winners() == [1]
    assert state.scores() == [-2, -1]
    assert state.sheet()["deals"][0]["aces"] == [0, 1]
