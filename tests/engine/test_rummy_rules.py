"""The manipulation rummies' rules, case by case: the seed's acceptance examples (RULES.md 8.4 and
9.7: 23 and 33; 58; 40; 1 point a card; the run table), each turn structure, stock exhaustion,
match ends, and bad input refused with a reason naming the card or meld, changing nothing.

Positions are set up by editing a state's JSON (hands, table, stock, whose turn), then driven
through ``State.act`` like any client would.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import melds
from engine.cards import card_str, parse_cards
from engine.core import GameError, IllegalAction, OptionsError, State, deal_rng, get_game
from engine.rummy.base import RummyState
from games.carousel.rules import CarouselState, deal_points, settlement
from games.manipulation.rules import manipulation_points
from games.tahiti.rules import tahiti_points


def position(game: str, n: int, hands: list[str], table: str = "", stock: str | None = None,
             turn: int = 0, options: dict[str, Any] | None = None, **fields: Any) -> RummyState:
    """A state of ``game`` with these hands (card texts), table (``7H-8H-9H | ...``) and stock
    (top first; by default the rest of the pack in the seed's order)."""
    state = get_game(game).new(n, seed=3, options=options)
    assert isinstance(state, RummyState)
    data = state.to_json()
    s = data["state"]
    s["hands"] = [parse_cards(h) for h in hands]
    s["table"] = melds.parse_table(table)
    used = [c for h in s["hands"] for c in h] + [melds.stands_for(x) if x < 256 else 64 for m in s["table"] for x in m]
    if stock is None:
        rest = state.pack()
        for c in used:
            rest.remove(c)
        s["stock"] = rest
    else:
        s["stock"] = parse_cards(stock)
    s["turn"] = turn
    s.update(fields)
    out = State.from_json(data)
    assert isinstance(out, RummyState)
    return out


def refused(state: State, seat: int, action: str, *words: str) -> str:
    """``action`` is refused, the reason names every word given, and nothing changed."""
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.act(seat, action)
    assert state.to_json() == before, "a refused action changed the state"
    for word in words:
        assert word in info.value.reason, f"{info.value.reason!r} does not name {word!r}"
    assert not state.is_legal(seat, action)
    return info.value.reason


def deal_end(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "deal_end")


# -- RULES.md 8.4: Carousel 23 and 33 ---------------------------------------------------------------

def test_carousel_seed_example_knocker_wins_23() -> None:
    assert deal_points([4, 6, 12, 17], knocker=0, out=None) == ([23, 0, 0, 0], [0])
    # Through the engine: seat 0 drew, holds A+3 = 4 and knocks; the others hold 6, 12 and 17.
    state = position("carousel", 4, ["AS 3H", "6C", "10S 2D", "KS 7D"], "5H-6H-7H", turn=0, drawn=1)
    assert "knock" in state.legal_actions(0)
    end = deal_end(state.act(0, "knock"))
    assert end["values"] == [4, 6, 12, 17]
    assert end["points"] == [23, 0, 0, 0] and end["winners"] == [0]
    assert state.scores() == [23, 0, 0, 0] and state.deal_no == 2


def test_carousel_seed_example_undercut_33() -> None:
    assert deal_points([4, 6, 12, 17], knocker=1, out=None) == ([33, 0, 0, 0], [0])
    # Through the engine: seat 1 knocks with 5 (A+4), seat 0 holds 4: undercut, 1+8+13+10 = 32.
    state = position("carousel", 4, ["AS 3H", "AC 4D", "10S 2D", "KS 7D"], "5H-6H-7H", turn=1, drawn=2)
    end = deal_end(state.act(1, "knock"))
    assert end["points"] == [32, 0, 0, 0] and end["winners"] == [0] and end["knocker"] == 1


def test_carousel_ties() -> None:
    # A knocker tied lowest loses to the tied player, who takes the undercut bonus.
    assert deal_points([5, 5, 9], knocker=0, out=None) == ([0, 4 + 10, 0], [1])
    # Two non-knockers tied lowest both score as winners, each with the bonus.
    assert deal_points([7, 3, 3, 10], knocker=0, out=None) == ([0, 11 + 10, 11 + 10, 0], [1, 2])
    # No knocker (stock out): no undercut bonus.
    assert deal_points([7, 3, 10], knocker=None, out=None) == ([0, 11, 0], [1])
    # Culbertson: the winner takes the others' total, his own not subtracted; ties split it.
    assert deal_points([4, 6, 12, 17], knocker=0, out=None, culbertson=True) == ([35, 0, 0, 0], [0])
    assert deal_points([3, 3, 12, 17], knocker=None, out=None, culbertson=True) == ([14, 14, 0, 0], [0, 1])


def test_carousel_going_out() -> None:
    # Seat 0 lays its last three cards: +25 plus the full values of the others (joker 25).
    state = position("carousel", 3, ["7H 8H 9H", "JK KS", "AC 2D"], turn=0, drawn=1)
    end = deal_end(state.act(0, "lay 7H 8H 9H"))
    assert end["out"] == 0 and end["values"] == [0, 35, 3]
    assert end["points"] == [25 + 35 + 3, 0, 0]


def test_carousel_game_end_bonuses_and_settlement() -> None:
    state = position("carousel", 3, ["AS", "KC QC", "9D 9S"], "5H-6H-7H", turn=0, drawn=1,
                     totals=[140, 30, 0], wins=[2, 1, 0])
    events = state.act(0, "knock")
    assert state.over
    over = events[-1]
    # The deal: 1 v 20 and 18 -> 19 + 17 = 36; 176 passes 150: +100; +25 per hand won (3, 1, 0).
    assert over["game_bonus"] == [100, 0, 0] and over["hand_bonus"] == [75, 25, 0]
    assert state.scores() == [140 + 36 + 100 + 75, 55, 0]
    assert over["settlement"] == settlement(state.scores())
    assert settlement([351, 55, 0]) == [351 * 2 - 55, 55 * 2 - 351, -406]
    assert state.winners() == [0]


def test_carousel_culbertson_no_hand_bonus() -> None:
    state = position("carousel", 2, ["AS", "KC QC"], "5H-6H-7H", turn=0, options={"culbertson": True},
                     totals=[140, 30], wins=[2, 1])
    events = state.act(0, "knock")  # at the start of the turn, 1 <= 10
    over = events[-1]
    assert over["game_bonus"] == [100, 0] and over["hand_bonus"] == [0, 0]
    assert state.scores() == [140 + 20 + 100, 30]


def test_carousel_turn_scarne() -> None:
    state = position("carousel", 2, ["7H 8H 9H 2C KD", "3S 4S"], stock="5C 6C 7C 8C 9C 10C JC")
    assert state.legal_actions(0) == ["draw"]  # always draw first
    refused(state, 0, "lay 7H 8H 9H", "may not lay")
    refused(state, 0, "end", "end")
    state.act(0, "draw")
    legal = state.legal_actions(0)
    assert "draw" in legal and "end" not in legal and "knock" not in legal  # lay down or draw again
    assert any(a.startswith("lay 7H 8H 9H /") for a in legal)
    state.act(0, "draw")
    assert any(a.startswith("lay") for a in state.legal_actions(0))
    state.act(0, "draw")  # the third card ends the turn: no lay-down after it
    assert state.to_act == 1 and len(state.hands[0]) == 8 and state.drawn == 0
    assert state.legal_actions(1) == ["draw"]


def test_carousel_lay_then_end_or_knock() -> None:
    state = position("carousel", 2, ["7H 8H 9H AC 2C", "3S 4S"], stock="AD 6C 7C 8C")
    state.act(0, "draw")  # AD: hand A+A+2 after the lay = 4
    state.act(0, "lay 7H 8H 9H")
    legal = state.legal_actions(0)
    assert "knock" in legal and "end" in legal and "draw" not in legal
    state.act(0, "end")
    assert state.to_act == 1


def test_carousel_turn_culbertson() -> None:
    opts = {"culbertson": True}
    state = position("carousel", 2, ["AS 2C 3D", "KS QS JS 10S"], stock="5C 6C 7C 8C 9C 10C", options=opts)
    assert sorted(state.legal_actions(0)) == ["draw", "knock"]  # 6 <= 10 at the start of the turn
    state.act(0, "draw")
    assert "knock" not in state.legal_actions(0)  # knocking only instead of drawing
    for _ in range(3):
        state.act(0, "draw")
    assert state.to_act == 1 and len(state.hands[0]) == 7  # the 4th card ended the turn
    assert state.legal_actions(1) == ["draw"]  # 40 > 10: no knock


def test_carousel_stock_exhaustion_final_round() -> None:
    # Seat 1 draws the last card and ends: every player, ending with seat 1, has one more turn.
    state = position("carousel", 3, ["KS KH", "2C 3C", "QD QC"], "5H-6H-7H", stock="4C", turn=1)
    state.act(1, "draw")
    assert state.legal_actions(1)[-1] == "end" and "draw" not in state.legal_actions(1)
    events = state.act(1, "end")
    assert events[-1]["type"] == "final_round" and events[-1]["order"] == [2, 0, 1]
    assert state.to_act == 2 and state.legal_actions(2) == ["end"]  # no draw, no knock
    state.act(2, "end")
    assert state.to_act == 0
    state.act(0, "end")
    assert state.to_act == 1
    assert any(a.startswith("lay") for a in state.legal_actions(1)), "a final turn may lay down"
    end = deal_end(state.act(1, "lay 2C 3C 4C"))
    assert end["out"] == 1 and end["points"][1] == 25 + 20 + 20


def test_carousel_count_after_final_round() -> None:
    state = position("carousel", 2, ["KS", "2C"], "5H-6H-7H", stock="", turn=0,
                     final_left=[0, 1])
    state.act(0, "end")
    end = deal_end(state.act(1, "end"))
    assert end["knocker"] is None and end["values"] == [10, 2] and end["points"] == [0, 8]


# -- RULES.md 9.7 --------------------------------------------------------------------------------------

def test_machiavelli_one_point_per_card() -> None:
    state = position("machiavelli", 3, ["7H 8H 9H", "2S 5D 9C KH", "AS"])
    end = deal_end(state.act(0, "lay 7H 8H 9H"))
    assert end["out"] == 0 and end["penalties"] == [0, 4, 1]
    assert state.over and state.scores() == [0, -4, -1] and state.winners() == [0]


def test_tahiti_penalty_58() -> None:
    assert sum(tahiti_points(c) for c in parse_cards("AS KH 7D JK")) == 58
    state = position("tahiti", 2, ["7H 8H 9H", "AS KH 7D JK"], "2C | 5D | 9S | QC")
    end = deal_end(state.act(0, "lay 7H 8H 9H"))
    assert end["penalties"] == [0, 58] and state.scores() == [0, -58]


def test_manipulation_penalty_40() -> None:
    assert sum(manipulation_points(c) for c in parse_cards("AS 10H QD 4C")) == 40
    state = position("manipulation", 3, ["JH QH KH", "AS 10H QD 4C", "2D"], options={"target": 40})
    end = deal_end(state.act(0, "lay JH QH KH"))
    assert end["penalties"] == [0, 40, 5]
    assert state.over and state.winners() == [0]  # 40 reached the target: the lowest total wins


@pytest.mark.parametrize(("game", "cards", "ok"), [
    ("carousel", "QH KH AH", True), ("machiavelli", "QH KH AH", True), ("manipulation", "QH KH AH", True),
    ("shanghai", "QH KH AH", False),
    ("carousel", "AH 2H 3H", True), ("machiavelli", "AH 2H 3H", True), ("shanghai", "AH 2H 3H", True),
    ("manipulation", "AH 2H 3H", False),
    ("carousel", "KH AH 2H", False), ("machiavelli", "KH AH 2H", False), ("shanghai", "KH AH 2H", False),
    ("manipulation", "KH AH 2H", False), ("tahiti", "KH AH 2H", False), ("guadalupe", "KH AH 2H", False),
    ("vatican", "KH AH 2H", False),
])
def test_run_table_through_the_games(game: str, cards: str, ok: bool) -> None:
    n = 3
    drawn = {"drawn": 1} if game == "carousel" else {}
    table = "2C | 5D | 9S | QC" if game == "tahiti" else ""
    state = position(game, n, [cards + " 5S", "4D 4C", "6D 6C"], table, **drawn)
    meld = cards.replace(" ", "-")
    if ok:
        state.act(0, f"lay {cards} / {table + ' | ' if table else ''}{meld}")
        assert [card_str(c) for c in state.table[-1]] == cards.split()
    else:
        refused(state, 0, f"lay {cards}", cards.split()[0])


# -- bad input ----------------------------------------------------------------------------------------

def test_bad_lay_downs_refused_with_reasons() -> None:
    state = position("machiavelli", 2, ["7H 8H 9H 5C 5S", "2D 3D"], "5H-6H-7H | 10S-10D-10C")
    refused(state, 0, "lay 7H 8H 9H / 7H-8H-9H-10H", "10H")  # not a partition: 10H from nowhere
    refused(state, 0, "lay 7H 8H 9H / 7H-8H-9H | 5H-6H-7H", "10S")  # a table card missing
    refused(state, 0, "lay 2D", "2D", "not in your hand")
    refused(state, 0, "lay 7H 7H", "7H")  # only one 7H in hand
    refused(state, 0, "lay 5C 5S / 5H-6H-7H | 10S-10D-10C | 5C-5S", "5C-5S", "at least 3")
    refused(state, 0, "lay 5C", "5C")  # no arrangement uses 5C
    refused(state, 0, "lay XY", "XY")
    refused(state, 0, "lay", "at least one card")
    refused(state, 1, "lay 2D", "turn")
    refused(state, 0, "lay 8H / 5H-6H-7H-8H | 10S-10D-10C | 10S", "10S")


def test_carousel_joker_keeps_its_meaning() -> None:
    # 8S-9S-JK=10S: adding 6S by turning the joker into a 7S is refused; the real 10S releases it.
    state = position("carousel", 3, ["6S 10S 7D 7C", "2D", "3D"], "8S-9S-JK=10S | 7H-7S-7C", drawn=1)
    refused(state, 0, "lay 6S / 6S-JK=7S-8S-9S | 7H-7S-7C", "10S")
    # With the real 10S the joker is released and must be used at once: here as the 7D.
    state.act(0, "lay 10S / 8S-9S-10S | 7H-7S-JK=7D-7C")
    assert [melds.table_card_str(x) for x in state.table[1]] == ["7S", "7H", "JK=7D", "7C"]
    assert parse_cards("6S 7D 7C") == state.hands[0] or sorted(state.hands[0]) == sorted(parse_cards("6S 7D 7C"))


def test_tahiti_joker_swap_from_hand_only_and_frozen_meld() -> None:
    table = "5H-JK=6H-7H | 6S-6H-6D | 2C | 5D | 9S | QC"
    state = position("tahiti", 2, ["8H 4H KD", "2D"], table)
    # The 6H of the set may not release the joker (the swap card comes from the hand) ...
    refused(state, 0, "lay 4H / 4H-5H-6H-7H | 6S-6D-JK=6C | 2C | 5D | 9S | QC", "6H")
    # ... and the meld holding the joker cannot be extended while the joker is in it.
    refused(state, 0, "lay 8H / 5H-JK=6H-7H-8H | 6S-6H-6D | 2C | 5D | 9S | QC", "5H-JK=6H-7H")


def test_vatican_joker_never_moves_unreplaced_and_opening_run() -> None:
    table = "5H-6H-JK=7H | 9C-9D-9S"
    move = "lay 4H 7D 7S / 4H-5H-6H | 7S-JK=7H-7D | 9C-9D-9S"
    # Carousel lets the joker move to another meld keeping its meaning; Vatican does not.
    carousel = position("carousel", 3, ["4H 7S 7D 2C", "2D", "3D"], table, drawn=1)
    carousel.act(0, move)
    state = position("vatican", 3, ["4H 7S 7D 8H", "2D", "3D"], table, opened=[True, False, False])
    refused(state, 0, move, "JK", "5H-6H-JK=7H")
    state.act(0, "lay 8H / 5H-6H-JK=7H-8H | 9C-9D-9S")  # the run may grow around it
    # Seat 1 has not opened: a first lay-down without a 3-card run from hand is refused.
    opening = position("vatican", 3, ["2D", "9H 5C 6C 7C KD", "3D"], table, turn=1)
    refused(opening, 1, "lay 9H", "run of 3")
    opening.act(1, "lay 5C 6C 7C 9H")  # the run, and more in the same lay-down
    assert opening.opened[1] and opening.hands[1] == parse_cards("KD")


# -- lay-downs listed or not ------------------------------------------------------------------------------

def test_any_legal_lay_down_is_accepted_listed_or_not() -> None:
    table = "2H-3H-4H-5H-6H-7H-8H"
    state = position("machiavelli", 2, ["5S 5D 9C KC", "2D"], table)
    listed = state.legal_actions(0)
    explicit = "lay 5D 5S / 2H-3H-4H | 5S-5H-5D | 6H-7H-8H"
    twin = state.clone()
    canonical = state.canonical_action("lay 5S 5D")
    assert canonical.startswith("lay 5S 5D / ")
    events = state.act(0, "lay 5S 5D")  # the short form: the solver arranges the table
    assert events[0]["action"] == canonical
    assert all(melds.is_valid(state.variant, m) for m in state.table)
    twin.act(0, explicit)  # an explicit arrangement, listed or not
    assert sorted(map(sorted, twin.table)) == sorted(map(sorted, melds.parse_table(explicit.split("/ ")[1])))
    assert isinstance(listed, list)


def test_shanghai_must_meld_exactly() -> None:
    # Only a rearrangement lays 5S 5D (the run 2H..8H splits): the player must lay, not draw.
    state = position("shanghai", 3, ["5S 5D 9C KC", "2D", "3D"], "2H-3H-4H-5H-6H-7H-8H")
    legal = state.legal_actions(0)
    assert legal and all(a.startswith("lay") for a in legal)
    refused(state, 0, "draw", "draw")
    # Nothing fits: draw, one card at a time, the same player going on.
    state = position("shanghai", 3, ["9C KD", "2D", "3D"], "2H-3H-4H", stock="6C 9S 9D 8D")
    for _ in range(2):
        assert state.legal_actions(0) == ["draw"]
        state.act(0, "draw")
        assert state.to_act == 0
    state.act(0, "draw")
    assert state.to_act == 0 and all(a.startswith("lay") for a in state.legal_actions(0))
    state.act(0, "lay 9C 9S 9D")
    assert state.to_act == 1


def test_pass_only_when_stuck_and_full_round_ends_the_deal() -> None:
    state = position("shanghai", 3, ["9C KD", "2D JS", "3D 7C"], "2H-3H-4H", stock="")
    assert state.legal_actions(0) == ["pass"]
    state.act(0, "pass")
    state.act(1, "pass")
    end = deal_end(state.act(2, "pass"))
    assert end["out"] is None and end["penalties"] == [2, 2, 2]
    stuck = position("machiavelli", 2, ["9C 5H", "2D"], "2H-3H-4H", stock="")
    assert "pass" not in stuck.legal_actions(0)  # 5H fits: no pass


def test_guadalupe_draws() -> None:
    state = position("guadalupe", 2, ["7H 8H 9H KC", "2D 3C"], stock="AS AD AC 2S 2H")
    state.act(0, "lay 7H 8H 9H")  # laid without going out: one card at the end of the turn
    assert state.hands[0] == parse_cards("KC AS") or sorted(state.hands[0]) == sorted(parse_cards("KC AS"))
    assert state.to_act == 1
    state.act(1, "draw")  # nothing laid: two cards
    assert sorted(state.hands[1]) == sorted(parse_cards("2D 3C AD AC")) and state.to_act == 0


def test_tahiti_deal_has_four_loose_singles() -> None:
    for seed in range(30):
        state = get_game("tahiti").new(3, seed=seed)
        assert isinstance(state, RummyState)
        assert len(state.table) == 4 and all(len(m) == 1 and m[0] < 64 for m in state.table)
        assert all(len(h) == 5 for h in state.hands)
    state = position("tahiti", 2, ["7H 8H KD", "2D"], "9H | 5D | 9S | QC")
    state.act(0, "lay 7H 8H / 7H-8H-9H | 5D | 9S | QC")  # a loose single joins a meld
    refused(position("tahiti", 2, ["7H 8H KD", "2D"], "9H | 5D | 9S | QC"), 0,
            "lay KD / 9H | 5D | 9S | QC | KD", "KD")  # a hand card alone is no meld


def test_shanghai_deals_3_3_3_1() -> None:
    state = get_game("shanghai").new(4, seed=11)
    assert isinstance(state, RummyState)
    cards = state.pack()
    deal_rng(11, 0).shuffle(cards)
    expected: list[list[int]] = [[] for _ in range(4)]
    for size in (3, 3, 3, 1):
        for seat in range(4):  # the dealer is seat 3: seat 0 first
            expected[seat] += cards[:size]
            cards = cards[size:]
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in expected]
    assert state.stock == cards


