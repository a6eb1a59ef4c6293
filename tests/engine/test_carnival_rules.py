"""Carnival rules one at a time, on explicit deals (RULES.md section 1, section 15 items 2 and 3)."""

from __future__ import annotations

from itertools import combinations

import pytest

from engine.cards import parse_card
from engine.core import GameError, IllegalAction, OptionsError, get_game
from engine.selfplay import RandomPlayer
from games.carnival.rules import JK, PACK, CarnivalState, deal_points, follow_cards, quarter_result

GAME = get_game("carnival")
FILLERS = [f"{r}{s}" for s in "DC" for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6")] * 2


def make(hands: list[list[str]], trump: str = "H", options: dict | None = None, fill: bool = True) -> CarnivalState:
    """A game whose first deal is ``hands`` (topped up to 6 cards with diamonds and clubs); seat 0 leads."""
    n = len(hands)
    pool = [c for c in FILLERS if all(c not in h for h in hands)] if fill else []
    full = []
    for hand in hands:
        hand = list(hand)
        while len(hand) < 6:
            hand.append(pool.pop(0))
        full.append(hand)
    deal = {"dealer": n - 1, "hands": full, "trump": trump}
    state = GAME.new(n, seed=1, options=options, deals=[deal])
    assert isinstance(state, CarnivalState)
    return state


def bid_zero(state: CarnivalState) -> None:
    """Everyone bids 0 (the hook never forbids 0 with 6 cards)."""
    for _ in range(state.n):
        state.act(state.to_act, "bid 0")


def play(state: CarnivalState, *actions: str) -> list[dict]:
    events: list[dict] = []
    for action in actions:
        events += state.act(state.to_act, action)
    return events


def winner(events: list[dict]) -> int:
    (trick,) = [e for e in events if e["type"] == "trick"]
    return trick["winner"]


# -- scoring and bidding (RULES.md section 15 items 2 and 3) ----------------------------------------

@pytest.mark.parametrize(("bid", "tricks", "points"), [
    (2, 2, 20), (3, 3, 30), (0, 0, 5), (2, 1, 1), (4, 1, 1), (3, 5, -10), (5, 6, 30), (0, 1, -20), (0, 2, -40),
])
def test_deal_points(bid: int, tricks: int, points: int) -> None:
    assert deal_points(bid, tricks) == points


def _deals(pairs_per_deal: list[list[tuple[int, int]]]) -> list[dict]:
    out = []
    for pairs in pairs_per_deal:
        bids = [b for b, _ in pairs]
        tricks = [t for _, t in pairs]
        out.append({"bids": bids, "tricks": tricks, "points": [deal_points(b, t) for b, t in pairs]})
    return out


def test_negative_deal_positive_quarter_has_no_penalty() -> None:
    # seat 0: 3/5 -> -10, then exact 2 and 3 -> 20 + 30: raw 40, one inexact deal: no premium, no penalty
    # seat 1: exact every time -> premium; seat 2: 0/2 -> -40, 1/0 -> 0, 1/1 -> 10: raw -30 -> penalty
    deals = _deals([[(3, 5), (1, 1), (0, 2)], [(2, 2), (0, 0), (1, 0)], [(3, 3), (2, 2), (1, 1)]])
    result = quarter_result(1, deals, 3)
    assert result["raw"] == [40, 35, -30]
    assert result["premium"] == [0, 60, 0]
    assert result["penalty"] == [0, 0, -60]
    assert result["final"] == [40, 95, -90]


def test_hook_six_players() -> None:
    state = GAME.new(6, seed=3)
    for seat, bid in enumerate([0, 1, 0, 2, 1]):
        assert state.view(seat)["forbidden_bid"] is None
        state.act(seat, f"bid {bid}")
    assert state.to_act == 5 and state.view(None)["forbidden_bid"] == 2
    assert state.legal_actions(5) == [f"bid {b}" for b in (0, 1, 3, 4, 5, 6)]
    with pytest.raises(IllegalAction, match="may not bid 2"):
        state.act(5, "bid 2")


def test_hook_four_players_quarter_three() -> None:
    state = GAME.new(4, seed=8)
    bots = [RandomPlayer(s, "first") for s in range(4)]
    while state.view()["deal_no"] < 9:
        state.act(state.to_act, bots[state.to_act].choose(state))
    view = state.view()
    assert view["quarter"] == 3 and view["hand_size"] == 10 and view["phase"] == "bid"
    assert view["leader"] == 0 and view["dealer"] == 3
    for seat, bid in enumerate([2, 1, 5]):
        state.act(seat, f"bid {bid}")
    assert "bid 2" not in state.legal_actions(3)
    assert len(state.legal_actions(3)) == 10


def test_no_hook_when_bids_exceed_the_hand() -> None:
    state = GAME.new(3, seed=4)
    state.act(0, "bid 5")
    state.act(1, "bid 2")
    assert state.legal_actions(2) == [f"bid {b}" for b in range(7)]


# -- following: Note В (the reserved pair) -------------------------------------------------------------

def test_unpaired_card_of_the_led_suit_forces_the_suit() -> None:
    state = make([["AS"], ["KS", "KS", "7S", "6H", "JK"], ["10S"]])
    bid_zero(state)
    play(state, "play AS")
    assert set(state.legal_actions(1)) == {"play KS", "play 7S", "play JK over", "play JK under"}
    with pytest.raises(IllegalAction, match="follow suit"):
        state.act(1, "play 6H")


def test_reserved_pair_with_an_unpaired_trump() -> None:
    state = make([["AS"], ["KS", "KS", "6H", "7H", "7H"], ["10S"]])
    bid_zero(state)
    play(state, "play AS")
    assert set(state.legal_actions(1)) == {"play KS", "play 6H", "play 7H"}
    filler = next(c for c in state.view(1)["hand"] if c[-1] in "DC")
    with pytest.raises(IllegalAction, match="trump"):
        state.act(1, f"play {filler}")


def test_reserved_pair_with_paired_trumps_frees_every_card() -> None:
    state = make([["AS"], ["KS", "KS", "7H", "7H", "AD", "6C"], ["10S"]])
    bid_zero(state)
    play(state, "play AS")
    assert set(state.legal_actions(1)) == {"play KS", "play 7H", "play AD", "play 6C"}


def test_void_with_paired_trumps_frees_every_card() -> None:
    state = make([["AS"], ["7H", "7H", "AD", "6C", "6C", "QD"], ["10S"]])
    bid_zero(state)
    play(state, "play AS")
    assert set(state.legal_actions(1)) == {"play 7H", "play AD", "play 6C", "play QD"}


def test_trump_lead_with_a_trump_pair_only() -> None:
    state = make([["AH"], ["9H", "9H", "AS", "AD", "6C", "7C"], ["10H"]])
    bid_zero(state)
    play(state, "play AH")
    assert set(state.legal_actions(1)) == {"play 9H", "play AS", "play AD", "play 6C", "play 7C"}


# -- jokers -----------------------------------------------------------------------------------------------

def test_follow_cards_is_note_v_on_random_hands() -> None:
    """follow_cards against Note В written out with counts, on random hands, leads and trumps."""
    import random

    rng = random.Random(3)
    for _ in range(20_000):
        hand = rng.sample(PACK, rng.randint(1, 12))
        led, trump = rng.randint(0, 3), rng.randint(-1, 3)
        same = [c for c in hand if c >> 4 == led]
        trumps = [c for c in hand if c >> 4 == trump]
        if any(same.count(c) == 1 for c in same):
            want = set(same) | ({JK} & set(hand))
        elif any(trumps.count(c) == 1 for c in trumps):
            want = set(same) | set(trumps) | ({JK} & set(hand))
        else:
            want = set(hand)
        assert follow_cards(hand, led, trump) == want, (hand, led, trump)


def test_joker_lead_high() -> None:
    state = make([["JK", "6S"], ["JK", "AS", "AH"], ["AC", "KC", "JK"]])
    bid_zero(state)
    assert {"play JK high", "play JK low"} <= set(state.legal_actions(0))
    play(state, "play JK high")
    # anything goes after a joker lead; plain cards have no over/under against a high joker
    assert set(state.legal_actions(1)) == {"play JK over", "play JK under", "play AS", "play AH"} | {
        f"play {c}" for c in state.view(1)["hand"] if c not in ("JK", "AS", "AH")}
    base = state.clone()
    assert winner(play(state, "play AS", "play AC")) == 0  # a trump does not beat a high joker
    state = base.clone()
    assert winner(play(state, "play JK over", "play AC")) == 1
    state = base.clone()
    assert winner(play(state, "play JK over", "play JK over")) == 2  # the last joker over wins
    state = base.clone()
    assert winner(play(state, "play JK over", "play JK under")) == 1


def test_joker_lead_low_takes_the_highest_card_whatever_its_suit() -> None:
    state = make([["JK", "6S"], ["AH", "7S", "8C"], ["AD", "KS", "9C"]], trump="C")
    bid_zero(state)
    play(state, "play JK low")
    assert "play AH" in state.legal_actions(1)  # the first card simply beats a low joker
    play(state, "play AH")
    legal = set(state.legal_actions(2))
    assert {"play AD over", "play AD under", "play KS", "play 9C"} <= legal  # AD equals AH: both non-trump aces
    assert "play AD" not in legal
    base = state.clone()
    assert winner(play(state, "play AD over")) == 2
    state = base.clone()
    assert winner(play(state, "play AD under")) == 1
    state = base.clone()
    assert winner(play(state, "play KS")) == 1
    state = base.clone()
    assert winner(play(state, "play 9C")) == 2  # a trump beats everything but a joker over


def test_low_joker_lead_all_others_under_the_leader_takes() -> None:
    state = make([["JK"], ["JK"], ["JK"], ["JK"]])
    bid_zero(state)
    base = state.clone()
    assert winner(play(state, "play JK low", "play JK under", "play JK under", "play JK under")) == 0
    state = base
    assert winner(play(state, "play JK low", "play JK under", "play JK over", "play JK under")) == 2


def test_joker_follow_beats_trumps_and_may_go_under() -> None:
    state = make([["AS"], ["JK", "KS"], ["AH"]], trump="H")
    bid_zero(state)
    play(state, "play AS")
    assert set(state.legal_actions(1)) == {"play JK over", "play JK under", "play KS"}
    base = state.clone()
    assert winner(play(state, "play JK over", "play AH")) == 1
    assert winner(play(base, "play JK under", "play AH")) == 2


# -- equal cards ------------------------------------------------------------------------------------------

def test_twin_queens_over_or_under() -> None:
    # the seed's example: 6S, QS, JS, QS, 7S, 8S
    hands = [["6S"], ["QS"], ["JS"], ["QS"], ["7S"], ["8S"]]
    state = make(hands, trump="H")
    bid_zero(state)
    play(state, "play 6S", "play QS", "play JS")
    assert state.legal_actions(3) == ["play QS over", "play QS under"]
    with pytest.raises(IllegalAction, match="over or under"):
        state.act(3, "play QS")
    base = state.clone()
    assert winner(play(state, "play QS over", "play 7S", "play 8S")) == 3
    assert winner(play(base, "play QS under", "play 7S", "play 8S")) == 1


def test_equal_card_only_against_the_current_best() -> None:
    state = make([["QS"], ["6H"], ["QS", "KS"]], trump="H")
    bid_zero(state)
    play(state, "play QS", "play 6H")  # a trump is now best: the twin queen is just a queen
    assert set(state.legal_actions(2)) == {"play QS", "play KS"}


# -- the Carnival (pair lead) -------------------------------------------------------------------------------

def _parse_give(action: str) -> tuple[int, int]:
    verb, a, b = action.split()
    assert verb == "give"
    return tuple(sorted((parse_card(a), parse_card(b))))  # type: ignore[return-value]


def test_carnival_lead_and_give_any_two_cards() -> None:
    state = make([["9S", "9S"], ["KS", "KS", "AH"], ["6S"]], trump="H")
    bid_zero(state)
    assert "carnival 9S 9S" in state.legal_actions(0)
    play(state, "carnival 9S 9S")
    hand = [parse_card(c) for c in state.view(1)["hand"]]
    expected = {tuple(sorted(p)) for p in combinations(hand, 2)}
    legal = state.legal_actions(1)
    assert len(legal) == len(set(legal)) == len(expected)
    assert {_parse_give(a) for a in legal} == expected


@pytest.mark.parametrize(("gives", "taker"), [
    (["give 6S 6S", "give KD KD", "give AS AH"], 0),  # a lower pair, another plain suit, no pair: nobody takes
    (["give KS KS", "give 6S 6S", "give AS AH"], 1),  # the same suit, higher
    (["give KS KS", "give 6H 6H", "give QS QS"], 2),  # a trump pair beats it; a plain pair cannot come back
    (["give 6H 6H", "give 7H 7H", "give AS AH"], 2),  # a higher trump pair beats a lower one
    (["give 7H 7H", "give 6H 6H", "give AS AH"], 1),
    (["give 6H 6H", "give AS AH", "give JK JK"], 3),  # two jokers beat everything
    (["give JK JK", "give 6H 6H", "give AS AH"], 1),
])
def test_carnival_take_away(gives: list[str], taker: int) -> None:
    hands = [["9S", "9S"], [], [], []]
    for seat, give in enumerate(gives, start=1):
        hands[seat] += give.split()[1:]
    state = make(hands, trump="H")
    bid_zero(state)
    events = play(state, "carnival 9S 9S", *gives)
    (trick,) = [e for e in events if e["type"] == "trick"]
    assert trick["winner"] == taker and trick["count"] == 2
    assert state.view()["tricks"][taker] == 2 and sum(state.view()["tricks"]) == 2
    assert state.to_act == taker and state.view()["hand_counts"] == [4, 4, 4, 4]


def test_trump_carnival_only_a_higher_trump_pair_or_jokers_take() -> None:
    state = make([["9H", "9H"], ["KS", "KS"], ["10H", "10H"]], trump="H")
    bid_zero(state)
    assert winner(play(state, "carnival 9H 9H", "give KS KS", "give 10H 10H")) == 2


def test_two_jokers_may_not_lead_a_carnival() -> None:
    state = make([["JK", "JK", "QS", "QS"], [], []])
    bid_zero(state)
    legal = state.legal_actions(0)
    assert "carnival QS QS" in legal
    assert not [a for a in legal if a.startswith("carnival JK")]
    with pytest.raises(IllegalAction, match="three or four"):
        state.act(0, "carnival JK JK")


def test_three_jokers_lead_two_and_keep_the_third() -> None:
    state = make([["JK", "JK", "JK", "QS"], ["AH", "AH"], ["JK"]], trump="H")
    bid_zero(state)
    legal = state.legal_actions(0)
    assert "carnival JK JK" in legal and "carnival JK QS" not in legal
    events = play(state, "carnival JK JK", "give AH AH")
    assert "give JK JK" not in state.legal_actions(2)
    events += play(state, state.legal_actions(2)[0])
    assert winner(events) == 0
    assert "JK" in state.view(0)["hand"]


def test_four_jokers_pair_with_any_card_and_can_be_taken() -> None:
    state = make([["JK", "JK", "JK", "JK", "QS", "6D"], ["KS", "KS"], ["AS"]], trump="H", fill=True)
    bid_zero(state)
    legal = set(state.legal_actions(0))
    assert {"carnival JK QS", "carnival JK 6D", "carnival JK JK"} <= legal
    base = state.clone()
    events = play(state, "carnival JK QS", "give KS KS")
    assert winner(events + play(state, state.legal_actions(2)[0])) == 1
    events = play(base, "carnival JK JK", "give KS KS")
    assert winner(events + play(base, base.legal_actions(2)[0])) == 0


# -- the turn-up and the options ----------------------------------------------------------------------------

def _joker_turned_seed(players: int) -> int:
    for seed in range(1, 2000):
        if GAME.new(players, seed=seed).view()["turned_up"][0] == "JK":
            return seed
    raise AssertionError("no seed turns up a joker")


def test_joker_turned_up_next_card_or_no_trump() -> None:
    seed = _joker_turned_seed(3)
    nxt = GAME.new(3, seed=seed)
    none = GAME.new(3, seed=seed, options={"joker_trump": "no_trump"})
    a, b = nxt.view(None), none.view(None)
    assert [nxt.view(s)["hand"] for s in range(3)] == [none.view(s)["hand"] for s in range(3)]
    assert a["turned_up"][0] == "JK" and all(c == "JK" for c in a["turned_up"][:-1])
    assert a["trump_card"] == a["turned_up"][-1] != "JK" and a["trump"] == a["trump_card"][-1]
    assert b["turned_up"] == ["JK"] and b["trump"] is None and b["trump_card"] == "JK"
    # without a trump a void player may play any card
    ordinary = GAME.new(3, seed=seed + 1)
    assert ordinary.view()["turned_up"] == [ordinary.view()["trump_card"]]


def test_explicit_trump_card_and_no_trump() -> None:
    state = make([[], [], []], trump="9C")
    assert state.view()["trump"] == "C" and state.view()["trump_card"] == "9C"
    state = make([[], [], []], trump=None)  # type: ignore[arg-type]
    assert state.view()["trump"] is None


@pytest.mark.parametrize("options", [{"quarters": 0}, {"quarters": 5}, {"joker_trump": "sometimes"},
                                     {"colour": "red"}])
def test_bad_options(options: dict) -> None:
    with pytest.raises(OptionsError):
        GAME.new(3, seed=1, options=options)


def test_option_defaults() -> None:
    state = GAME.new(3, seed=1)
    assert state.options.quarters == 4 and state.options.joker_trump == "next_card"
    assert state.view()["deals_total"] == 12


@pytest.mark.parametrize("deal", [
    {"dealer": 2, "hands": [["AS"] * 6, ["KS"] * 6, ["QS"] * 6]},  # more than two of a card
    {"dealer": 2, "hands": [["AS", "KS"], ["QS"], ["JS"]]},  # wrong hand size
    {"dealer": 7, "hands": [FILLERS[0:6], FILLERS[6:12], FILLERS[12:18]]},  # no such seat
    {"dealer": 2, "hands": [FILLERS[0:6], FILLERS[6:12], FILLERS[12:18]], "trump": "X"},
    {"dealer": 2, "hands": [FILLERS[0:6], FILLERS[6:12], FILLERS[12:18]], "trump": "JK"},  # next_card
    {"dealer": 2, "hands": [FILLERS[0:6], FILLERS[6:12], ["5S"] * 6]},  # not in the pack
])
def test_bad_explicit_deals(deal: dict) -> None:
    with pytest.raises(GameError):
        GAME.new(3, seed=1, deals=[deal])


def test_too_many_explicit_deals() -> None:
    deal = {"dealer": 2, "hands": [FILLERS[0:6], FILLERS[6:12], FILLERS[12:18]]}
    with pytest.raises(GameError):
        GAME.new(3, seed=1, options={"quarters": 1}, deals=[deal] * 4)


def test_player_counts() -> None:
    for bad in (2, 7):
        with pytest.raises(GameError):
            GAME.new(bad, seed=1)


# -- views ----------------------------------------------------------------------------------------------------

VIEW_KEYS = {"phase", "quarter", "deal_in_quarter", "deal_no", "deals_total", "hand_size", "dealer", "leader",
             "trump", "trump_card", "bids", "tricks", "forbidden_bid", "hand_counts", "trick", "last_trick", "sheet"}


def test_view_shape_through_a_trick() -> None:
    state = make([["AS", "JK"], ["KS"], ["QS"]], trump="H")
    spectator = state.view(None)
    assert VIEW_KEYS <= set(spectator) and "hand" not in spectator
    assert spectator["phase"] == "bid" and spectator["bids"] == [None, None, None]
    assert state.view(0)["hand"][0] == "JK"
    bid_zero(state)
    play(state, "play AS", "play KS")
    trick = state.view(2)["trick"]
    assert trick == {"leader": 0, "kind": "single", "lead_mode": None, "best": 0, "plays": [
        {"seat": 0, "cards": ["AS"], "place": None}, {"seat": 1, "cards": ["KS"], "place": None}]}
    play(state, "play QS")
    view = state.view(1)
    assert view["trick"] is None and view["last_trick"]["winner"] == 0 and view["tricks"] == [1, 0, 0]
    assert view["hand_counts"] == [5, 5, 5] and len(view["hand"]) == 5
    assert view["sheet"]["deals"] == [] and view["sheet"]["players"] == 3
