"""Duplicate-deal matches between AI levels: ``python -m engine arena``.

A *deal* here is the first deal of a game started from seed ``seed + i``: it is played once per
rotation of the seat kinds (kind ``seats[(s + r) % n]`` sits in seat ``s`` in rotation ``r``), so
every kind holds every hand of the same deal and the luck of the cards cancels. A kind's result per
deal is its mean points over the rotations (and over its seats, when a kind sits several times);
the 95% confidence interval is over deals (Student-free normal approximation: mean ± 1.96·sd/√K).
A win is taking the most points of the deal in a rotation (shared first places count as a split).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.ai import ALIASES, LEVELS, choose_action
from engine.ai.knowledge import knowledge_of
from engine.core import GameError, State, get_game

Chooser = Callable[[State, int, random.Random], str]


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (normal approximation)."""
    if not values:
        return math.nan, math.nan, math.nan
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def level_chooser(kind: str, budget_ms: float | None, iterations: int | None = None) -> Chooser:
    """A seat kind's player. ``iterations`` caps the search by work instead of time (reproducible on a
    loaded machine); the time budget then only applies when also given."""
    level = ALIASES.get(kind, kind)
    if level not in LEVELS:
        raise ValueError(f"unknown seat kind {kind!r}; known: {', '.join(LEVELS)}, heuristic")
    if iterations is not None and budget_ms is None:
        budget_ms = 3_600_000.0
    return lambda state, seat, rng: choose_action(state, seat, level, rng, budget_ms, iterations)


def play_deal(state: State, choosers: Sequence[Chooser], rng: random.Random,
              times: list[list[float]]) -> list[int]:
    """Play the deal in progress to its end; returns each seat's points for it. ``times[seat]``
    collects that seat's decision times (seconds)."""
    field = knowledge_of(state).deal_field
    deal = getattr(state, field) if field else None
    before = state.scores()
    clock = time.perf_counter
    while (seat := state.to_act) is not None and (field is None or getattr(state, field) == deal):
        began = clock()
        action = choosers[seat](state, seat, rng)
        times[seat].append(clock() - began)
        state.act(seat, action)
    return [a - b for a, b in zip(state.scores(), before, strict=True)]


def run(
    game_id: str,
    players: int,
    seats: Sequence[str],
    deals: int,
    seed: int,
    budget_ms: float | None = None,
    options: dict[str, Any] | None = None,
    choosers: dict[str, Chooser] | None = None,
    progress: Callable[[int, dict[str, Any]], None] | None = None,
    iterations: int | None = None,
    keep_per_deal: bool = False,
) -> dict[str, Any]:
    """Play ``deals`` duplicate deals; returns the JSON summary per seat kind (see the module doc).
    ``choosers`` may supply players for kinds that are not levels (e.g. an OpenSpiel bot)."""
    game = get_game(game_id)
    if len(seats) != players:
        raise GameError(f"--seats names {len(seats)} kinds for {players} players")
    make = dict(choosers or {})
    for kind in seats:
        if kind not in make:
            make[kind] = level_chooser(kind, budget_ms, iterations)
    kinds = list(dict.fromkeys(seats))
    per_deal: dict[str, list[float]] = {k: [] for k in kinds}
    wins: dict[str, list[float]] = {k: [] for k in kinds}
    times: dict[str, list[float]] = {k: [] for k in kinds}
    for i in range(deals):
        scores: dict[str, list[float]] = {k: [] for k in kinds}
        won: dict[str, list[float]] = {k: [] for k in kinds}
        for r in range(players):
            seat_kinds = [seats[(s + r) % players] for s in range(players)]
            state = game.new(players, seed=seed + i, options=options)
            rng = random.Random(f"arena/{seed}/{i}/{r}")
            seat_times: list[list[float]] = [[] for _ in range(players)]
            points = play_deal(state, [make[k] for k in seat_kinds], rng, seat_times)
            top = max(points)
            share = 1.0 / points.count(top)
            for s, kind in enumerate(seat_kinds):
                scores[kind].append(points[s])
                won[kind].append(share if points[s] == top else 0.0)
                times[kind].extend(seat_times[s])
        for k in kinds:
            per_deal[k].append(statistics.fmean(scores[k]))
            wins[k].append(statistics.fmean(won[k]))
        if progress is not None:
            progress(i + 1, {**summary(game_id, players, seats, i + 1, seed, budget_ms, options, per_deal, wins, times),
                             "iterations": iterations})
    result = {**summary(game_id, players, seats, deals, seed, budget_ms, options, per_deal, wins, times),
              "iterations": iterations}
    if keep_per_deal:  # each kind's mean points per deal, in deal order (to pair with other matches)
        result["per_deal"] = {k: [round(x, 3) for x in v] for k, v in per_deal.items()}
    return result


def summary(game_id: str, players: int, seats: Sequence[str], deals: int, seed: int, budget_ms: float | None,
            options: dict[str, Any] | None, per_deal: dict[str, list[float]], wins: dict[str, list[float]],
            times: dict[str, list[float]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": game_id, "players": players, "seats": list(seats), "deals": deals, "seed": seed,
        "budget_ms": budget_ms, "options": options or {}, "kinds": {},
    }
    for kind, values in per_deal.items():
        mean, lo, hi = mean_ci(values)
        wmean, wlo, whi = mean_ci(wins[kind])
        t = sorted(times[kind])
        out["kinds"][kind] = {
            "mean_score_per_deal": _r(mean), "ci95": [_r(lo), _r(hi)],
            "win_rate": _r(wmean), "win_ci95": [_r(wlo), _r(whi)],
            "decisions": len(t),
            "mean_decision_ms": _r(1000 * statistics.fmean(t)) if t else None,
            "p99_decision_ms": _r(1000 * t[min(len(t) - 1, int(0.99 * len(t)))]) if t else None,
        }
    diffs = {}
    for i, a in enumerate(per_deal):
        for b in list(per_deal)[i + 1:]:
            mean, lo, hi = paired_difference(per_deal[a], per_deal[b])
            diffs[f"{a}-{b}"] = {"mean": _r(mean), "ci95": [_r(lo), _r(hi)]}
    out["differences"] = diffs
    return out


def paired_difference(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Mean difference a − b over the same deals with its 95% interval (the duplicate comparison)."""
    return mean_ci([x - y for x, y in zip(a, b, strict=True)])


def _r(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else round(x, 3)