def test_options_and_match_length() -> None:
    with pytest.raises(OptionsError):
        get_game("manipulation").new(3, options={"deals": 0, "target": 0})
    with pytest.raises(GameError):
        get_game("shanghai").new(2)
    state = position("shanghai", 3, ["7H 8H 9H", "2D", "3D"], options={"deals": 2})
    state.act(0, "lay 7H 8H 9H")
    assert not state.over and state.deal_no == 2 and state.dealer == 0 and state.to_act == 1
    assert get_game("manipulation").new(6).pack().__len__() == 156
    assert isinstance(get_game("carousel").new(2), CarouselState)
    assert len(get_game("carousel").new(2).pack()) == 53 and len(get_game("carousel").new(3).pack()) == 106


def test_vatican_stuck_before_opening_passes() -> None:
    # The stock is out; seat 0 has not opened and holds no 3-card run, though 8H would fit the
    # table: it may not lay down, so it passes.
    state = position("vatican", 2, ["8H 2C", "KD"], "5H-6H-7H", stock="")
    assert state.legal_actions(0) == ["pass"]
    opened = position("vatican", 2, ["8H 2C", "KD"], "5H-6H-7H", stock="", opened=[True, False])
    assert opened.legal_actions(0) and "pass" not in opened.legal_actions(0)


