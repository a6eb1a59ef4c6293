"""Self-play with invariant checks: the engine's own smoke test and speed meter."""

from __future__ import annotations

import statistics
import time
from typing import Any

from engine.ai.random import Policy, RandomPlayer
from engine.core import Event, IllegalAction, State, get_game
from engine.events import check_event, check_view
from engine.record import make_record, replay

POLICIES: tuple[Policy, ...] = ("uniform", "first", "last")


def check_step(state: State) -> None:
    """Invariants every game keeps at every step."""
    to_act = state.to_act
    assert to_act is not None, "check_step on a finished game"
    assert state.legal_actions(to_act), f"seat {to_act} is to act but has no legal action"
    for seat in range(state.n):
        if seat != to_act:
            assert not state.legal_actions(seat), f"seat {seat} has legal actions out of turn"
    state.check_invariants()


def check_shapes(state: State, seat: int, events: list[Event]) -> None:
    """The events of ``seat``'s step have the common shapes (engine.events); so do its view and a
    spectator's when a deal or the game ended (a view can cost as much as the step: Carnival's
    recounts the sheet; tests/engine/test_events.py checks every view at every step)."""
    for event in events:
        check_event(event, state.n)
    if any(event["type"] in ("deal_end", "game_over") for event in events):
        check_view(state.view(seat))
        check_view(state.view(None))


def check_illegal_changes_nothing(state: State, seat: int, action: str, snapshot: dict[str, Any] | None = None) -> None:
    """An illegal action is refused and leaves the state exactly as it was (``snapshot``: its JSON)."""
    before = snapshot if snapshot is not None else state.to_json()
    try:
        state.act(seat, action)
    except IllegalAction:
        pass
    else:
        raise AssertionError(f"illegal action {action!r} by seat {seat} was accepted")
    assert state.to_json() == before, f"refused action {action!r} changed the state"


def check_roundtrip(state: State, snapshot: dict[str, Any] | None = None) -> None:
    """Clone and JSON round-trip give an equal state (``snapshot``: the state's JSON, if known)."""
    snap = snapshot if snapshot is not None else state.to_json()
    assert state.clone().to_json() == snap, "clone differs"
    assert type(state).from_json(snap).to_json() == snap, "JSON round-trip differs"


def play_game(
    game_id: str,
    players: int,
    seed: int,
    policy: Policy = "uniform",
    options: dict[str, Any] | None = None,
    check_every: int = 0,
    timer: list[float] | None = None,
) -> tuple[State, list[list[Any]]]:
    """Play one whole game with random players; check invariants every ``check_every`` steps
    (0: never, 1: every step). Returns the final state and the action list. ``timer[0]``, when
    given, accumulates the seconds spent playing (choosing and applying), checks excluded."""
    clock = time.perf_counter
    started = clock()
    state = get_game(game_id).new(players, seed=seed, options=options)
    start = state.clone()
    bots = [RandomPlayer(seed * 31 + s, policy) for s in range(players)]
    actions: list[list[Any]] = []
    step = 0
    playing = clock() - started
    while (seat := state.to_act) is not None:
        if check_every and step % check_every == 0:
            check_step(state)
            snapshot = state.to_json()
            other = (seat + 1) % players
            if other != seat:
                check_illegal_changes_nothing(state, other, state.legal_actions(seat)[0], snapshot)
            check_illegal_changes_nothing(state, seat, "no-such-action", snapshot)
            check_roundtrip(state, snapshot)
        began = clock()
        action = bots[seat].choose(state, seat)
        events = state.act(seat, action)
        playing += clock() - began
        if check_every and step % check_every == 0:
            check_shapes(state, seat, events)
        actions.append([seat, action])
        step += 1
    if timer is not None:
        timer[0] += playing
    if check_every:
        state.check_invariants()
        assert replay(make_record(start, actions)) == state, "replaying the record gives another state"
    return state, actions


def run(
    game_id: str,
    players: int,
    games: int,
    seed: int,
    policies: tuple[Policy, ...] = POLICIES,
    check_every: int = 1,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games, cycling through ``policies``; count failures and measure speed."""
    failures: list[str] = []
    totals: list[int] = []
    actions_count = 0
    playing = [0.0]
    started = time.perf_counter()
    for i in range(games):
        policy = policies[i % len(policies)]
        try:
            state, actions = play_game(game_id, players, seed + i, policy, options, check_every, playing)
        except AssertionError as exc:
            failures.append(f"game seed={seed + i} policy={policy}: {exc}")
            continue
        actions_count += len(actions)
        totals.extend(state.scores())
    elapsed = time.perf_counter() - started
    return {
        "game": game_id,
        "players": players,
        "games": games,
        "seed": seed,
        "checked_every": check_every,
        "invariant_failures": len(failures),
        "failures": failures[:10],
        "seconds": round(elapsed, 3),
        "seconds_playing": round(playing[0], 3),
        "seconds_checking": round(elapsed - playing[0], 3),
        # Engine speed: the time spent choosing and applying actions, invariant checks excluded.
        "games_per_second": round(games / playing[0], 1) if playing[0] else None,
        "actions_per_second": round(actions_count / playing[0]) if playing[0] else None,
        "score_mean": round(statistics.fmean(totals), 2) if totals else None,
        "score_min": min(totals) if totals else None,
        "score_max": max(totals) if totals else None,
    }
