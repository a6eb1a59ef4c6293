"""Random 4-player 10-card Oh Hell deals per second on one core: ours (public and fast path) and OpenSpiel's.

Run from the repository root: ``python bench/oh_hell.py [--deals N] [--rounds R]``.

Every round times each contender once on the same ``--deals`` deals, in turn (interleaved, so a busy
shared machine slows all of them alike); the median round is reported.

- ours, public: ``get_game("oh_hell").new(...)`` (the seeded shuffle and deal included), then random legal
  actions through ``legal_actions`` + ``act`` (text actions, events built) until the deal is over;
- ours, fast: the same ``new(...)`` (seeded shuffle included), then ``fast_legal`` + ``fast_apply``;
- ours, fast, dealt: the same deal given as a shuffled pack (``OhHellState.from_pack``), then the fast path:
  chance as an input, which is how OpenSpiel is fed;
- ours, fast, simulated: how a simulation deals (no records): one generator seeded once with an int, each deal
  ``from_pack(shuffled_pack(rng))`` (the shuffle inside the timing), then the fast path;
- OpenSpiel: the same deals fed through its chance nodes (same cards to the same seats, the same trump card
  and dealer), then random legal actions through its Python bindings, on the seeds' deals (compared with the
  first three);
- OpenSpiel, simulated: the fourth's deals made the same way inside its timing (a generator seeded once with the
  same int, each pack shuffled by the same code, here a pack of OpenSpiel's card ids: the same permutation, so
  the same deals), fed through its chance nodes. This loop was once fed the packs shuffled outside
  the timing while ours shuffled inside, which charged ours ~8 us a deal (~15%) of work OpenSpiel skipped.

Both sides do the same work per step: one "is it over?" (our ``current`` attribute, OpenSpiel's
``is_terminal()``), one call for the legal actions, one call to apply the chosen one.

The random choice is the same expression in every loop (``legal[int(rnd() * len(legal))]``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from functools import partial
from itertools import starmap
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cards import parse_card, rank_of, suit_of  # noqa: E402
from engine.core import State, deal_rng, get_game  # noqa: E402
from games.oh_hell.rules import FULL_PACK, OhHellOptions, OhHellState, shuffled_pack  # noqa: E402

PLAYERS = 4
CARDS = 10
OUR_SUIT_TO_OS = {3: 0, 2: 1, 0: 2, 1: 3}  # OpenSpiel's suits are ordered C D S H


def _options() -> OhHellOptions:
    options = get_game("oh_hell").parse_options({"hand_sizes": [CARDS], "last_deal_no_trump": False})
    assert isinstance(options, OhHellOptions)
    return options


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


SIM_SEED = 2024


def bench_fast_sim(deals: int) -> tuple[float, int]:
    options = _options()
    rnd = random.Random(7).random
    actions = 0
    started = time.process_time()
    rng = random.Random(SIM_SEED)
    for _ in range(deals):
        state = OhHellState.from_pack(PLAYERS, options, shuffled_pack(rng))
        while state.current is not None:
            legal = state.fast_legal()
            state.fast_apply(legal[int(rnd() * len(legal))])
            actions += 1
    return time.process_time() - started, actions


def sim_packs(deals: int) -> list[list[int]]:
    """The packs ``bench_fast_sim`` deals from, in order."""
    rng = random.Random(SIM_SEED)
    return [shuffled_pack(rng) for _ in range(deals)]


def os_card(card: int) -> int:
    """Our card code as OpenSpiel's card id (rank index * 4 + suit index, suits C D S H)."""
    return (rank_of(card) - 2) * 4 + OUR_SUIT_TO_OS[suit_of(card)]


OS_PACK = [os_card(card) for card in FULL_PACK]  # FULL_PACK's order: shuffled alike, it deals the same cards
_NO_ARGS = ((),) * len(OS_PACK)