def test_explicit_deals() -> None:
    hands = [["7H", "8H", "9H", "KD", "2C"], ["AS", "3D", "4D", "5D", "6C"]]
    deal = {"hands": hands, "singles": ["2S", "3S", "4S", "5S"], "dealer": 1}
    state = get_game("tahiti").new(2, seed=1, deals=[deal])
    assert isinstance(state, RummyState)
    assert [[card_str(c) for c in m] for m in state.table] == [["2S"], ["3S"], ["4S"], ["5S"]]
    assert state.to_act == 0 and len(state.stock) == 108 - 14
    with pytest.raises(GameError, match="joker"):
        get_game("tahiti").new(2, seed=1, deals=[{**deal, "singles": ["JK", "3S", "4S", "5S"]}])
    with pytest.raises(GameError, match="twice"):
        get_game("machiavelli").new(2, seed=1, deals=[{"hands": [["7H"] * 3, ["2C"]]}])


def test_view_shows_the_table_and_own_hand_only() -> None:
    state = position("tahiti", 2, ["7H 8H KD", "2D 3D"], "9S-9H-9D | 4C-5C-JK=6C | QC")
    view = state.view(0)
    assert view["table"] == ["9S-9H-9D", "4C-5C-JK=6C", "QC"]
    assert view["table_kinds"] == ["set", "run", "single"]
    assert sorted(view["hand"]) == ["7H", "8H", "KD"] and view["hand_counts"] == [3, 2]
    assert "hand" not in state.view(None) and "stock" not in view and view["stock_count"] == len(state.stock)
