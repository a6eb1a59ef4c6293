"""Calabrasella: RULES.md section 2 and the acceptance numbers of section 15 (item 4)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.core import OptionsError, get_game
from engine.record import load
from engine.selfplay import POLICIES, play_game
from tests.engine.replaying import play_with_events

DATA = Path(__file__).parent / "data"
GAME = get_game("calabrasella")

# Independent tables (RULES 2.2), not imported from the module under test.
ORDER = ["3", "2", "A", "K", "Q", "J", "7", "6", "5", "4"]
POINTS = {"A": 3, "K": 1, "Q": 1, "J": 1, "3": 1, "2": 1}
ALL_40 = [r + s for s in "SHDC" for r in ORDER]
CARD_RE = re.compile(r"\b(?:[2-7JQKA])[SHDC]\b")


def pts(card: str) -> int:
    return POINTS.get(card[:-1], 0)


def trick_winner(plays: list[tuple[int, str]]) -> int:
    led = plays[0][1][-1]
    following = [(ORDER.index(c[:-1]), s) for s, c in plays if c[-1] == led]
    return min(following)[1]


def recount(events: list[dict[str, Any]], soloist: int) -> tuple[int, int]:
    """Soloist's and partners' points from public events only: trick cards, the pile revealed at
    the end (to the last trick's winner) and 3 for the last trick."""
    per_seat = [0, 0, 0]
    plays: list[tuple[int, str]] = []
    last = None
    for e in events:
        if e["type"] == "play":
            plays.append((e["seat"], e["card"]))
        elif e["type"] == "trick":
            winner = trick_winner(plays)
            assert winner == e["winner"], (plays, e)
            per_seat[winner] += sum(pts(c) for _, c in plays)
            plays = []
            last = winner
        elif e["type"] == "deal_end":
            assert last is not None
            per_seat[last] += 3 + sum(pts(c) for c in e["pile"])
            break
    solo = per_seat[soloist]
    return solo, sum(per_seat) - solo


# -- RULES 15 item 4 ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,solo,partners,solo_pts,partner_pts",
    [("calabrasella_soloist_20.json", 20, 15, 10, -5), ("calabrasella_soloist_15.json", 15, 20, -10, 5)],
)
def test_settlement_by_difference(name: str, solo: int, partners: int, solo_pts: int, partner_pts: int) -> None:
    record = load(DATA / name)
    state, events = play_with_events(record)
    deal = state.sheet()["deals"][0]
    soloist = deal["soloist"]
    assert recount(events, soloist) == (solo, partners)
    assert (deal["soloist_points"], deal["partner_points"]) == (solo, partners)
    assert deal["points"] == [solo_pts if s == soloist else partner_pts for s in range(3)]
    assert state.scores() == deal["points"] and state.over  # options deals=1


def test_35_points_per_deal() -> None:
    assert sum(pts(c) for c in ALL_40) + 3 == 35
    for name in ("calabrasella_soloist_20.json", "calabrasella_soloist_15.json"):
        state, events = play_with_events(load(DATA / name))
        soloist = state.sheet()["deals"][0]["soloist"]
        assert sum(recount(events, soloist)) == 35
        assert sum(state.sheet()["deals"][0]["card_points"]) + 3 == 35


# -- designed deals --------------------------------------------------------------------------
def spec(hands: list[str], widow: str, dealer: int = 0) -> dict[str, Any]:
    return {"dealer": dealer, "hands": [h.split() for h in hands], "widow": widow.split()}


# Seat 1 is eldest (dealer 0). Seat 2 holds 3S and 3H; the widow holds 3C; seat 1 holds 3D.
HANDS = [
    "2S AS KS QS 2H AH KH QH 2D AD KD 2C",
    "JS 7S 6S JH 7H 6H 3D QD JD 7D AC KC",
    "3S 5S 4S 3H 5H 4H 6D 5D 4D QC JC 7C",
]
WIDOW = "3C 6C 5C 4C"
SPEC = spec(HANDS, WIDOW)


def new(deal: dict[str, Any] = SPEC, **options: Any) -> Any:
    return GAME.new(3, seed=1, options=options or None, deals=[deal])


