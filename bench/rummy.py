"""Rummy benchmark: random self-play of the seven manipulation rummies (RULES.md 8-9).

Run from the repository root: ``python bench/rummy.py [--games K] [--json]``. Prints, per game and
player count, CPU seconds per whole game (mean, max), actions per game and the cost of one
``legal_actions`` call (it samples lay-downs with the solver); asserts nothing. The target: a random
4-player Machiavelli game under 2 s (CPU time: the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai.random import RandomPlayer  # noqa: E402
from engine.core import get_game  # noqa: E402

CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("machiavelli", 4, {}),
    ("machiavelli", 2, {}),
    ("machiavelli", 5, {}),
    ("carousel", 4, {}),
    ("carousel", 2, {"culbertson": True}),
    ("tahiti", 4, {}),
    ("guadalupe", 4, {}),
    ("vatican", 4, {}),
    ("shanghai", 4, {}),
    ("manipulation", 4, {"deals": 1, "target": 0}),
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def one_game(game: str, players: int, seed: int, options: dict[str, Any]) -> tuple[float, int, list[float]]:
    """CPU seconds of one uniform random game, its action count and each legal_actions call's time."""
    state = get_game(game).new(players, seed=seed, options=options)
    bots = [RandomPlayer(seed * 31 + s) for s in range(players)]
    legal_times: list[float] = []
    actions = 0
    started = time.process_time()
    while (seat := state.to_act) is not None:
        t0 = time.process_time()
        state.legal_actions(seat)
        legal_times.append(time.process_time() - t0)
        state.act(seat, bots[seat].choose(state, seat))
        actions += 1
    return time.process_time() - started, actions, legal_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games per case")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for game, players, options in CASES:
        seconds: list[float] = []
        counts: list[int] = []
        legal: list[float] = []
        for seed in range(1, args.games + 1):
            cpu, actions, times = one_game(game, players, seed, options)
            seconds.append(cpu)
            counts.append(actions)
            legal += times
        row = {
            "game": game, "players": players, "options": options, "games": args.games,
            "s_per_game_mean": round(statistics.fmean(seconds), 3), "s_per_game_max": round(max(seconds), 3),
            "actions_per_game": round(statistics.fmean(counts), 1),
            "legal_ms_mean": round(1000 * statistics.fmean(legal), 2),
            "legal_ms_p99": round(1000 * percentile(legal, 0.99), 2),
        }
        rows.append(row)
        if not args.json:
            print(f"{game:13} {players}p {json.dumps(options):32} game {row['s_per_game_mean']:.3f}s mean "
                  f"{row['s_per_game_max']:.3f}s max  {row['actions_per_game']:6.1f} actions  "
                  f"legal_actions {row['legal_ms_mean']:.2f} ms mean {row['legal_ms_p99']:.2f} ms p99", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
