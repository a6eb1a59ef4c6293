"""``python -m engine games | replay FILE | selfplay --game ID --players N --games K --seed S``
| ``meld --variant V --table JSON --add CARDS`` (the rummy table solver, see engine/melds/cli.py)

``| arena --game ID --players N --seats strong,heuristic,random,random --deals K --seed S``."""

from __future__ import annotations

import argparse
import json
import sys

from engine.core import GameError, OptionsError, all_games
from engine.record import ReplayError, load, replay, summary
from engine.selfplay import POLICIES, run


def _options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        out[key] = value
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["meld"]:  # the rummy table solver has its own parser (engine/melds/cli.py)
        from engine.melds.cli import main as meld_main

        return meld_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m engine", description="Kozyr rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games", help="list the games with their player ranges (JSON)")
    sub.add_parser("meld", help="rummy table solver: meld --variant V --table JSON --add CARDS (JSON)", add_help=False)
    rep = sub.add_parser("replay", help="replay a game record and print its score sheet (JSON)")
    rep.add_argument("file")
    sp = sub.add_parser("selfplay", help="random self-play with invariant checks (JSON summary)")
    sp.add_argument("--game", required=True)
    sp.add_argument("--players", type=int, required=True)
    sp.add_argument("--games", type=int, default=100)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--ai", default="random", choices=["random"], help="seat-filler level")
    sp.add_argument("--policy", choices=[*POLICIES, "mixed"], default="mixed")
    sp.add_argument("--check-every", type=int, default=1, help="check invariants every N steps (0: never)")
    sp.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    ar = sub.add_parser("arena", help="duplicate deals between AI levels (JSON: mean score per deal, 95%% CI)")
    ar.add_argument("--game", required=True)
    ar.add_argument("--players", type=int, required=True)
    ar.add_argument("--seats", required=True, help="one kind per seat: random, heuristic (easy), normal, strong")
    ar.add_argument("--deals", type=int, default=20)
    ar.add_argument("--seed", type=int, default=1)
    ar.add_argument("--budget-ms", type=float, default=None, help="thinking time of normal/strong per decision")
    ar.add_argument("--iterations", type=int, default=None, help="cap normal/strong by search iterations")
    ar.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)

    try:
        if args.command == "games":
            rows = [
                {"id": g.id, "name": g.name, "min_players": g.min_players, "max_players": g.max_players}
                for g in all_games()
            ]
            print(json.dumps(rows, ensure_ascii=False, indent=1))
            return 0
        if args.command == "replay":
            try:
                state = replay(load(args.file))
            except ReplayError as exc:
                print(json.dumps({"error": str(exc), "index": exc.index, "action": exc.action,
                                  "reason": exc.reason}, ensure_ascii=False), file=sys.stderr)
                return 2
            except json.JSONDecodeError as exc:
                print(f"error: {args.file} is not JSON: {exc}", file=sys.stderr)
                return 2
            except (GameError, OptionsError, OSError, ValueError, KeyError):
                raise
            except Exception as exc:  # noqa: BLE001 - a bad record never ends in a traceback
                print(f"error: the record could not be replayed ({type(exc).__name__}: {exc})", file=sys.stderr)
                return 2
            print(json.dumps(summary(state), ensure_ascii=False, indent=1))
            return 0
        if args.command == "arena":
            from engine.arena import run as arena_run

            result = arena_run(args.game, args.players, [k.strip() for k in args.seats.split(",")], args.deals,
                               args.seed, args.budget_ms, _options(args.option) or None,
                               iterations=args.iterations)
            print(json.dumps(result, ensure_ascii=False, indent=1))
            return 0
        policies = POLICIES if args.policy == "mixed" else (args.policy,)
        result = run(args.game, args.players, args.games, args.seed, policies, args.check_every,
                     _options(args.option) or None)
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return 1 if result["invariant_failures"] else 0
    except (GameError, OptionsError, OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
