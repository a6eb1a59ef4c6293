"""Tournament pairing speed: a 500-player Swiss round (target: at most 1 s), after a few rounds of
results so that players who met must be kept apart; and a small round robin schedule.

    python3 bench/tournament.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.tournaments.pairing import Player, meetings, repeats, round_robin, swiss  # noqa: E402


def swiss_round_times(n: int, size: int, rounds: int, seed: int) -> list[tuple[int, float, int]]:
    rng = random.Random(seed)
    ids = list(range(n))
    ratings = {p: rng.uniform(0, 40) for p in ids}
    scores = dict.fromkeys(ids, 0.0)
    byes: Counter[int] = Counter()
    met: Counter = Counter()
    out = []
    for rnd in range(rounds):
        players = [Player(p, scores[p], ratings[p], byes[p]) for p in ids]
        started = time.perf_counter()
        pairing = swiss(players, size, met, seed + rnd)
        took = time.perf_counter() - started
        out.append((rnd + 1, took, repeats(pairing.tables, met)))
        met.update(meetings(pairing.tables))
        byes.update(pairing.byes)
        for table in pairing.tables:
            rng.shuffle(table)
            for place, p in enumerate(table):
                scores[p] += size - 1 - place
    return out


def main() -> None:
    for size in (3, 4, 6):
        rows = swiss_round_times(500, size, 9, seed=size)
        worst = max(took for _, took, _ in rows)
        print(f"swiss 500 players, tables of {size}, 9 rounds: per round median "
              f"{statistics.median(t for _, t, _ in rows) * 1000:.1f} ms, worst {worst * 1000:.1f} ms "
              f"(target <= 1000 ms), repeat meetings {sum(r for *_, r in rows)}")
    for n, size in ((6, 3), (9, 3), (12, 4)):
        started = time.perf_counter()
        schedule = round_robin(range(n), size, seed=1)
        print(f"round robin {n} players, tables of {size}: {len(schedule.rounds)} rounds, "
              f"{schedule.balance.describe()}, {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
