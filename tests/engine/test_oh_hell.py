"""Oh Hell: the RULES.md 4.4 / 15.6 numbers as replayed records, the options, the views, random self-play."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.cards import deck, parse_cards
from engine.core import GameError, IllegalAction, OptionsError, get_game
from engine.record import load, make_record, replay
from engine.selfplay import POLICIES, play_game
from engine.tricks import (
    NO_TRUMP,
    follow_options,
    follow_suit,
    plain_winning_index,
    sort_hand,
    sort_key_table,
    winning_index,
)

DATA = Path(__file__).parent / "data"
GAME = get_game("oh_hell")
DEALS = {3: 15, 4: 13, 5: 10, 6: 8, 7: 7}  # RULES.md 4.2


def deal_of(state, n):
    return state.sheet()["deals"][n]


# -- RULES.md section 15.6 as records ------------------------------------------------------------
def test_exact_bids_score_ten_plus_bid_and_misses_score_zero() -> None:
    state = replay(load(DATA / "oh_hell_exact.json"))
    assert state.over
    first, second, third = state.sheet()["deals"]
    # deal 1 (3 cards): P1 bid 3 took 3 -> 13; P2 and P4 bid 0 took 0 -> 10; P3 bid 1 took 0 -> 0
    assert first["bids"] == [3, 0, 1, 0] and first["tricks"] == [3, 0, 0, 0]
    assert first["points"] == [13, 10, 0, 10]
    # deal 2 (4 cards): P2 bid 2 took 4 -> 0 (over-taking is a miss too)
    assert second["bids"][1] == 2 and second["tricks"][1] == 4 and second["points"][1] == 0
    # deal 3 (2 cards): P3 bid 2 took 1 -> 0; P1 bid 1 took 1 -> 11
    assert third["bids"][2] == 2 and third["tricks"][2] == 1 and third["points"][2] == 0
    assert third["bids"][0] == 1 and third["tricks"][0] == 1 and third["points"][0] == 11
    assert state.scores() == [13 + 0 + 11, 10 + 0 + 10, 0 + 10 + 0, 10 + 10 + 10]
    assert state.winners() == [3]


def test_zero_bonus_scores_five_plus_cards_dealt() -> None:
    record = load(DATA / "oh_hell_zero_bonus.json")
    state = replay(record)
    deal = deal_of(state, 0)
    assert deal["hand_size"] == 7 and deal["bids"] == [0, 7, 0] and deal["tricks"] == [0, 7, 0]
    assert deal["points"] == [5 + 7, 10 + 7, 5 + 7]  # RULES.md: k = 7 -> 12; a made 7 is still 10 + 7
    record["options"]["zero_bonus"] = False
    assert deal_of(replay(record), 0)["points"] == [10, 17, 10]


@pytest.mark.parametrize("players", sorted(DEALS))
def test_deal_counts_ascending_sizes_and_last_deal_at_no_trump(players: int) -> None:
    state, actions = play_game("oh_hell", players, seed=100 + players, policy="uniform")
    record = make_record(GAME.new(players, seed=100 + players), actions)
    replayed = replay(json.loads(json.dumps(record)))
    deals = replayed.sheet()["deals"]
    assert len(deals) == DEALS[players]
    assert [d["hand_size"] for d in deals] == list(range(1, DEALS[players] + 1))
    assert deals[-1]["trump"] is None and deals[-1]["trump_card"] is None
    for d in deals[:-1]:
        assert d["trump_card"] is not None and d["trump"] == d["trump_card"][-1]
    assert [d["dealer"] for d in deals] == [(players - 1 + i) % players for i in range(len(deals))]
    assert all(sum(d["tricks"]) == d["hand_size"] for d in deals)


def test_four_players_last_deal_thirteen_cards_no_trump_bids_zero_to_thirteen() -> None:
    _, actions = play_game("oh_hell", 4, seed=5, policy="first")
    record = make_record(GAME.new(4, seed=5), actions)
    bids_before = sum(4 + 4 * k for k in range(1, 13))  # deals 1..12: 4 bids and 4k cards each
    state = replay(record, upto=bids_before)
    view = state.view(state.to_act)
    assert view["deal_no"] == 13 and view["hand_size"] == 13 and view["phase"] == "bid"
    assert view["trump"] is None and view["trump_card"] is None
    assert len(view["hand"]) == 13
    assert state.legal_actions() == [f"bid {b}" for b in range(14)]
    assert sorted(c for s in range(4) for c in parse_cards(state.view(s)["hand"])) == sorted(deck(52))


def test_last_deal_no_trump_option_off_turns_a_trump() -> None:
    state = GAME.new(4, seed=3, options={"hand_sizes": [5, 6], "last_deal_no_trump": False})
    assert state.view(None)["trump_card"] is not None
    while state.view(None)["deal_no"] == 1:
        state.act(state.to_act, state.legal_actions()[0])
    assert state.view(None)["hand_size"] == 6 and state.view(None)["trump_card"] is not None
    assert GAME.new(4, seed=3, options={"hand_sizes": [5]}).view(None)["trump"] is None


# -- bidding: no hook by default, the hook option, the scorekeeper's announcement ----------------------
def bid_round(options: dict, bids: list[int]):
    state = GAME.new(4, seed=11, options={"hand_sizes": [3], **options})
    events = []
    for b in bids:
        events = state.act(state.to_act, f"bid {b}")
    return state, events


def test_no_hook_by_default_the_dealer_may_make_the_total_even() -> None:
    state, _ = bid_round({}, [1, 1, 0])
    assert state.to_act == 3  # the dealer bids last
    assert state.legal_actions() == ["bid 0", "bid 1", "bid 2", "bid 3"]
    events = state.act(3, "bid 1")
    assert events[-1] == {"type": "bidding_done", "bids": [1, 1, 0, 1], "total": 3, "hand_size": 3,
                          "balance": "even"}


def test_hook_forbids_only_the_dealer_the_even_total() -> None:
    state, _ = bid_round({"hook": True}, [])
    assert state.legal_actions() == ["bid 0", "bid 1", "bid 2", "bid 3"]  # first bidder: no limit
    state, _ = bid_round({"hook": True}, [1, 1, 0])
    assert state.legal_actions() == ["bid 0", "bid 2", "bid 3"]
    assert state.view(3)["forbidden_bid"] == 1
    before = state.to_json()
    with pytest.raises(IllegalAction, match="hook"):
        state.act(3, "bid 1")
    assert state.to_json() == before
    state, _ = bid_round({"hook": True}, [3, 3, 3])  # 9 already: nothing to forbid
    assert state.legal_actions() == ["bid 0", "bid 1", "bid 2", "bid 3"]


@pytest.mark.parametrize(("bids", "balance"), [([1, 1, 0, 0], "under"), ([1, 1, 0, 1], "even"), ([3, 0, 1, 0], "over")])
def test_announcement_over_under_even(bids: list[int], balance: str) -> None:
    state, events = bid_round({}, bids)
    assert events[-1]["type"] == "bidding_done" and events[-1]["balance"] == balance
    assert events[-1]["total"] == sum(bids)
    assert state.view(None)["balance"] == balance and state.view(None)["phase"] == "play"


def test_bidding_and_the_first_lead_start_left_of_the_dealer() -> None:
    state = GAME.new(5, seed=2, options={"hand_sizes": [2, 2]})
    assert state.view(None)["dealer"] == 4 and state.to_act == 0
    order = []
    while state.view(None)["phase"] == "bid":
        order.append(state.to_act)
        state.act(state.to_act, "bid 0")
    assert order == [0, 1, 2, 3, 4] and state.to_act == 0
    while state.view(None)["deal_no"] == 1:
        state.act(state.to_act, state.legal_actions()[0])
    assert state.view(None)["dealer"] == 0 and state.to_act == 1


# -- play: follow suit, no duty to trump, the winner --------------------------------------------------------
def test_void_player_may_discard_instead_of_trumping() -> None:
    deals = [{"dealer": 2, "hands": [["AS", "2D", "4D"], ["3H", "2C", "5H"], ["KH", "QD", "3S"]], "trump": "C"}]
    state = GAME.new(3, seed=1, options={"hand_sizes": [3], "last_deal_no_trump": False}, deals=deals)
    for _ in range(3):
        state.act(state.to_act, "bid 1")
    state.act(0, "play AS")
    assert sorted(state.legal_actions()) == ["play 2C", "play 3H", "play 5H"]  # void in spades: any card
    state.act(1, "play 2C")  # a trump beats the ace
    with pytest.raises(IllegalAction, match="not in your hand"):
        state.act(2, "play AS")
    assert state.legal_actions() == ["play 3S"]
    events = state.act(2, "play 3S")
    assert events[-1] == {"type": "trick", "leader": 0, "cards": ["AS", "2C", "3S"], "winner": 1,
                          "plays": [{"seat": 0, "cards": ["AS"]}, {"seat": 1, "cards": ["2C"]},
                                    {"seat": 2, "cards": ["3S"]}]}
    assert state.to_act == 1
    state.act(1, "play 3H")
    assert state.legal_actions() == ["play KH"]  # must follow hearts
    with pytest.raises(IllegalAction, match="follow suit"):
        state.act(2, "play QD")
    state.act(2, "play KH")
    assert sorted(state.legal_actions()) == ["play 2D", "play 4D"]  # void in hearts, no trump: any card


def test_explicit_deal_validation() -> None:
    good = {"dealer": 0, "hands": [["AS"], ["KS"], ["QS"]], "trump": "JS"}
    one_trumped = {"hand_sizes": [1], "last_deal_no_trump": False}
    assert GAME.new(3, seed=1, options=one_trumped, deals=[good]).view(None)["trump_card"] == "JS"
    for bad in (
        {"dealer": 0, "hands": [["AS"], ["AS"], ["QS"]], "trump": "C"},  # a card twice
        {"dealer": 0, "hands": [["AS"], ["KS"], ["QS"]], "trump": "AS"},  # trump card also in a hand
        {"dealer": 5, "hands": [["AS"], ["KS"], ["QS"]], "trump": None},
        {"dealer": 0, "hands": [["AS", "2S"], ["KS"], ["QS"]], "trump": None},
        {"dealer": 0, "hands": [["XX"], ["KS"], ["QS"]], "trump": None},
        {"dealer": 0, "trump": None},
    ):
        with pytest.raises(GameError):
            GAME.new(3, seed=1, options={"hand_sizes": [1], "last_deal_no_trump": False}, deals=[bad])


# -- options ---------------------------------------------------------------------------------------------
def test_options_validate_with_clear_errors() -> None:
    with pytest.raises(OptionsError, match="at most 13"):
        GAME.new(4, seed=1, options={"hand_sizes": [3, 14]})
    with pytest.raises(OptionsError, match="hand_sizes"):
        GAME.new(3, seed=1, options={"hand_sizes": [0]})
    with pytest.raises(OptionsError, match="hand_sizes"):
        GAME.new(3, seed=1, options={"hand_sizes": "sideways"})
    with pytest.raises(OptionsError, match="unknown option"):
        GAME.new(3, seed=1, options={"hook_rule": True})
    assert GAME.new(3, seed=1, options={"hand_sizes": [17]}).view(None)["hand_size"] == 17
    assert GAME.parse_options({"hand_sizes": "5, 4,3"}).hand_sizes == [5, 4, 3]


def test_up_and_down_goes_to_the_top_and_back() -> None:
    _, actions = play_game("oh_hell", 6, seed=4, policy="last", options={"hand_sizes": "up_and_down"})
    state = replay(make_record(GAME.new(6, seed=4, options={"hand_sizes": "up_and_down"}), actions))
    sizes = [d["hand_size"] for d in state.sheet()["deals"]]
    assert sizes == [1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 5, 4, 3, 2, 1]
    assert state.sheet()["deals"][-1]["trump"] is None


# -- views hide other hands --------------------------------------------------------------------------------
def test_views_show_only_the_own_hand() -> None:
    state = GAME.new(5, seed=9, options={"hand_sizes": [8]})
    hands = [set(state.view(s)["hand"]) for s in range(5)]
    assert all(len(h) == 8 for h in hands) and len(set().union(*hands)) == 40
    assert "hand" not in state.view(None)
    for s in range(5):
        text = json.dumps(state.view(s))
        for other in range(5):
            if other != s:
                assert not any(f'"{c}"' in text for c in hands[other])
    for key in ("phase", "hand_counts", "dealer", "leader", "deal_no", "deals_total", "hand_size", "trump",
                "trump_card", "bids", "tricks", "trick", "last_trick", "sheet"):
        assert key in state.view(None)


def test_trick_view_names_the_best_card_so_far() -> None:
    deals = [{"dealer": 2, "hands": [["5S", "2D"], ["9S", "2C"], ["KH", "QH"]], "trump": "C"}]
    state = GAME.new(3, seed=1, options={"hand_sizes": [2], "last_deal_no_trump": False}, deals=deals)
    for _ in range(3):
        state.act(state.to_act, "bid 0")
    state.act(0, "play 5S")
    state.act(1, "play 9S")
    trick = state.view(2)["trick"]
    assert trick == {"leader": 0, "plays": [{"seat": 0, "cards": ["5S"]}, {"seat": 1, "cards": ["9S"]}], "best": 1}
    state.act(2, "play KH")
    assert state.view(2)["last_trick"]["winner"] == 1 and state.view(2)["trick"] is None


# -- random self-play, every player count, with the generic and the game's own checks -------------------------
@pytest.mark.parametrize("players", sorted(DEALS))
def test_random_selfplay_every_player_count(players: int) -> None:
    for i, policy in enumerate(POLICIES):
        state, actions = play_game("oh_hell", players, seed=1000 * players + i, policy=policy, check_every=1)
        assert state.over and len(state.sheet()["deals"]) == DEALS[players]
        plays = sum(1 for _, a in actions if a.startswith("play "))
        assert plays == players * sum(range(1, DEALS[players] + 1))


@pytest.mark.parametrize("options", [
    {"hook": True}, {"zero_bonus": True}, {"hand_sizes": "up_and_down", "hook": True},
    {"hand_sizes": [7, 1, 5], "last_deal_no_trump": False},
])
def test_random_selfplay_with_house_rules(options: dict) -> None:
    for players in (3, 4, 7):
        for policy in POLICIES:
            state, _ = play_game("oh_hell", players, seed=players * 7, policy=policy, options=options, check_every=5)
            for d in state.sheet()["deals"]:
                if options.get("hook"):
                    assert sum(d["bids"]) != d["hand_size"]
                assert sum(d["tricks"]) == d["hand_size"]


def test_engine_selfplay_cli_reports_no_failures(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.__main__ import main

    assert main(["selfplay", "--game", "oh_hell", "--players", "5", "--games", "2", "--seed", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["invariant_failures"] == 0


# -- the fast shared helpers this game uses agree with the general ones ---------------------------------------
def test_fast_trick_helpers_agree_with_the_general_ones() -> None:
    rng = random.Random(5)
    pack = deck(52)
    for _ in range(3000):
        trump = rng.choice([NO_TRUMP, 0, 1, 2, 3])
        cards = rng.sample(pack, rng.randint(1, 7))
        for lowest in (False, True):
            assert plain_winning_index(cards, trump, lowest) == winning_index(cards, trump, lowest=lowest)
        led = rng.randrange(4)
        assert follow_suit(cards, led) == follow_options(cards, led, trump)
        assert sorted(cards, key=sort_key_table(trump).__getitem__) == sort_hand(cards, trump)


# -- the fast path against the public one, over many seeds --------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"hook": True, "zero_bonus": True}, {"hand_sizes": [7, 2, 5]}])
def test_fast_and_public_paths_play_alike_over_many_seeds(options: dict) -> None:
    """The fast step keeps derived data (per-suit hands, the led suit, the trick's best card, the finished
    tricks behind ``played``, the last trick as a tuple): a random mix of fast and public steps, clones and
    JSON round trips, often in mid-trick, plays every seed exactly as the public path alone does: the same
    legal lists in the same order, views and state at every step."""
    for seed in range(1, 31):
        players = 3 + seed % 5
        mixed = GAME.new(players, seed=seed, options=options)
        public = GAME.new(players, seed=seed, options=options)
        rng = random.Random(seed)
        steps = 0
        while public.to_act is not None and steps < 160:
            seat = public.to_act
            texts = public.legal_actions()
            assert [mixed.action_to_text(a) for a in mixed.fast_legal()] == texts, (seed, steps)
            text = texts[rng.randrange(len(texts))]
            public.act(seat, text)
            if rng.random() < 0.7:
                mixed.fast_apply(mixed.text_to_action(text))
            else:
                mixed.act(seat, text)
            draw = rng.random()
            if draw < 0.08:
                mixed = type(mixed).from_json(json.loads(json.dumps(mixed.to_json())))
            elif draw < 0.16:
                mixed = mixed.clone()
            assert mixed.current == public.to_act
            assert mixed.to_json() == public.to_json(), (seed, steps)
            assert mixed.view(seat) == public.view(seat), (seed, steps)
            mixed.check_invariants()
            steps += 1
        assert steps > 20


def test_played_is_the_finished_tricks_then_the_trick_and_json_must_agree() -> None:
    """``played`` is derived (the finished tricks' cards, then the trick on the table's): state JSON whose
    played cards do not end with the trick is refused rather than loaded wrong."""
    state = GAME.new(4, seed=8, options={"hand_sizes": [5]})
    while state.phase == "bid" or len(state.played) < 6:
        state.fast_apply(state.fast_legal()[0])
    assert len(state.trick) == 2 and state.played[-2:] == state.trick and len(state.played) == 6
    data = state.to_json()
    assert type(state).from_json(data).played == state.played
    data["state"]["played"] = data["state"]["played"][:-1]
    with pytest.raises(GameError):
        type(state).from_json(data)