def os_shuffled_pack(rng: random.Random) -> list[int]:
    """``shuffled_pack(rng)`` in OpenSpiel's card ids: the same code on ``OS_PACK``, so the same permutation
    (a test holds it to ``shuffled_pack``)."""
    return sorted(OS_PACK, key=partial(next, starmap(rng.random, _NO_ARGS)))


def deals_for_openspiel(states: list[State]) -> list[list[int]]:
    """Our deals as OpenSpiel chance actions: card j goes to player j % n, then the trump card."""
    out = []
    for state in states:
        view = [state.view(s) for s in range(PLAYERS)]
        hands = [[parse_card(c) for c in v["hand"]] for v in view]
        order = [hands[j % PLAYERS][j // PLAYERS] for j in range(PLAYERS * CARDS)]
        order.append(parse_card(view[0]["trump_card"]))
        out.append([os_card(c) for c in order])
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
        actions += _openspiel_deal(game, cards, rnd)
    return time.process_time() - started, actions


def _openspiel_deal(game: Any, cards: list[int], rnd: Any) -> int:
    """One OpenSpiel deal: its chance actions (hand size, our first dealer: the last seat, ``cards``), then
    uniform random play; returns the actions played."""
    state = game.new_initial_state()
    state.apply_action(CARDS)
    state.apply_action(PLAYERS - 1)
    for card in cards:
        state.apply_action(card)
    actions = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[int(rnd() * len(legal))])
        actions += 1
    return actions


def bench_openspiel_sim(deals: int) -> tuple[float, int] | None:
    """OpenSpiel on ``bench_fast_sim``'s deals, shuffled inside the timing as ours are. The pack's first
    ``PLAYERS * CARDS`` cards go one at a time to players 0, 1, ... (our dealer is the last seat, so seat 0
    takes the first card), then the trump card: OpenSpiel's dealing order."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": PLAYERS, "num_tricks_fixed": CARDS})
    dealt = PLAYERS * CARDS + 1
    rnd = random.Random(7).random
    actions = 0
    started = time.process_time()
    rng = random.Random(SIM_SEED)
    for _ in range(deals):
        actions += _openspiel_deal(game, os_shuffled_pack(rng)[:dealt], rnd)
    return time.process_time() - started, actions


def measure(deals: int = 2000, rounds: int = 5) -> dict[str, Any]:
    """Deals/s of each contender on the same ``deals`` random 4-player 10-card deals: the median of
    ``rounds`` interleaved rounds (CPU time)."""
    seeds = list(range(1, deals + 1))
    packs = packs_for(seeds)
    game, options = get_game("oh_hell"), _options()
    chance = deals_for_openspiel([game.new(PLAYERS, seed=seed, options=options) for seed in seeds])
    contenders = {
        "ours": lambda: bench_ours(seeds),
        "fast": lambda: bench_fast(seeds),
        "fast_dealt": lambda: bench_fast_dealt(packs),
        "openspiel": lambda: bench_openspiel(chance),
        "fast_sim": lambda: bench_fast_sim(deals),
        "openspiel_sim": lambda: bench_openspiel_sim(deals),
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
    out: dict[str, Any] = {"deals": deals, "rounds": rounds, "target_deals_per_second": 4000}
    for name, label in (("ours", "ours"), ("fast", "ours_fast"), ("fast_dealt", "ours_fast_dealt"),
                        ("fast_sim", "ours_fast_sim"), ("openspiel", "openspiel"), ("openspiel_sim", "openspiel_sim")):
        if name in median:
            out[f"{label}_deals_per_second"] = round(deals / median[name])
            out[f"{label}_actions_per_second"] = round(counts[name] / median[name])
    if "openspiel" in median:
        for name, label in (("ours", "ours"), ("fast", "ours_fast"), ("fast_dealt", "ours_fast_dealt")):
            out[f"{label}_over_openspiel"] = round(median["openspiel"] / median[name], 2)
        out["ours_fast_sim_over_openspiel"] = round(median["openspiel_sim"] / median["fast_sim"], 2)
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
