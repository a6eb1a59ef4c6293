"""Rummy records replay exactly: a lay-down in a record carries the whole new table (the explicit
form), so replaying never asks the solver, and the table after every move is the one written in
the move. Short-form lay-downs (``lay 7H 8H``) are resolved once, by the solver, and reported in
their explicit form (``event["action"]``, ``canonical_action``) for the record."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import melds
from engine.core import IllegalAction, get_game
from engine.record import load, make_record, replay, start
from engine.rummy.base import RummyState, is_lay, parse_lay

RECORD = Path(__file__).parent / "data" / "rummy_carousel_record.json"


def no_solver(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the solver was asked during a replay of explicit lay-downs")


def test_stored_record_replays_move_by_move_without_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    record = load(RECORD)
    assert any("JK=" in a for _, a in record["actions"]), "the record should hold a joker on the table"
    monkeypatch.setattr(melds, "solve", no_solver)
    monkeypatch.setattr(melds, "best_subset", no_solver)
    state = start(record)
    assert isinstance(state, RummyState)
    for seat, action in record["actions"]:
        before = [list(m) for m in state.table]
        deal = state.deal_no
        state.act(seat, action)  # act() on a lay-down never builds the legal list
        if is_lay(action) and state.deal_no == deal:
            _, layout = parse_lay(action)
            assert state.table == layout, "the table is exactly the one the record wrote"
        elif not is_lay(action) and state.deal_no == deal:
            assert state.table == before
    assert state.over and sum(1 for d in state.sheet()["deals"] if "winners" in d) == state.deal_no


def test_short_forms_become_explicit_and_replay_identically() -> None:
    """Lay-downs given in the short form; the record keeps the explicit forms the events report;
    replaying it gives the same table after every move."""
    game = get_game("machiavelli")
    state = game.new(3, seed=42)
    assert isinstance(state, RummyState)
    first = state.clone()
    rng = random.Random(42)
    explicit_actions: list[list[object]] = []
    tables: list[list[list[int]]] = []
    while (seat := state.to_act) is not None:
        legal = state.legal_actions(seat)
        action = legal[rng.randrange(len(legal))]
        if is_lay(action):
            short = action.split("/")[0].strip()
            canonical = state.canonical_action(short)
            events = state.act(seat, short)
            assert events[0]["action"] == canonical
            action = canonical
        else:
            state.act(seat, action)
        explicit_actions.append([seat, action])
        tables.append([list(m) for m in state.table])
    assert any(is_lay(str(a)) for _, a in explicit_actions)
    again = start(make_record(first, explicit_actions))
    for (seat, action), table in zip(explicit_actions, tables, strict=True):
        again.act(int(str(seat)), str(action))
        assert again.table == table
    assert again == state == replay(make_record(first, explicit_actions))


def test_canonical_action_refuses_what_act_refuses() -> None:
    state = get_game("machiavelli").new(2, seed=5)
    assert isinstance(state, RummyState)
    with pytest.raises(IllegalAction):
        state.canonical_action("lay 2C 2C 2C 2C 2C")
    assert state.canonical_action("draw") == "draw"
