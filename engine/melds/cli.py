"""``python -m engine meld``: the table solver from the command line.

    python -m engine meld --variant carousel --table '[["8H","9H","JK=10H"]]' --add '10H 6H'
    python -m engine meld --variant tahiti --table '[["5S","6S","7S"]]' --add '8S' --layout '[["5S","6S","7S","8S"]]'
    python -m engine meld --variant shanghai --table '[["5S","6S","7S"]]' --best-subset --hand '8S 9D 2C'

``--table`` is a JSON list of melds, each a list of cards (``"JK=7H"`` for a joker standing
for 7H) or one string ``"7H-8H-9H"``. ``--add`` and ``--hand`` are cards separated by spaces or
commas (``JK`` a joker from hand). With ``--hand``, every ``--add`` card must be in it.
``--layout`` checks an explicit new table instead of searching for one.

Output, one JSON line: ``{"ok": true, "table": [...], "kept": N, "released_jokers": [...]}``
(``--best-subset``: ``{"ok": true, "subset": [...], "table": [...]}``, ``subset`` empty when no
card can go down); ``{"ok": false, "reason": "..."}`` when no arrangement exists or the layout
is refused (exit 1); bad input (unknown variant, bad JSON, a card that does not parse, an old
meld that is not valid, an added card not in the hand): ``{"ok": false, "error": "..."}``, exit 2.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.melds.layout import check_layout, is_single
from engine.melds.solver import best_subset, explain_no_solution, solve
from engine.melds.tablecards import MeldTextError, parse_hand, parse_meld, parse_table_card, table_card_str
from engine.melds.validate import why_invalid
from engine.melds.variants import Variant, registered_variants


class InputError(ValueError):
    """Bad command-line input; the message names the bad part."""


def _parse_table_json(text: str, what: str) -> list[list[int]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(data, list):
        raise InputError(f"{what} must be a JSON list of melds")
    table = []
    for meld in data:
        if isinstance(meld, str):
            table.append(parse_meld(meld))
        elif isinstance(meld, list) and all(isinstance(c, str) for c in meld):
            table.append([parse_table_card(c) for c in meld])
        else:
            raise InputError(f"{what}: a meld must be a list of card strings or one string, not {json.dumps(meld)}")
    return table


def _check_old_table(variant: Variant, table: Sequence[Sequence[int]]) -> None:
    for meld in table:
        if not is_single(variant, meld):
            reason = why_invalid(variant, meld)
            if reason:
                raise InputError(f"--table: {reason}")


def _out(table: Sequence[Sequence[int]]) -> list[list[str]]:
    return [[table_card_str(x) for x in meld] for meld in table]


def run(argv: Sequence[str]) -> tuple[int, dict[str, Any]]:
    parser = argparse.ArgumentParser(prog="python -m engine meld", description="rummy table solver")
    variants = registered_variants()
    parser.add_argument("--variant", required=True, help=", ".join(variants))
    parser.add_argument("--table", default="[]", help="JSON list of melds")
    parser.add_argument("--add", default="", help="cards added from hand")
    parser.add_argument("--hand", default=None, help="the hand (for --best-subset, or to check --add)")
    parser.add_argument("--best-subset", action="store_true")
    parser.add_argument("--layout", default=None, help="JSON new table to check instead of solving")
    args = parser.parse_args(list(argv))
    variant = variants.get(args.variant)
    if variant is None:
        raise InputError(f"unknown variant {args.variant!r}; known: {', '.join(variants)}")
    table = _parse_table_json(args.table, "--table")
    _check_old_table(variant, table)
    added = parse_hand(args.add)
    hand = parse_hand(args.hand) if args.hand is not None else None
    if hand is not None:
        for c in sorted(Counter(added) - Counter(hand)):
            raise InputError(f"--add: {table_card_str(c)} is not in the hand")
    if args.best_subset:
        if hand is None:
            raise InputError("--best-subset needs --hand")
        subset = best_subset(variant, table, hand)
        sol = solve(variant, table, subset) if subset else None
        return 0, {"ok": True, "subset": [table_card_str(c) for c in subset],
                   "table": _out(sol.table if sol else table)}
    if args.layout is not None:
        new_table = _parse_table_json(args.layout, "--layout")
        reason = check_layout(variant, table, added, new_table)
        if reason:
            return 1, {"ok": False, "reason": reason}
        return 0, {"ok": True, "table": _out(new_table)}
    if not added:
        raise InputError("--add names no card")
    sol = solve(variant, table, added)
    if sol is None:
        return 1, {"ok": False, "reason": explain_no_solution(variant, table, added)}
    return 0, {"ok": True, "table": _out(sol.table), "kept": sol.kept,
               "released_jokers": [table_card_str(c) for c in sol.released_jokers]}


def main(argv: Sequence[str]) -> int:
    try:
        code, out = run(argv)
    except (InputError, MeldTextError) as exc:
        code, out = 2, {"ok": False, "error": str(exc)}
    print(json.dumps(out, ensure_ascii=False))
    return code
