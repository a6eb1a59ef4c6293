"""Melds of the manipulation rummies (RULES.md 8-9) and the table solver.

Cards are ``engine.cards`` ints; a joker lying on the table is ``placed_joker(card)``
(``JOKER_AS + card``), written ``JK=7H``. A meld is a list of table ints in display order;
a table is a list of melds (in Tahiti a one-card meld is a loose face-up single).

- ``Variant``: the meld rules a game plays by (each rummy states its own; ``registered_variants()`` by name).
- ``why_invalid(variant, meld)`` / ``is_valid``: one meld.
- ``check_layout(variant, old_table, added, new_table)``: an explicit rearrangement.
- ``solve(variant, table, added)``: find one (``Solution``) or None; ``explain_no_solution``.
- ``best_subset(variant, table, hand)``: the largest part of a hand that can go down.

Text: a meld is ``7H-8H-JK=9H``, a table ``7H-8H-9H | 5S-5H-5D`` (``table_str``/``parse_table``).

Rules decided here (RULES.md 8-9 leave them open): a released joker may take any meaning,
its old one included; in Tahiti a meld holding an unreleased joker stays exactly as it is
(no card added or taken); in Vatican an unreleased joker ends in a meld holding at least one
natural card of its old meld (a partition cannot see where a joker lay, so "never moves
between melds" is read as "keeps company with its meld").

Command line (engine/melds/cli.py): ``python -m engine meld --variant V --table JSON --add CARDS``
prints one JSON line, ``{"ok": true, "table": [...], "kept": N, "released_jokers": [...]}`` or
``{"ok": false, "reason": "..."}`` (exit 1); ``--layout JSON`` checks an explicit new table;
``--best-subset --hand CARDS`` answers which part of a hand goes down; bad input exits 2 with
``{"ok": false, "error": "..."}`` naming the card or meld.
"""

from engine.melds.layout import check_layout
from engine.melds.solver import Solution, best_subset, explain_no_solution, solve
from engine.melds.tablecards import (
    JOKER_AS,
    MeldTextError,
    is_placed_joker,
    meld_str,
    parse_hand,
    parse_meld,
    parse_table,
    parse_table_card,
    placed_joker,
    stands_for,
    table_card_str,
    table_str,
)
from engine.melds.validate import is_valid, normalise, why_invalid
from engine.melds.variants import Variant, registered_variants

__all__ = [
    "JOKER_AS", "MeldTextError", "Solution", "Variant", "best_subset", "check_layout",
    "explain_no_solution", "is_placed_joker", "is_valid", "meld_str", "normalise", "parse_hand", "parse_meld",
    "parse_table", "parse_table_card", "placed_joker", "registered_variants", "solve", "stands_for", "table_card_str",
    "table_str", "why_invalid",
]
