"""Engine benchmark: random self-play speed of every registered game on the public path and on the fast path,
Carnival's clone/JSON costs, and Oh Hell against OpenSpiel.

Run from the repository root: ``python bench/engine.py [--seconds S] [--json]``. Prints numbers; it is not a
test and asserts nothing. CPU time (``time.process_time``) is reported beside wall time because the
machine may be shared; the targets refer to one core, i.e. CPU time: on the fast path, a 6-player
Carnival game <= 10 ms and a Karusele action <= 30 µs; earlier, a clone under 20 µs.

Both paths play uniform random games with the same loop on different seeds (so one path's run never warms a
cache for the other): ``legal_actions`` + ``act`` (text, events) against ``fast_legal`` + ``fast_apply`` (ints,
no events).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core import State, all_games, get_game  # noqa: E402
from engine.selfplay import play_game  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oh_hell as oh_hell_deals  # noqa: E402


def path_speed(game_id: str, players: int, seconds: float, fast: bool, max_games: int = 2000) -> dict[str, Any]:
    """Uniform random games on one path until ``seconds`` of CPU time or ``max_games`` games."""
    game = get_game(game_id)
    rnd = random.Random(5).random
    games = actions = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while games < max_games and time.process_time() - cpu0 < seconds:
        # The paths play different deals: a game's caches (Karusele's packing templates) must not be warmed
        # for the fast path by the public path's run of the same games.
        state = game.new(players, seed=(50_000 if fast else 10_000) + games)
        if fast:
            while state.current is not None:
                legal = state.fast_legal()
                state.fast_apply(legal[int(rnd() * len(legal))])
                actions += 1
        else:
            while (seat := state.to_act) is not None:
                texts = state.legal_actions()
                state.act(seat, texts[int(rnd() * len(texts))])
                actions += 1
        games += 1
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return {
        "game": game_id, "players": players, "path": "fast" if fast else "public", "games": games,
        "games_per_s": round(games / cpu, 1), "actions_per_s": round(actions / cpu),
        "ms_per_game": round(1000 * cpu / games, 2), "us_per_action": round(1e6 * cpu / max(actions, 1), 2),
        "actions_per_game": round(actions / games, 1), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
    }


def mid_game(game_id: str, players: int, seed: int = 7) -> State:
    """A state about halfway through a uniform random game."""
    _, actions = play_game(game_id, players, seed=seed, policy="uniform", check_every=0)
    state = get_game(game_id).new(players, seed=seed)
    for seat, action in actions[: len(actions) // 2]:
        state.act(seat, action)
    return state


def per_call_us(fn: Any, repeat: int) -> float:
    """Best of 5 runs of ``repeat`` calls, in µs per call (CPU time)."""
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(repeat):
            fn()
        best = min(best, time.process_time() - t0)
    return round(1e6 * best / repeat, 2)


def state_costs(game_id: str, players: int) -> dict[str, Any]:
    state = mid_game(game_id, players)
    cls = type(state)
    return {
        "game": game_id, "players": players,
        "clone_us": per_call_us(state.clone, 5000),
        "to_json_us": per_call_us(state.to_json, 2000),
        "json_round_trip_us": per_call_us(lambda: cls.from_json(state.to_json()), 1000),
        "json_text_round_trip_us": per_call_us(lambda: cls.from_json(json.loads(json.dumps(state.to_json()))), 500),
        "legal_actions_us": per_call_us(lambda: fresh_legal_actions(state), 5000),
    }


def fresh_legal_actions(state: State) -> list[str]:
    """``legal_actions`` computed anew (its cache dropped first)."""
    state._legal_cache = None
    return state.legal_actions()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per game and player count")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    parser.add_argument("--oh-hell-deals", type=int, default=4000, help="deals for the Oh Hell / OpenSpiel run")
    parser.add_argument("--game", help="measure the self-play of this game only (no Carnival costs, no Oh Hell run)")
    args = parser.parse_args()

    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for game in all_games():
        if args.game and game.id != args.game:
            continue
        for players in sorted({game.min_players, game.max_players}):
            for fast in (False, True):
                try:
                    rows.append(path_speed(game.id, players, args.seconds, fast))
                except Exception:  # a game under construction must not stop the benchmark
                    path = "fast" if fast else "public"
                    errors.append(f"{game.id} {players}p {path}: "
                                  f"{traceback.format_exc(limit=2).strip().splitlines()[-1]}")
    costs: list[dict[str, Any]] = []
    for players in (3, 6) if args.game in (None, "carnival") else ():
        try:
            costs.append(state_costs("carnival", players))
        except Exception:
            errors.append(f"carnival state costs {players}p: {traceback.format_exc(limit=2).strip().splitlines()[-1]}")

    oh_hell = oh_hell_deals.measure(args.oh_hell_deals, rounds=5) if args.game in (None, "oh_hell") else None

    if args.json:
        print(json.dumps({"selfplay": rows, "carnival_state": costs, "oh_hell_deals": oh_hell, "errors": errors},
                         indent=1))
        return 0
    print("random self-play, public path (legal_actions + act) and fast path (fast_legal + fast_apply); CPU time")
    print(f"{'game':<14}{'players':>8}{'path':>8}{'games':>7}{'games/s':>10}{'actions/s':>11}{'ms/game':>9}"
          f"{'µs/action':>11}{'speed-up':>10}")
    public = {(r["game"], r["players"]): r for r in rows if r["path"] == "public"}
    for r in rows:
        base = public.get((r["game"], r["players"]))
        ratio = f"{base['us_per_action'] / r['us_per_action']:.2f}x" if base and r["path"] == "fast" else ""
        print(f"{r['game']:<14}{r['players']:>8}{r['path']:>8}{r['games']:>7}{r['games_per_s']:>10}"
              f"{r['actions_per_s']:>11}{r['ms_per_game']:>9}{r['us_per_action']:>11}{ratio:>10}")
    fast_rows = {(r["game"], r["players"]): r for r in rows if r["path"] == "fast"}
    print()
    print("targets (fast path, CPU):")
    if ("carnival", 6) in fast_rows:
        ms = fast_rows[("carnival", 6)]["ms_per_game"]
        print(f"  Carnival 6 players: {ms} ms a game (target <= 10): {'ok' if ms <= 10 else 'MISSED'}")
    for players in (2, 4):
        if ("karusele", players) in fast_rows:
            us = fast_rows[("karusele", players)]["us_per_action"]
            print(f"  Karusele {players} players: {us} µs an action (target <= 30): {'ok' if us <= 30 else 'MISSED'}")
    print()
    print("Carnival mid-game state (µs per call, CPU time, best of 5)")
    for c in costs:
        print(f"  {c['players']}p: clone {c['clone_us']}  to_json {c['to_json_us']}  "
              f"from_json(to_json) {c['json_round_trip_us']}  via JSON text {c['json_text_round_trip_us']}  "
              f"legal_actions {c['legal_actions_us']}")
    if oh_hell is None:
        for line in errors:
            print("ERROR", line)
        return 0
    print()
    print(f"Oh Hell, {oh_hell['deals']} random 4-player 10-card deals (CPU time, median of {oh_hell['rounds']} "
          "interleaved rounds)")
    print(f"  ours, public path: {oh_hell['ours_deals_per_second']} deals/s")
    print(f"  ours, fast path:   {oh_hell['ours_fast_deals_per_second']} deals/s (seeded shuffle included)")
    print(f"  ours, fast, dealt: {oh_hell['ours_fast_dealt_deals_per_second']} deals/s "
          "(the deal given, as OpenSpiel's is)")
    print(f"  ours, fast, simulated: {oh_hell['ours_fast_sim_deals_per_second']} deals/s "
          "(one int-seeded generator, each deal shuffled)")
    if "openspiel_deals_per_second" in oh_hell:
        print(f"  OpenSpiel on the same deals: {oh_hell['openspiel_deals_per_second']} deals/s; ours/OpenSpiel: "
              f"public {oh_hell['ours_over_openspiel']}, fast {oh_hell['ours_fast_over_openspiel']}, "
              f"fast dealt {oh_hell['ours_fast_dealt_over_openspiel']} (target >= 1.0); simulated "
              f"{oh_hell['ours_fast_sim_over_openspiel']} (OpenSpiel on those deals, shuffled in its timing too: "
              f"{oh_hell['openspiel_sim_deals_per_second']} deals/s); fast is ours with the seeded shuffle "
              "against OpenSpiel fed the deals")
    else:
        print(f"  OpenSpiel: {oh_hell['openspiel']}")
    for line in errors:
        print("ERROR", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