def test_declaration_from_eldest_and_all_pass_annuls() -> None:
    s = new(deals=2)
    assert s.to_act == 1 and s.legal_actions() == ["declare", "pass"]
    for seat in (1, 2, 0):
        assert s.to_act == seat
        s.act(seat, "pass")
    assert s.sheet()["deals"][0]["annulled"] == "all passed"
    assert s.view()["dealer"] == 1 and s.view()["deal_no"] == 2 and s.to_act == 2
    for seat in (2, 0, 1):
        s.act(seat, "pass")
    assert s.over and s.scores() == [0, 0, 0]


def test_ask_for_a_three_exchange_hidden_from_third_player() -> None:
    s = new()
    s.act(1, "pass")
    s.act(2, "pass")
    s.act(0, "declare")
    assert s.to_act == 0 and s.view()["soloist"] == 0
    assert s.legal_actions() == ["ask 3S", "ask 3H", "ask 3D", "ask 3C", "noask"]
    events = s.act(0, "ask 3H")
    assert events[0]["holder"] == 2 and not events[0]["in_widow"]
    assert "3H" in s.view(0)["hand"] and "3H" not in s.view(2)["hand"]
    assert "return 3H" not in s.legal_actions()
    events = s.act(0, "return QS")
    assert "QS" not in json.dumps(events)
    assert s.view(2)["asked"]["returned"] == "QS" and "QS" in s.view(2)["hand"]
    assert s.view(0)["asked"]["returned"] == "QS"
    assert "returned" not in s.view(1)["asked"] and "QS" not in json.dumps(s.view(1))
    assert "QS" not in json.dumps(s.view(None))
    assert s.view()["phase"] == "discard"


def test_asked_card_in_widow_ends_asking() -> None:
    s = new()
    s.act(1, "declare")
    events = s.act(1, "ask 3C")
    assert events[0]["in_widow"] and events[0]["holder"] is None
    assert s.view()["phase"] == "discard" and s.view(2)["asked"]["in_widow"]
    assert all(a.startswith("discard ") for a in s.legal_actions())


def test_ask_ladder_twos_then_aces() -> None:
    all_threes = ["3S 3H 3D 3C 2S 2H 2D 2C AS AH AD KS", "AC KH KD KC QS QH QD QC JS JH JD JC",
                  "7S 7H 7D 7C 6S 6H 6D 6C 5S 5H 5D 5C"]
    s = new(spec(all_threes, "4S 4H 4D 4C"))
    s.act(1, "pass")
    s.act(2, "pass")
    s.act(0, "declare")
    assert s.legal_actions() == ["ask AC", "noask"]
    hands = ["3S 3H 3D 3C 2S 2H AS AH AD KS KH KD", "2D 2C AC KC QS QH QD QC JS JH JD JC",
             "7S 7H 7D 7C 6S 6H 6D 6C 5S 5H 5D 5C"]
    s = new(spec(hands, "4S 4H 4D 4C"))
    s.act(1, "pass")
    s.act(2, "pass")
    s.act(0, "declare")
    assert s.legal_actions() == ["ask 2D", "ask 2C", "noask"]


def test_widow_exchange_discards_hidden_pile_to_last_trick() -> None:
    s = new()
    s.act(1, "declare")
    s.act(1, "noask")
    assert s.view(0)["widow"] is None and s.view(1)["widow"] is None
    actions = s.legal_actions()
    assert len(actions) == 12 + 66 + 220 + 495  # 1 to 4 of 12 cards
    assert "discard 6S 6H" in actions and "discard 6H 6S" not in actions  # hand order
    events = s.act(1, "discard 6S 6H")
    assert {"type": "discard", "seat": 1, "count": 2} in events
    for seat in (0, 2, None):
        v = s.view(seat)
        assert v["widow"] == ["3C", "6C", "5C", "4C"]
        assert "6S" not in json.dumps(v) and "6H" not in json.dumps(v)
    assert s.view(1)["discards"] == ["6S", "6H"]
    assert s.legal_actions() == ["take 3C 6C", "take 3C 5C", "take 3C 4C", "take 6C 5C", "take 6C 4C", "take 5C 4C"]
    s.act(1, "take 3C 6C")
    assert s.view()["pile_count"] == 4 and s.view()["phase"] == "play"
    assert s.to_act == 1 and s.view(1)["hand"].count("3C") == 1 and len(s.view(1)["hand"]) == 12
    total_events = []
    while not s.over:
        total_events += s.act(s.to_act, s.legal_actions()[0])
    end = next(e for e in total_events if e["type"] == "deal_end")
    assert sorted(end["pile"]) == sorted(["6S", "6H", "5C", "4C"])
    deal = s.sheet()["deals"][0]
    assert deal["last_trick"] == end["last_trick"] and deal["pile_points"] == 0


