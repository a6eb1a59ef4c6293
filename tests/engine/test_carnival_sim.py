"""Random Carnival games for 3-6 players: the engine's invariants at every step, the score sheet at the end.

Full checks (every step, through ``engine.selfplay.play_game``) on a few hundred short games
(``quarters=1``) and a few full ones; our own per-step checks of views and events on a share of them;
cheap end-of-game checks on thousands more.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from engine.ai.random import RandomPlayer
from engine.cards import card_str
from engine.core import get_game
from engine.record import make_record, replay
from engine.selfplay import POLICIES, play_game
from games.carnival.rules import CarnivalState

GAME = get_game("carnival")
SIZES = (6, 8, 10, 12)


def expected_points(bid: int, took: int) -> int:
    """RULES.md 1.2, written out again: exact 10 a trick (5 for nothing), short 1 a trick, over -20 each."""
    if took == bid:
        return 5 if bid == 0 else 10 * bid
    if took < bid:
        return took
    return 10 * bid - 20 * (took - bid)


def check_sheet(state: CarnivalState, quarters: int) -> None:
    """The finished game's sheet: deal count, rotation, tricks = hand size, points, quarters, totals."""
    n = state.n
    assert state.over and state.to_act is None
    sheet = state.sheet()
    deals = sheet["deals"]
    assert len(deals) == quarters * n
    for i, deal in enumerate(deals):
        assert deal["deal_no"] == i + 1 and deal["quarter"] == i // n + 1
        assert deal["hand_size"] == SIZES[i // n]
        assert deal["leader"] == i % n and deal["dealer"] == (i % n - 1) % n
        assert sum(deal["tricks"]) == deal["hand_size"]
        assert sum(deal["bids"]) != deal["hand_size"]
        assert deal["points"] == [expected_points(b, t) for b, t in zip(deal["bids"], deal["tricks"], strict=True)]
    assert len(sheet["quarter_results"]) == quarters
    totals = [0] * n
    for q, result in enumerate(sheet["quarter_results"]):
        mine = deals[q * n:(q + 1) * n]
        for s in range(n):
            raw = sum(d["points"][s] for d in mine)
            exact = all(d["bids"][s] == d["tricks"][s] for d in mine)
            assert result["raw"][s] == raw
            assert result["premium"][s] == (60 if exact else 0)
            assert result["penalty"][s] == (-60 if raw < 0 else 0)
            assert result["final"][s] == raw + result["premium"][s] + result["penalty"][s]
            totals[s] += result["final"][s]
    assert sheet["totals"] == totals == state.scores()
    best = max(totals)
    assert state.winners() == [s for s in range(n) if totals[s] == best]


def check_views(state: CarnivalState, rng: random.Random) -> None:
    """A seat's view shows its own hand and nothing hidden of anyone else's, nor of the stock."""
    n = state.n
    viewer = rng.randrange(n)
    view = state.view(viewer)
    json.dumps(view)
    assert Counter(view["hand"]) == Counter(card_str(c) for c in state.hands[viewer])
    assert view["hand_counts"] == [len(h) for h in state.hands]
    twin = CarnivalState.from_json(state.to_json())
    assert isinstance(twin, CarnivalState)
    a, b = rng.sample([s for s in range(n) if s != viewer], 2)
    swapped = False
    for i, x in enumerate(twin.hands[a]):
        j = next((j for j, y in enumerate(twin.hands[b]) if y != x), None)
        if j is not None:
            twin.hands[a][i], twin.hands[b][j] = twin.hands[b][j], x
            swapped = True
            break
    twin.stock = twin.stock[::-1]
    rng.shuffle(twin.stock)
    if swapped:
        assert twin != state
    assert twin.view(viewer) == view
    assert twin.view(None) == state.view(None)


def check_events(state: CarnivalState, events: list[dict[str, Any]], quarters: int) -> None:
    """Tricks per deal add up to the hand size; deal_end, quarter_end and game_over agree with the sheet."""
    n = state.n
    sheet = state.sheet()
    deals = [e for e in events if e["type"] == "deal"]
    assert len(deals) == quarters * n
    size, taken, deal_ends = 0, 0, 0
    per_seat = [0] * n
    for event in events:
        kind = event["type"]
        if kind == "deal":
            size, taken, per_seat = event["hand_size"], 0, [0] * n
        elif kind == "trick":
            assert event["count"] == (2 if event["kind"] == "carnival" else 1)
            assert all(len(p["cards"]) == event["count"] for p in event["plays"]) and len(event["plays"]) == n
            taken += event["count"]
            per_seat[event["winner"]] += event["count"]
        elif kind == "deal_end":
            assert taken == size and event["tricks"] == per_seat
            assert event["points"] == sheet["deals"][deal_ends]["points"]
            deal_ends += 1
        elif kind == "quarter_end":
            assert deal_ends % n == 0
            assert {k: event[k] for k in ("quarter", "raw", "premium", "penalty", "final")} == \
                sheet["quarter_results"][deal_ends // n - 1]
    assert deal_ends == quarters * n
    assert events[-1] == {"type": "game_over", "scores": state.scores(), "totals": state.scores(),
                          "winners": state.winners()}


def drive(players: int, seed: int, policy: str, options: dict[str, Any], views: bool) -> tuple[CarnivalState, list]:
    """Play one game with our own per-step checks; returns the final state and every event."""
    state = GAME.new(players, seed=seed, options=options)
    assert isinstance(state, CarnivalState)
    start = state.clone()
    rng = random.Random(seed)
    bots = [RandomPlayer(seed * 13 + s, policy) for s in range(players)]  # type: ignore[arg-type]
    first = state.view(None)  # the first deal is made before any action: no event reports it
    events: list[dict[str, Any]] = [{"type": "deal", "hand_size": first["hand_size"], "deal_no": 1}]
    actions = []
    while (seat := state.to_act) is not None:
        if views:
            check_views(state, rng)
        action = bots[seat].choose(state, seat)
        events += state.act(seat, action)
        actions.append([seat, action])
    assert replay(make_record(start, actions)) == state
    return state, events


# -- full checks at every step -------------------------------------------------------------------------------

@pytest.mark.parametrize(("players", "games"), [(3, 60), (4, 40), (5, 30), (6, 24)])
def test_selfplay_checks_every_step_one_quarter(players: int, games: int) -> None:
    for i in range(games):
        policy = POLICIES[i % 3]
        options = {"quarters": 1, "joker_trump": "no_trump" if i % 4 == 3 else "next_card"}
        state, _ = play_game("carnival", players, 1000 * players + i, policy, options, check_every=1)
        assert isinstance(state, CarnivalState)
        check_sheet(state, 1)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_selfplay_full_game(players: int) -> None:
    state, actions = play_game("carnival", players, 77 + players, "uniform", None, check_every=9)
    assert isinstance(state, CarnivalState)
    check_sheet(state, 4)
    assert len([a for _, a in actions if a.startswith("bid")]) == 4 * players * players


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_views_and_events(players: int) -> None:
    for i in range(12):
        quarters = 2 if i == 0 else 1
        state, events = drive(players, 500 + i, POLICIES[i % 3], {"quarters": quarters}, views=True)
        check_sheet(state, quarters)
        check_events(state, events, quarters)


# -- thousands of cheap games ------------------------------------------------------------------------------

@pytest.mark.slow
def test_thousands_of_games() -> None:
    seen: Counter[str] = Counter()
    games = 0
    for players in (3, 4, 5, 6):
        for i in range(600 if players < 5 else 400):
            policy = POLICIES[i % 3]
            quarters = 4 if i % 50 == 0 else 1
            options = {"quarters": quarters, "joker_trump": "no_trump" if i % 5 == 4 else "next_card"}
            state, actions = play_game("carnival", players, i, policy, options, check_every=0)
            assert isinstance(state, CarnivalState)
            state.check_invariants()
            check_sheet(state, quarters)
            if i % 25 == 0:
                start = GAME.new(players, seed=i, options=options)
                assert replay(make_record(start, actions)) == state
            games += 1
            for _, action in actions:
                words = action.split()
                if words[0] == "carnival":
                    seen["carnival JK" if words[1] == "JK" else "carnival"] += 1
                elif words[-1] in ("high", "low"):
                    seen["joker " + words[-1]] += 1
                elif words[-1] in ("over", "under"):
                    seen[("joker " if words[1] == "JK" else "equal ") + words[-1]] += 1
            for deal in state.sheet()["deals"]:
                seen["exact zero"] += deal["points"].count(5)
                seen["negative deal"] += sum(p < 0 for p in deal["points"])
            for result in state.sheet()["quarter_results"]:
                seen["premium"] += result["premium"].count(60)
                seen["penalty"] += result["penalty"].count(-60)
                seen["negative deal, no penalty"] += sum(
                    1 for s in range(players) if not result["penalty"][s]
                    and any(d["points"][s] < 0 for d in state.sheet()["deals"][
                        (result["quarter"] - 1) * players:result["quarter"] * players]))
    assert games >= 2000
    for feature in ("carnival", "joker high", "joker low", "joker over", "joker under", "equal over",
                    "equal under", "exact zero", "negative deal", "premium", "penalty", "negative deal, no penalty"):
        assert seen[feature] > 0, (feature, seen)
