"""Random 4-player 10-card Oh Hell deals per second on one core, ours and (when installed) OpenSpiel's.

Run from the repository root: ``python bench/oh_hell.py [--deals N] [--repeat R]``.

Ours: ``get_game("oh_hell").new(...)`` (the shuffle and deal included), then random legal actions
through the public API (``legal_actions`` + ``act``, text actions, events built) until the deal is over.
OpenSpiel: the same deals fed through its chance nodes (same cards to the same seats, the same trump card
and dealer), then random legal actions through its Python bindings. The best of ``--repeat`` runs is
reported for each (the machine is shared, so the best run is the least disturbed one).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cards import parse_card, rank_of, suit_of  # noqa: E402
from engine.core import get_game  # noqa: E402

PLAYERS = 4
CARDS = 10
OUR_SUIT_TO_OS = {3: 0, 2: 1, 0: 2, 1: 3}  # OpenSpiel's suits are ordered C D S H


def bench_ours(seeds: list[int]) -> tuple[float, int]:
    game = get_game("oh_hell")
    options = game.parse_options({"hand_sizes": [CARDS], "last_deal_no_trump": False})
    rnd = random.Random(7).random
    actions = 0
    started = time.process_time()
    for seed in seeds:
        state = game.new(PLAYERS, seed=seed, options=options)
        while (seat := state.to_act) is not None:
            legal = state.legal_actions()
            state.act(seat, legal[int(rnd() * len(legal))])
            actions += 1
    return time.process_time() - started, actions


def deals_for_openspiel(seeds: list[int]) -> list[list[int]]:
    """Our deals as OpenSpiel chance actions: card j goes to player j % n, then the trump card."""
    game = get_game("oh_hell")
    options = game.parse_options({"hand_sizes": [CARDS], "last_deal_no_trump": False})
    out = []
    for seed in seeds:
        view = [game.new(PLAYERS, seed=seed, options=options).view(s) for s in range(PLAYERS)]
        hands = [[parse_card(c) for c in v["hand"]] for v in view]
        order = [hands[j % PLAYERS][j // PLAYERS] for j in range(PLAYERS * CARDS)]
        order.append(parse_card(view[0]["trump_card"]))
        out.append([(rank_of(c) - 2) * 4 + OUR_SUIT_TO_OS[suit_of(c)] for c in order])
    return out


def bench_openspiel(chance: list[list[int]]) -> tuple[float, int] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": PLAYERS, "num_tricks_fixed": CARDS})
    rnd = random.Random(7).random
    actions = 0
    started = time.process_time()
    for cards in chance:
        state = game.new_initial_state()
        state.apply_action(CARDS)
        state.apply_action(PLAYERS - 1)  # our first dealer: the last seat
        for card in cards:
            state.apply_action(card)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rnd() * len(legal))])
            actions += 1
    return time.process_time() - started, actions


def measure(deals: int = 4000, repeat: int = 3) -> dict[str, object]:
    """Our deals/s on ``deals`` random 4-player 10-card deals, and OpenSpiel's on the same deals."""
    seeds = list(range(1, deals + 1))
    ours = min(bench_ours(seeds) for _ in range(repeat))
    result: dict[str, object] = {
        "deals": deals,
        "ours_deals_per_second": round(deals / ours[0]),
        "ours_actions_per_second": round(ours[1] / ours[0]),
        "target_deals_per_second": 4000,
    }
    chance = deals_for_openspiel(seeds)
    runs = [bench_openspiel(chance) for _ in range(repeat)]
    if runs[0] is None:
        result["openspiel"] = "not installed (pip install open-spiel)"
    else:
        best = min(r for r in runs if r is not None)
        result["openspiel_deals_per_second"] = round(deals / best[0])
        result["openspiel_actions_per_second"] = round(best[1] / best[0])
        result["ours_over_openspiel"] = round(best[0] / ours[0], 2)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.deals, args.repeat), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