def test_card_order_three_beats_two_beats_ace() -> None:
    s = new()
    s.act(1, "declare")
    s.act(1, "noask")
    s.act(1, "discard 6S")
    s.act(1, "take 6C")
    s.act(1, "play 7H")
    assert set(s.legal_actions()) == {"play 3H", "play 5H", "play 4H"}  # follow suit
    s.act(2, "play 5H")
    s.act(0, "play 2H")
    assert s.view()["last_trick"]["winner"] == 0
    s.act(0, "play AS")
    s.act(1, "play JS")
    s.act(2, "play 3S")
    assert s.view()["last_trick"]["winner"] == 2
    s.act(2, "play QC")
    assert set(s.legal_actions()) == {"play 2C"}
    s.act(0, "play 2C")
    assert set(s.legal_actions()) == {"play AC", "play KC", "play 6C"}
    s.act(1, "play KC")
    assert s.view()["last_trick"]["winner"] == 0


def test_options_are_validated() -> None:
    with pytest.raises(OptionsError, match="deals"):
        GAME.parse_options({"deals": 0})
    with pytest.raises(OptionsError, match="unknown option"):
        GAME.parse_options({"trump": "S"})
    assert GAME.parse_options({}).deals == 3


# -- random simulation ------------------------------------------------------------------------
def independent_checks(actions: list[list[Any]], seed: int, options: dict[str, Any] | None) -> int:
    """Replay: follow-suit duty, hidden discards and returned card, 35 per deal, zero sum."""
    state = GAME.new(3, seed=seed, options=options)
    checked = 0
    for seat, action in actions:
        view = state.view(seat)
        if view["phase"] == "play":
            trick = [p["cards"][0] for p in view["trick"]["plays"]]
            hand = view["hand"]
            same = [c for c in hand if trick and c[-1] == trick[0][-1]]
            want = set(same or hand)
            assert {a.split()[1] for a in state.legal_actions()} == want
            checked += 1
        soloist = view["soloist"]
        secret = set(view.get("discards", [])) if seat == soloist else set()
        if view["asked"] and view["asked"].get("returned"):
            holder = view["asked"]["holder"]
            if view["asked"]["returned"] in state.view(holder)["hand"]:  # secret until played
                secret.add(view["asked"]["returned"])
        if view["asked"]:
            secret.discard(view["asked"]["card"])  # everyone saw it change hands
        for other in range(3):
            if other in (seat, soloist) or (view["asked"] and other == view["asked"]["holder"]):
                continue
            v = state.view(other)
            v.pop("sheet")
            leaked = secret & set(CARD_RE.findall(json.dumps(v)))
            assert not leaked, f"seat {other} sees {leaked}"
        state.act(seat, action)
    played = 0
    for deal in state.sheet()["deals"]:
        assert sum(deal["points"]) == 0
        if "annulled" in deal:
            continue
        played += 1
        assert sum(deal["card_points"]) + 3 == 35
        d = deal["soloist_points"] - deal["partner_points"]
        assert deal["points"] == [2 * d if s == deal["soloist"] else -d for s in range(3)]
    assert len(state.sheet()["deals"]) == state.options.deals
    return checked


@pytest.mark.parametrize("policy", POLICIES)
def test_random_games(policy: str) -> None:
    plays = 0
    for seed in range(8):
        options = {"deals": 6} if seed % 2 else None
        state, actions = play_game("calabrasella", 3, seed=200 + seed, policy=policy, options=options, check_every=1)
        assert state.over and sum(state.scores()) == 0
        plays += independent_checks(actions, 200 + seed, options)
    if policy != "last":  # "last" always passes: every deal is annulled
        assert plays > 100


def test_uniform_games_reach_every_branch() -> None:
    seen = {"in_widow": 0, "exchange": 0, "annulled": 0}
    for seed in range(40):
        state, actions = play_game("calabrasella", 3, seed=500 + seed, policy="uniform", options={"deals": 6})
        state.check_invariants()
        for deal in state.sheet()["deals"]:
            if "annulled" in deal:
                seen["annulled"] += 1
            elif deal["asked"] and deal["asked_from"] is None:
                seen["in_widow"] += 1
            elif deal["asked_from"] is not None:
                seen["exchange"] += 1
    assert all(seen.values()), seen
