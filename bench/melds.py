"""Rummy table solver benchmark: ``solve`` on random mid-game positions of every variant and
``best_subset`` on 15-card hands; prints p50 / p99 / mean / max in milliseconds of CPU time.

Run from the repository root: ``python bench/melds.py [--positions N] [--hands N] [--seed S] [--json]``.
A position is a random table of 30..90 cards laid as valid melds from the variant's deck plus
1..12 added cards, a third each of the kinds ``random`` (any cards left in the deck),
``feasible`` (cards cut from a table, which is then reshaped) and ``near`` (a feasible one with
one card swapped), see engine/melds/positions.py. Targets: p99 <= 150 ms and
mean <= 20 ms per solve (since ``solve`` looks for the layout that changes the fewest melds on the table,
engine/melds/least_change.py, it costs 5-8 times the first layout it finds: a press's answer stays far
under a second, and the table a player sees keeps its melds), best_subset p99 <= 200 ms;
``--selfplay K`` (default 5) also plays K random 4-player Machiavelli games (target: each under 2 s), so
every target's number prints
from one run; ``--worst`` also prints the slowest position of each variant (to study it). The
load average prints last (timings on a busy machine are high). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cards import card_str  # noqa: E402
from engine.melds import best_subset, check_layout, meld_str, registered_variants, solve  # noqa: E402
from engine.melds.positions import random_position, random_table  # noqa: E402

KINDS = ("random", "feasible", "near")
VARIANTS = registered_variants()  # every rummy's meld rules, by name


def _stats(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    n = len(ms)
    return {"n": n, "p50": round(ms[n // 2], 2), "p99": round(ms[min(n - 1, int(n * 0.99))], 2),
            "mean": round(sum(ms) / n, 2), "max": round(ms[-1], 2)}


def _json_table(table: list[list[int]]) -> str:
    """A table as ``python -m engine meld --table`` takes it."""
    return json.dumps([meld_str(m) for m in table])


def bench_solve(name: str, positions: int, seed: int) -> dict[str, Any]:
    variant = VARIANTS[name]
    rng = random.Random(f"{seed}/{name}")
    times: list[float] = []
    feasible = 0
    worst = (-1.0, "")
    for i in range(positions):
        table, added = random_position(variant, rng, rng.randint(30, 90), rng.randint(1, 12), KINDS[i % 3])
        t0 = time.process_time()
        sol = solve(variant, table, added)
        times.append(1000 * (time.process_time() - t0))
        worst = max(worst, (times[-1], f"--table '{_json_table(table)}' --add '{' '.join(map(card_str, added))}'"))
        if sol is not None:
            feasible += 1
            assert check_layout(variant, table, added, sol.table) is None
    return {"variant": name, "solve": _stats(times), "feasible": feasible, "solve_worst": worst[1]}


def bench_best_subset(name: str, hands: int, seed: int) -> dict[str, Any]:
    variant = VARIANTS[name]
    rng = random.Random(f"{seed}/best/{name}")
    times: list[float] = []
    sizes = []
    worst = (-1.0, "")
    for _ in range(hands):
        table, rest = random_table(variant, rng, rng.randint(30, 90))
        hand = rest[:15]
        t0 = time.process_time()
        subset = best_subset(variant, table, hand)
        times.append(1000 * (time.process_time() - t0))
        worst = max(worst, (times[-1], f"--table '{_json_table(table)}' --best-subset --hand "
                                       f"'{' '.join(map(card_str, hand))}'"))
        sizes.append(len(subset))
    return {"variant": name, "best_subset": _stats(times), "mean_cards_down": round(sum(sizes) / len(sizes), 2),
            "best_subset_worst": worst[1]}


def bench_selfplay(games: int, seed: int) -> dict[str, Any]:
    """CPU seconds of random 4-player Machiavelli games (bench/rummy.py's ``one_game``)."""
    from bench.rummy import one_game

    secs = [one_game("machiavelli", 4, seed * 1000 + g, {})[0] for g in range(games)]
    return {"selfplay": "machiavelli/4", "games": games, "mean_s": round(sum(secs) / games, 3),
            "max_s": round(max(secs), 3)}


def _variant_name(text: str) -> str:
    """A variant as ``--variant`` takes it: its full name or a unique part of it after an
    underscore (``culbertson`` for ``carousel_culbertson``)."""
    if text in VARIANTS:
        return text
    hits = [name for name in VARIANTS if text in name.split("_")]
    if len(hits) != 1:
        raise argparse.ArgumentTypeError(f"unknown variant {text!r}; one of {', '.join(VARIANTS)}")
    return hits[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=300, help="solve positions per variant")
    parser.add_argument("--hands", type=int, default=40, help="best_subset hands per variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", action="append", default=None, type=_variant_name,
                        help=f"only this variant (repeatable): {', '.join(VARIANTS)}")
    parser.add_argument("--selfplay", type=int, default=5, help="random 4-player Machiavelli games")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worst", action="store_true", help="print each variant's slowest position")
    args = parser.parse_args()
    rows = []
    all_ms: list[float] = []
    for name in args.variant or list(VARIANTS):
        row: dict[str, Any] = {"variant": name}
        if args.positions:
            row.update(bench_solve(name, args.positions, args.seed))
            all_ms.append(row["solve"]["mean"])
        if args.hands:
            row.update(bench_best_subset(name, args.hands, args.seed))
        if len(row) == 1:
            continue
        rows.append(row)
        if not args.json:
            line = f"{name:20s}"
            if "solve" in row:
                s = row["solve"]
                line += (f" solve p50 {s['p50']:7.2f}  p99 {s['p99']:7.2f}  mean {s['mean']:6.2f}  "
                         f"max {s['max']:8.2f} ms  ({row['feasible']}/{s['n']} feasible)")
            if "best_subset" in row:
                b = row["best_subset"]
                line += f" | best_subset p50 {b['p50']:7.2f}  p99 {b['p99']:7.2f}  max {b['max']:8.2f} ms"
            print(line, flush=True)
            if args.worst:
                for key in ("solve_worst", "best_subset_worst"):
                    if key in row:
                        print(f"  slowest {key[:-6]}: python -m engine meld --variant {name} {row[key]}")
    if args.selfplay:
        rows.append(bench_selfplay(args.selfplay, args.seed))
        if not args.json:
            sp = rows[-1]
            print(f"machiavelli 4p self-play: mean {sp['mean_s']:.3f} s  max {sp['max_s']:.3f} s  "
                  f"({sp['games']} games, CPU time)")
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print("load average: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
