"""How much of the table a lay-down's proposal changes, and what finding the least change costs.

Run from the repository root: ``python bench/lay_changes.py [--positions N] [--seed S] [--json]``.

First the big case: a 29-card Machiavelli lay-down on a table of 6 sets and 14 runs (``random_position``
seed 93, rebuilt the same every run). Then ``--positions`` random positions per variant as bench/melds.py
builds them. For each: the old melds changed (and new melds framed in the proposal) by the first layout the
solver finds (what ``solve`` returned before it minimised changes: the added cards alone, else the melds
near them opened, else the whole table) and by ``solve`` (the fewest changed melds its search meets,
engine/melds/least_change.py); the CPU time of each. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import cards  # noqa: E402
from engine.melds import Variant, registered_variants, solve  # noqa: E402
from engine.melds.least_change import changed_melds  # noqa: E402
from engine.melds.positions import random_position  # noqa: E402
from engine.melds.search import FREE  # noqa: E402
from engine.melds.solver import _first_layout, partition  # noqa: E402
from engine.melds.tablecards import JOKER_AS  # noqa: E402

KINDS = ("random", "feasible", "near")
BIG_SEED = 93  # a 20-meld table (6 sets, 14 runs) and 29 cards, like the lay-down players met


def first_layout(variant: Variant, table: list[list[int]], added: list[int]) -> list[list[int]] | None:
    """The layout ``solve`` answered before it minimised the changes."""
    alone = partition(variant, Counter(FREE if c == cards.JOKER else c for c in added))
    if alone is not None:
        return [*table, *alone[0]]
    return _first_layout(variant, [list(m) for m in table], added)


def shape(table: list[list[int]]) -> str:
    sets = sum(1 for m in table if len({cards.rank_of(x % JOKER_AS) for x in m}) == 1)
    return f"{sets} sets + {len(table) - sets} runs"


def measure(variant: Variant, table: list[list[int]], added: list[int]) -> dict[str, Any] | None:
    singles = frozenset(i for i, m in enumerate(table) if variant.table_singles and len(m) == 1)
    t0 = time.process_time()
    before = first_layout(variant, table, added)
    t1 = time.process_time()
    after = solve(variant, table, added)
    t2 = time.process_time()
    if before is None or after is None:
        return None
    old_melds = len(table) - len(singles)
    out: dict[str, Any] = {"old_melds": old_melds, "ms_before": 1000 * (t1 - t0), "ms_after": 1000 * (t2 - t1)}
    for label, new in (("before", before), ("after", after.table)):
        changed = len(changed_melds(variant, table, new, singles))
        out[f"changed_{label}"] = changed
        out[f"framed_{label}"] = len(new) - (old_melds - changed)  # melds a proposal frames: new or changed
        out[f"melds_{label}"] = len(new)
        out[f"shape_{label}"] = shape(new)
    return out


def big_case() -> dict[str, Any]:
    variant = registered_variants()["machiavelli"]
    rng = random.Random(BIG_SEED)
    table, added = random_position(variant, rng, rng.randint(55, 75), 29, "feasible")
    got = measure(variant, table, added)
    assert got is not None
    return {"case": f"machiavelli, {len(added)} cards on {shape(table)}", **got}


def per_variant(name: str, positions: int, seed: int) -> dict[str, Any]:
    variant = registered_variants()[name]
    rng = random.Random(f"{seed}/{name}")
    rows = []
    for i in range(positions):
        table, added = random_position(variant, rng, rng.randint(30, 90), rng.randint(1, 12), KINDS[i % 3])
        got = measure(variant, table, added)
        if got is not None:
            rows.append(got)
    n = max(1, len(rows))

    def stat(key: str) -> dict[str, float]:
        ms = sorted(r[key] for r in rows) or [0.0]
        return {"mean": round(sum(ms) / len(ms), 2), "p50": round(ms[len(ms) // 2], 2),
                "p99": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 2), "max": round(ms[-1], 2)}

    return {"variant": name, "feasible": len(rows),
            "changed_before_mean": round(sum(r["changed_before"] for r in rows) / n, 2),
            "changed_after_mean": round(sum(r["changed_after"] for r in rows) / n, 2),
            "fewer": sum(1 for r in rows if r["changed_after"] < r["changed_before"]),
            "more": sum(1 for r in rows if r["changed_after"] > r["changed_before"]),
            "ms_before": stat("ms_before"), "ms_after": stat("ms_after")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100, help="random positions per variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    big = big_case()
    rows = [per_variant(name, args.positions, args.seed) for name in registered_variants()]
    if args.json:
        print(json.dumps({"big": big, "variants": rows}))
        return
    print(f"{big['case']}: before {big['changed_before']}/{big['old_melds']} old melds changed, "
          f"{big['framed_before']}/{big['melds_before']} framed ({big['shape_before']}), {big['ms_before']:.1f} ms; "
          f"after {big['changed_after']}/{big['old_melds']} changed, {big['framed_after']}/{big['melds_after']} framed "
          f"({big['shape_after']}), {big['ms_after']:.1f} ms")
    for r in rows:
        b, a = r["ms_before"], r["ms_after"]
        print(f"{r['variant']:<20} old melds changed mean {r['changed_before_mean']:5.2f}"
              f" -> {r['changed_after_mean']:5.2f}"
              f" (fewer in {r['fewer']}, more in {r['more']} of {r['feasible']}) | ms before mean {b['mean']:6.2f}"
              f" p99 {b['p99']:7.2f} | after mean {a['mean']:6.2f} p99 {a['p99']:7.2f} max {a['max']:7.2f}")
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
