"""Random 4-player 10-card Oh Hell deals per second on one core: ours (public and fast path) and OpenSpiel's.

Run from the repository root: ``python bench/oh_hell.py [--deals N] [--rounds R]``.

Every round times each contender once on the same ``--deals`` deals, in turn (interleaved, so a busy
shared machine slows all of them alike); the median round is reported.

- ours, public: ``get_game("oh_hell").new(...)`` (the seeded shuffle and deal included), then random legal
  actions through ``legal_actions`` + ``act`` (text actions, events built) until the deal is over;
- ours, fast: the same ``new(...)`` (seeded shuffle included), then ``fast_legal`` + ``fast_apply``;
- ours, fast, dealt: the same deal given as a shuffled pack (``OhHellState.from_pack``), then the fast path:
  chance as an input, which is how OpenSpiel is fed;
- OpenSpiel: the same deals fed through its chance nodes (same cards to the same seats, the same trump card
  and dealer), then random legal actions through its Python bindings.

The random choice is the same expression in every loop (``legal[int(rnd() * len(legal))]``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cards import parse_card, rank_of, suit_of  # noqa: E402
from engine.core import deal_rng, get_game  # noqa: E402
from games.oh_hell.rules import OhHellState, shuffled_pack  # noqa: E402

PLAYERS = 4
CARDS = 10
OUR_SUIT_TO_OS = {3: 0, 2: 1, 0: 2, 1: 3}  # OpenSpiel's suits are ordered C D S H


def _options():  # type: ignore[no-untyped-def]
    return get_game("oh_hell").parse_options({"hand_sizes": [CARDS], "last_deal_no_trump": False})


def bench_ours(seeds: list[int]) -> tuple[float, int]:
    game = get_game("oh_hell")
    options = _options()
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


def bench_fast(seeds: list[int]) -> tuple[float, int]:
    game = get_game("oh_hell")
    options = _options()
    rnd = random.Random(7).random
    actions = 0
    started = time.process_time()
    for seed in seeds:
        state = game.new(PLAYERS, seed=seed, options=options)
        while state.current is not None:
            legal = state.fast_legal()
            state.fast_apply(legal[int(rnd() * len(legal))])
            actions += 1
    return time.process_time() - started, actions


def packs_for(seeds: list[int]) -> list[list[int]]:
    """The first deal's shuffled pack of every seed (what ``new`` deals from)."""
    return [shuffled_pack(deal_rng(seed, 0)) for seed in seeds]


def bench_fast_dealt(packs: list[list[int]]) -> tuple[float, int]:
    options = _options()
    rnd = random.Random(7).random
    actions = 0
    started = time.process_time()
    for pack in packs:
        state = OhHellState.from_pack(PLAYERS, options, pack)
        while state.current is not None:
            legal = state.fast_legal()
            state.fast_apply(legal[int(rnd() * len(legal))])
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


def measure(deals: int = 2000, rounds: int = 5) -> dict[str, object]:
    """Deals/s of each contender on the same ``deals`` random 4-player 10-card deals: the median of
    ``rounds`` interleaved rounds (CPU time)."""
    seeds = list(range(1, deals + 1))
    packs = packs_for(seeds)
    chance = deals_for_openspiel(seeds)
    contenders = {
        "ours": lambda: bench_ours(seeds),
        "fast": lambda: bench_fast(seeds),
        "fast_dealt": lambda: bench_fast_dealt(packs),
        "openspiel": lambda: bench_openspiel(chance),
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    counts: dict[str, int] = {}
    for _ in range(rounds):
        for name, run in contenders.items():
            result = run()
            if result is None:
                continue
            times[name].append(result[0])
            counts[name] = result[1]
    median = {name: statistics.median(t) for name, t in times.items() if t}
    out: dict[str, object] = {"deals": deals, "rounds": rounds, "target_deals_per_second": 4000}
    for name, label in (("ours", "ours"), ("fast", "ours_fast"), ("fast_dealt", "ours_fast_dealt"),
                        ("openspiel", "openspiel")):
        if name in median:
            out[f"{label}_deals_per_second"] = round(deals / median[name])
            out[f"{label}_actions_per_second"] = round(counts[name] / median[name])
    if "openspiel" in median:
        for name, label in (("ours", "ours"), ("fast", "ours_fast"), ("fast_dealt", "ours_fast_dealt")):
            out[f"{label}_over_openspiel"] = round(median["openspiel"] / median[name], 2)
    else:
        out["openspiel"] = "not installed (pip install open-spiel)"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(measure(args.deals, args.rounds), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
