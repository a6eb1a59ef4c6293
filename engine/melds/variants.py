"""The meld rules a manipulation rummy plays by (RULES.md sections 8 and 9), as data: ``Variant``.

Only what decides whether a meld or a table rearrangement is legal lives here; turn structure, deals
and scoring belong to the game modules. Each game states its own rules (``MELD_VARIANTS`` on its
state class, ``games/<id>/rules.py``); ``registered_variants`` collects them through the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.core import game_ids, get_game

AceRule = Literal["both", "low", "high"]


@dataclass(frozen=True)
class Variant:
    """Meld rules of one game.

    ``ace``: ``both`` = high (Q-K-A) or low (A-2-3) but never around the corner (K-A-2);
    ``low`` = A-2-3 only; ``high`` = Q-K-A only.
    Joker policy: ``jokers_allowed``; ``max_jokers_per_meld`` (None: no limit);
    ``released_joker_used_at_once`` (Carousel: a released joker never goes to a hand; in a
    table solver it always stays on the table anyway); ``joker_meld_frozen`` (Tahiti: a meld
    holding a joker stays exactly as it is until the joker is replaced);
    ``joker_stays_in_meld`` (Vatican: a joker not replaced ends in a meld holding at least one
    natural card of its old meld); ``swap_from_hand_only`` (Tahiti: the real card that
    releases a joker comes from the hand; elsewhere it may also come from the table);
    ``table_singles`` (Tahiti: loose one-card "melds" dealt face up may stay single).
    ``pack``: the size of the pack (``engine.cards.deck``): the game's pack (``RummyState.pack`` by
    default) and the one random positions deal from (``engine.melds.positions``); not a meld rule.
    """

    name: str
    ace: AceRule = "both"
    min_meld: int = 3
    max_set: int = 4
    jokers_allowed: bool = False
    max_jokers_per_meld: int | None = None
    released_joker_used_at_once: bool = False
    joker_meld_frozen: bool = False
    joker_stays_in_meld: bool = False
    swap_from_hand_only: bool = False
    table_singles: bool = False
    pack: int = 104

    def positions(self) -> range:
        """Run positions: 1 is a low ace, 14 a high ace, 2..13 the other ranks."""
        if self.ace == "low":
            return range(1, 14)
        if self.ace == "high":
            return range(2, 15)
        return range(1, 15)


def registered_variants() -> dict[str, Variant]:
    """Every registered game's meld rules by name, in the registry's order (a rummy's state lists the
    ones it plays in ``MELD_VARIANTS``; other games list none)."""
    out: dict[str, Variant] = {}
    for game_id in game_ids():
        for variant in getattr(get_game(game_id).state, "MELD_VARIANTS", ()):
            out[variant.name] = variant
    return out
