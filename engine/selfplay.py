"""Self-play with invariant checks: the engine's own smoke test and speed meter."""

from __future__ import annotations

import statistics
import time
from typing import Any

from engine.ai.random import RandomPlayer
from engine.core import IllegalAction, State, get_game
from engine.record import make_record, replay

POLICIES = ("uniform", "first", "last")


def check_step(state: State) -> None:
    """Invariants every game keeps at every step."""
    to_act = state.to_act
    assert to_act is not None, "check_step on a finished game"
    assert state.legal_actions(to_act), f"seat {to_act} is to act but has no legal action"
    for seat in range(state.n):
        if seat != to_act:
            assert not state.legal_actions(seat), f"seat {seat} has legal actions out of turn"
    state.check_invariants()


def check_illegal_changes_nothing(state: State, seat: int, action: str) -> None:
    before = state.to_json()
    try:
        state.act(seat, action)
    except IllegalAction:
        pass
    else:
        raise AssertionError(f"illegal action {action!r} by seat {seat} was accepted")
    assert state.to_json() == before, f"refused action {action!r} changed the state"


def check_roundtrip(state: State) -> None:
    twin = state.clone()
    assert twin == state, "clone differs"
    assert type(state).from_json(state.to_json()) == state, "JSON round-trip differs"


def play_game(
    game_id: str,
    players: int,
    seed: int,
    policy: str = "uniform",
    options: dict[str, Any] | None = None,
    check_every: int = 0,
) -> tuple[State, list[list[Any]]]:
    """Play one whole game with random players; check invariants every ``check_every`` steps
    (0: never, 1: every step). Returns the final state and the action list."""
    state = get_game(game_id).new(players, seed=seed, options=options)
    start = state.clone()
    bots = [RandomPlayer(seed * 31 + s, policy) for s in range(players)]  # type: ignore[arg-type]
    actions: list[list[Any]] = []
    step = 0
    while (seat := state.to_act) is not None:
        if check_every and step % check_every == 0:
            check_step(state)
            other = (seat + 1) % players
            if other != seat:
                check_illegal_changes_nothing(state, other, state.legal_actions(seat)[0])
            check_illegal_changes_nothing(state, seat, "no-such-action")
            check_roundtrip(state)
        action = bots[seat].choose(state, seat)
        state.act(seat, action)
        actions.append([seat, action])
        step += 1
    if check_every:
        state.check_invariants()
        assert replay(make_record(start, actions)) == state, "replaying the record gives another state"
    return state, actions


def run(
    game_id: str,
    players: int,
    games: int,
    seed: int,
    policies: tuple[str, ...] = POLICIES,
    check_every: int = 1,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games, cycling through ``policies``; count failures and measure speed."""
    failures: list[str] = []
    totals: list[int] = []
    actions_count = 0
    started = time.perf_counter()
    for i in range(games):
        policy = policies[i % len(policies)]
        try:
            state, actions = play_game(game_id, players, seed + i, policy, options, check_every)
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
        "games_per_second": round(games / elapsed, 1) if elapsed else None,
        "actions_per_second": round(actions_count / elapsed) if elapsed else None,
        "score_mean": round(statistics.fmean(totals), 2) if totals else None,
        "score_min": min(totals) if totals else None,
        "score_max": max(totals) if totals else None,
    }
