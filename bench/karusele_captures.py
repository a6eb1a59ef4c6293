"""Karusele capture costs: checking a written capture exactly, the builder's "still
completable?" marks, and the bounded sample of moves, on random tables of 8 to 20 items.

Run from the repository root: ``python bench/karusele_captures.py [--positions N] [--json]``. Prints
numbers (CPU time, ``time.process_time``: the machine may be shared); asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cards import BROOM, deck  # noqa: E402
from games.karusele.moves import (  # noqa: E402
    capture_parts,
    capture_words,
    completable,
    legal_sample,
    read_take,
    split_groups,
    value,
)


def random_table(rng: random.Random, size: int) -> tuple[list[dict[str, Any]], int, list[int]]:
    """A table of ``size`` loose cards (numbers, courts, trailed jokers), a number card to capture
    with, and a hand of four."""
    pack = [c for c in deck(56) if c != BROOM]
    rng.shuffle(pack)
    table = [{"cards": [c], "owner": None, "since": None} for c in pack[:size]]
    hand = [c for c in pack[size:] if value(c) is not None][:4]
    return table, hand[0], hand


def biggest_capture(card: int, table: list[dict[str, Any]]) -> list[int]:
    """Every loose card below the card's value that the exact split can use (the worst case to check)."""
    _, optional = capture_parts(card, table)
    v = value(card) or 0
    chosen = list(optional)
    while chosen and split_groups([table[i]["cards"][0] for i in chosen], v) is None:
        chosen.pop()
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(13)
    rows = []
    for size in (8, 14, 20):
        positions = [random_table(rng, size) for _ in range(args.positions)]
        captures = [(card, table, biggest_capture(card, table)) for table, card, _ in positions]
        cpu = time.process_time()
        for card, table, chosen in captures:
            try:
                read_take(card, capture_words(card, table, chosen).split()[2:], table)
            except ValueError:
                pass
        check_us = 1e6 * (time.process_time() - cpu) / len(captures)
        cpu = time.process_time()
        for card, table, chosen in captures:
            _, optional = capture_parts(card, table)
            for i in optional:
                completable(card, table, [*chosen[:2], i])
        marks_ms = 1000 * (time.process_time() - cpu) / len(captures)
        cpu = time.process_time()
        for table, _, hand in positions:
            legal_sample(hand, table)
        sample_ms = 1000 * (time.process_time() - cpu) / len(positions)
        rows.append({"table_items": size, "positions": len(positions), "check_capture_us": round(check_us, 1),
                     "builder_marks_ms": round(marks_ms, 3), "legal_sample_ms": round(sample_ms, 3)})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'table':>5} {'check capture µs':>17} {'builder marks ms':>17} {'legal sample ms':>16}")
    for r in rows:
        print(f"{r['table_items']:>5} {r['check_capture_us']:>17} {r['builder_marks_ms']:>17} "
              f"{r['legal_sample_ms']:>16}")


if __name__ == "__main__":
    main()
