"""Every game emits the common events and views of engine/events.py, and they say what happened.

Random games of every registered game: each event passes ``check_event``, each view (every seat and a
spectator, after every action) passes ``check_view``, and the common fields agree with the state and
with each other (a trick's plays are the plays made since the last trick, a deal_end's totals are the
state's scores, game_over names the state's winners). The checker itself is shown to refuse broken
events and views, and records stay free of events.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.core import Event, Game, OptionsError, State, all_games
from engine.events import EVENTS, ShapeError, check_event, check_view
from engine.record import make_record, replay

GAMES = all_games()
CASES = [(g.id, n) for g in GAMES for n in sorted({g.min_players, g.max_players})]


def short_options(game: Game) -> dict[str, Any]:
    """Two deals where the game lets a match be that short (a deal change is still crossed)."""
    if "deals" in game.options.model_fields:
        try:
            game.parse_options({"deals": 2})
            return {"deals": 2}
        except OptionsError:
            pass
    return {}


def views_ok(state: State) -> None:
    for seat in [None, *range(state.n)]:
        check_view(state.view(seat))


def play_checked(game: Game, players: int, seed: int, options: dict[str, Any]) -> tuple[State, list[Event]]:
    """A random game in which every event and view is checked as it comes; all the events, in order."""
    rng = random.Random(seed)
    state = game.new(players, seed=seed, options=options)
    views_ok(state)
    everything: list[Event] = []
    trick_plays: list[dict[str, Any]] = []
    deal_no = state.view(None).get("deal_no")
    while not state.over:
        seat = state.to_act
        assert seat is not None
        events = state.act(seat, rng.choice(state.legal_actions()))
        for event in events:
            check_event(event, players)
            kind = event["type"]
            if kind == "play":
                assert event["seat"] == seat, event
                trick_plays.append({"seat": event["seat"], "cards": event["cards"]})
            elif kind == "trick":
                assert [{"seat": p["seat"], "cards": p["cards"]} for p in event["plays"]] == trick_plays, event
                trick_plays = []
            elif kind == "deal":
                assert not trick_plays
                if deal_no is not None:
                    assert event["deal_no"] == deal_no + 1, event
                deal_no = event["deal_no"]
            elif kind in ("bid", "pass", "draw"):
                assert event["seat"] == seat, event
        if state.over:
            assert events[-1]["type"] == "game_over", events[-1]
        else:
            for event in events:
                if event["type"] == "deal_end":
                    assert event["totals"] == state.scores(), event
        everything.extend(events)
        views_ok(state)
    return state, everything


def check_game_end(state: State, events: list[Event]) -> None:
    overs = [e for e in events if e["type"] == "game_over"]
    assert len(overs) == 1 and overs[0] is events[-1]
    assert overs[0]["totals"] == state.scores() and overs[0]["winners"] == state.winners()
    # the first deal is dealt at the start; every later one follows the end of the one before
    marks = [e["type"] for e in events if e["type"] in ("deal", "deal_end")]
    assert marks == [] or marks == ["deal_end", "deal"] * (len(marks) // 2) + ["deal_end"], marks


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_every_event_and_view_is_common(game_id: str, players: int) -> None:
    game = next(g for g in GAMES if g.id == game_id)
    state, events = play_checked(game, players, seed=1, options=short_options(game))
    check_game_end(state, events)


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "players"), CASES)
@pytest.mark.parametrize("seed", [2, 3, 4])
def test_every_event_and_view_is_common_full_length(game_id: str, players: int, seed: int) -> None:
    game = next(g for g in GAMES if g.id == game_id)
    state, events = play_checked(game, players, seed=seed, options={})
    check_game_end(state, events)


@pytest.mark.parametrize("game_id", [g.id for g in GAMES])
def test_records_carry_no_events_and_replay_the_same(game_id: str) -> None:
    game = next(g for g in GAMES if g.id == game_id)
    rng = random.Random(9)
    state = game.new(game.min_players, seed=9, options=short_options(game))
    actions = []
    while not state.over and len(actions) < 150:
        action = [state.to_act, rng.choice(state.legal_actions())]
        state.act(*action)
        actions.append(action)
    record = json.loads(json.dumps(make_record(state, actions)))
    assert set(record) <= {"format", "game", "players", "options", "seed", "deals", "actions"}
    assert '"type"' not in json.dumps(record)
    assert replay(record) == state


# -- the checker refuses what breaks the promise -----------------------------------------------------------------
def first_events(game_id: str, players: int, kinds: set[str]) -> dict[str, Event]:
    """One real event of each kind in ``kinds``, from a random game of ``game_id``."""
    game = next(g for g in GAMES if g.id == game_id)
    rng = random.Random(3)
    state = game.new(players, seed=3, options=short_options(game))
    found: dict[str, Event] = {}
    while not state.over and not kinds <= set(found):
        seat = state.to_act
        assert seat is not None
        for event in state.act(seat, rng.choice(state.legal_actions())):
            found.setdefault(event["type"], event)
    return found


BROKEN_EVENTS = [
    ("trick", lambda e: e.pop("leader")),
    ("trick", lambda e: e.update(leader=(e["leader"] + 1) % 3)),
    ("trick", lambda e: e.update(cards=e["cards"][::-1])),
    ("trick", lambda e: e.update(winner=7)),
    ("play", lambda e: e.pop("cards")),
    ("play", lambda e: e.update(cards=[])),
    ("play", lambda e: e.update(cards=["2C", "3C"])),
    ("play", lambda e: e.update(seat=True)),
    ("deal_end", lambda e: e.pop("totals")),
    ("deal_end", lambda e: e.update(scores=e["scores"][:-1])),
    ("deal_end", lambda e: e.update(scores=[str(s) for s in e["scores"]])),
    ("game_over", lambda e: e.update(winners=[])),
    ("game_over", lambda e: e.update(winners=[3])),
    ("game_over", lambda e: e.pop("totals")),
    ("deal", lambda e: e.update(deal_no=0)),
    ("bid", lambda e: e.pop("bid")),
]


@pytest.mark.parametrize(("kind", "breaks"), BROKEN_EVENTS)
def test_check_event_refuses_a_broken_common_event(kind: str, breaks: Any) -> None:
    event = first_events("oh_hell", 3, set(EVENTS) - {"pass", "draw"})[kind]
    check_event(event, 3)
    broken = json.loads(json.dumps(event))
    breaks(broken)
    with pytest.raises(ShapeError, match=kind):
        check_event(broken, 3)


def test_check_event_lets_a_game_add_keys_and_types_but_not_false_seats() -> None:
    check_event({"type": "sweep", "seat": 1, "anything": [1, "x"]}, 2)
    check_event({"type": "deal_end", "scores": [1, 2], "totals": [3, 4], "bids": [0, 1]}, 2)
    with pytest.raises(ShapeError, match="sweep"):
        check_event({"type": "sweep", "seat": 2}, 2)
    with pytest.raises(ShapeError):
        check_event({"seat": 0}, 2)


BROKEN_VIEWS = [
    lambda v, s: v.pop("hand_counts"),
    lambda v, s: v.update(scores=v["scores"][:-1]),
    lambda v, s: v.update(over=not v["over"]),
    lambda v, s: v.update(to_act=v["players"]),
    lambda v, s: v.update(hand=v["hand"][:-1]),
    lambda v, s: v.update(seat=None),  # a hand shown to a spectator
    lambda v, s: v.update(trick={"leader": 0, "plays": [{"seat": 1, "cards": ["2C"]}]}),
    lambda v, s: v.update(phase=None),
]


@pytest.mark.parametrize("breaks", BROKEN_VIEWS)
def test_check_view_refuses_a_broken_view(breaks: Any) -> None:
    game = next(g for g in GAMES if g.id == "oh_hell")
    state = game.new(4, seed=5)
    view = state.view(1)
    check_view(view)
    broken = json.loads(json.dumps(view))
    breaks(broken, 1)
    with pytest.raises(ShapeError, match="view"):
        check_view(broken)
