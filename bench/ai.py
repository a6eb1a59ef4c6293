"""How strong the AI levels are, on duplicate deals (the same deals, seats rotated, so luck cancels).

Run from the repository root: ``python bench/ai.py [--part latency|oh_hell|openspiel|trio|all] [--deals K]
[--os-deals K] [--os-matches h2h|random|both] [--budget-ms M | --iterations N] [--log FILE]``. Prints one
JSON document per match (and appends each to ``--log`` as it goes, with partial results every 10 deals,
so a long run can be watched and a killed one still says something).

- Oh Hell, 4 players, one 7-card deal with a turned trump and the hook (OpenSpiel's rules): strong
  against three random players, strong against three heuristic players; OpenSpiel's information-set
  MCTS (``pyspiel.ISMCTSBot``, 1,000 simulations, random roll-outs, when installed) against the same
  three random players on the same deals, and strong and OpenSpiel's ISMCTS head to head with two random
  players. Mean points per deal and win rate with 95% intervals; ``differences`` are paired per deal.
- Latency: the normal and strong levels' decision times at their product budgets (p50, p99, max) over
  positions of random games, with the tree size and peak memory of a decision.
- Carnival (3 players, first deal: 6 cards), Karusele (3 players, one deal), Klaberjass (2 players,
  one deal): strong, heuristic and random at one table (Klaberjass: strong v heuristic, then
  heuristic v random); strong > heuristic > random holds at 95% when the paired difference's interval
  is above 0.

``--budget-ms`` is the strong level's thinking time per decision in these matches (the product's
strong level thinks 1.5 s; a 500-deal match at that budget takes hours on one core); ``--iterations``
caps it by search iterations instead, which does not depend on how loaded the machine is (with
``--iterations 1000`` strong searches as many deals as OpenSpiel's ISMCTS simulates: the same work). The
OpenSpiel head to head, 500 deals at 1,000 iterations, took 31.5 minutes at load average 3.5-6.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.arena import Chooser, run  # noqa: E402
from engine.cards import card_str, make, rank_of, suit_of  # noqa: E402
from engine.core import State  # noqa: E402
from engine.tricks import plain_winning_index  # noqa: E402

OH_HELL = {"hook": True, "hand_sizes": [7], "last_deal_no_trump": False}
OUR_SUIT_TO_OS = {3: 0, 2: 1, 0: 2, 1: 3}  # OpenSpiel's suits are ordered C D S H
OS_SUIT_TO_OURS = {v: k for k, v in OUR_SUIT_TO_OS.items()}


def os_card(card: int) -> int:
    return (rank_of(card) - 2) * 4 + OUR_SUIT_TO_OS[suit_of(card)]


def openspiel_chooser(simulations: int = 1000, seed: int = 7) -> Chooser | None:
    """OpenSpiel's ISMCTS as a seat kind: our deal so far is replayed into an OpenSpiel state (deal,
    trump card, bids, cards played) and its bot picks the move; None when pyspiel is missing."""
    try:
        import pyspiel
    except ImportError:
        return None
    games: dict[int, Any] = {}
    bots: dict[int, Any] = {}

    def choose(state: State, seat: int, rng: random.Random) -> str:
        n = state.n
        k = state.sizes[state.deal_index]  # type: ignore[attr-defined]
        if n not in games:
            games[n] = pyspiel.load_game("oh_hell", {"players": n, "num_tricks_fixed": k,
                                                     "off_bid_penalty": False, "points_per_trick": 1})
            evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
            bots[n] = pyspiel.ISMCTSBot(seed, evaluator, 2.0, simulations, -1,
                                        pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        os_state = _replay(games[n], state, k)
        assert os_state.current_player() == seat, "OpenSpiel and we disagree on the seat to act"
        action = bots[n].step(os_state)
        if action >= 52:
            return f"bid {action - 52}"
        return "play " + card_str(make(action // 4 + 2, OS_SUIT_TO_OURS[action % 4]))

    return choose


def _replay(game: Any, state: State, k: int) -> Any:
    """Our Oh Hell deal in progress as an OpenSpiel state: the same cards, dealer, bids and plays."""
    n = state.n
    dealer = state.dealer  # type: ignore[attr-defined]
    leader = (dealer + 1) % n
    played = state.played  # type: ignore[attr-defined]
    seats: list[int] = []
    lead = leader
    for start in range(0, len(played), n):
        cards = played[start:start + n]
        seats += [(lead + i) % n for i in range(len(cards))]
        if len(cards) == n:
            lead = (lead + plain_winning_index(cards, state.trump)) % n  # type: ignore[attr-defined]
    hands = [list(h) for h in state.hands]  # type: ignore[attr-defined]
    for s, c in zip(seats, played, strict=True):
        hands[s].append(c)
    os_state = game.new_initial_state()
    os_state.apply_action(k)
    os_state.apply_action(dealer)
    for j in range(n * k):  # OpenSpiel deals card j to player j % n
        os_state.apply_action(os_card(hands[j % n][j // n]))
    os_state.apply_action(os_card(state.trump_card))  # type: ignore[attr-defined]
    for i in range(n):
        bid = state.bids[(leader + i) % n]  # type: ignore[attr-defined]
        if bid is None:
            break
        os_state.apply_action(52 + bid)
    for c in played:
        os_state.apply_action(os_card(c))
    return os_state


def match(game: str, players: int, seats: list[str], deals: int, seed: int, budget_ms: float | None,
          options: dict[str, Any] | None, log: Path | None, choosers: dict[str, Chooser] | None = None,
          label: str = "", iterations: int | None = None) -> dict[str, Any]:
    started = time.time()

    def progress(done: int, partial: dict[str, Any]) -> None:
        if log is not None and (done % 10 == 0 or done == deals):
            with log.open("a") as f:
                f.write(json.dumps({"label": label, "partial": done < deals, "seconds": round(time.time() - started),
                                    **partial}) + "\n")

    result = run(game, players, seats, deals, seed, budget_ms, options, choosers, progress, iterations,
                 keep_per_deal=True)
    result["label"] = label
    result["seconds"] = round(time.time() - started)
    print(json.dumps(result), flush=True)
    return result


def _seat(state: State) -> int:
    seat = state.to_act
    assert seat is not None, "the game is over"
    return seat


LATENCY_GAMES = [("oh_hell", 4, None), ("carnival", 4, None), ("klaberjass", 2, None), ("calabrasella", 3, None),
                 ("variety", 4, None), ("karusele", 3, None)]


def latency(normal_positions: int, strong_positions: int, seed: int) -> dict[str, Any]:
    """Decision time of the normal and strong levels at their product budgets (180 ms, 1.5 s), over
    positions met in random games where the seat to act has a real choice; the search tree's size and
    the peak memory a decision allocates (tracemalloc, on a few positions)."""
    import tracemalloc

    from engine.ai import BUDGET_MS, choose_action
    from engine.ai.search import ismcts
    from engine.core import get_game

    out: dict[str, Any] = {"budgets_ms": BUDGET_MS}
    for game_id, players, options in LATENCY_GAMES:
        rng = random.Random(seed)
        found: list[State] = []
        state = get_game(game_id).new(players, seed=seed, options=options)
        while len(found) < normal_positions:
            if state.over:
                state = get_game(game_id).new(players, seed=rng.randrange(10**9), options=options)
            legal = state.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                found.append(state.clone())
            state.act(_seat(state), legal[rng.randrange(len(legal))])
        row: dict[str, Any] = {}
        for level, count in (("normal", normal_positions), ("strong", strong_positions)):
            times = []
            for position in found[:count]:
                began = time.perf_counter()
                choose_action(position, _seat(position), level, rng)
                times.append(1000 * (time.perf_counter() - began))
            times.sort()
            row[level] = {"decisions": len(times), "p50_ms": round(times[len(times) // 2], 1),
                          "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 1),
                          "max_ms": round(times[-1], 1)}
        peaks, nodes = [], []
        for position in found[:3]:
            tracemalloc.start()
            result = ismcts(position, _seat(position), budget_ms=BUDGET_MS["normal"], rng=rng)
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
            nodes.append(result.nodes)
        row["normal_tree_nodes_max"] = max(nodes)
        row["normal_peak_kib_max_under_tracemalloc"] = round(max(peaks) / 1024)
        out[game_id] = row
        print(json.dumps({game_id: row}), file=sys.stderr, flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["latency", "oh_hell", "openspiel", "trio", "all"], default="all")
    parser.add_argument("--positions", type=int, default=100, help="latency: positions per game at normal")
    parser.add_argument("--strong-positions", type=int, default=10, help="latency: positions per game at strong")
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--trio-deals", type=int, default=100)
    parser.add_argument("--trio-games", default="carnival,karusele,klaberjass", help="trio: which games")
    parser.add_argument("--os-deals", type=int, default=500, help="deals of the OpenSpiel matches")
    parser.add_argument("--os-matches", choices=["h2h", "random", "both"], default="both",
                        help="openspiel: head to head (strong, openspiel, random, random), OpenSpiel v 3 random, both")
    parser.add_argument("--budget-ms", type=float, default=None, help="strong's time per decision (default 50)")
    parser.add_argument("--iterations", type=int, default=None, help="cap strong by iterations instead of time")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", type=Path, default=None)
    args = parser.parse_args()
    b, k, s, log, it = args.budget_ms, args.deals, args.seed, args.log, args.iterations
    if b is None and it is None:
        b = 50.0
    if args.part in ("latency", "all"):
        print(json.dumps({"latency": latency(args.positions, args.strong_positions, s)}), flush=True)
    if args.part in ("oh_hell", "all"):
        match("oh_hell", 4, ["strong", "random", "random", "random"], k, s, b, OH_HELL, log,
              label="oh_hell strong v 3 random", iterations=it)
        match("oh_hell", 4, ["strong", "heuristic", "heuristic", "heuristic"], k, s, b, OH_HELL, log,
              label="oh_hell strong v 3 heuristic", iterations=it)
    if args.part in ("openspiel", "all"):
        ismcts = openspiel_chooser()
        if ismcts is None:
            print(json.dumps({"openspiel": "not installed (pip install open-spiel)"}))
        else:
            o = args.os_deals
            if args.os_matches in ("random", "both"):
                match("oh_hell", 4, ["openspiel", "random", "random", "random"], o, s, b, OH_HELL, log,
                      {"openspiel": ismcts}, label="oh_hell openspiel ismcts v 3 random", iterations=it)
            if args.os_matches in ("h2h", "both"):
                match("oh_hell", 4, ["strong", "openspiel", "random", "random"], o, s, b, OH_HELL, log,
                      {"openspiel": ismcts}, label="oh_hell strong v openspiel ismcts + 2 random", iterations=it)
    if args.part in ("trio", "all"):
        t, games = args.trio_deals, args.trio_games.split(",")
        if "carnival" in games:
            match("carnival", 3, ["strong", "heuristic", "random"], t, s, b, None, log, label="carnival", iterations=it)
        if "karusele" in games:
            match("karusele", 3, ["strong", "heuristic", "random"], t, s, b, None, log, label="karusele", iterations=it)
        if "klaberjass" in games:
            match("klaberjass", 2, ["strong", "heuristic"], t, s, b, None, log, label="klaberjass strong v heuristic",
                  iterations=it)
            match("klaberjass", 2, ["heuristic", "random"], t, s, b, None, log, label="klaberjass heuristic v random")
    return 0


if __name__ == "__main__":
    sys.exit(main())
