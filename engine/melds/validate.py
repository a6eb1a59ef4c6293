"""Is one meld valid in a variant, and its canonical display order.

A meld is a list of table ints (naturals and placed jokers, see ``tablecards``). A set is
3..``max_set`` cards of one rank in different suits (so two identical cards of a double pack
never share a set); a run is ``min_meld``+ consecutive cards of one suit, the ace placed by
the variant's ace rule. Validity does not depend on the order the cards are given in;
:func:`normalise` gives the display order (runs ascending, sets in suit order S H D C).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import cards
from engine.melds.tablecards import JOKER_AS, is_natural, is_placed_joker, table_card_str
from engine.melds.variants import Variant


def _name(x: int) -> str:
    try:
        return table_card_str(x)
    except cards.CardError:
        return repr(x)


def meld_text(meld: Sequence[int]) -> str:
    return "-".join(_name(x) for x in meld)


def run_positions(variant: Variant, meanings: Sequence[int]) -> list[int] | None:
    """Positions (1..14) of a run's cards in the given order, or None if they are not one
    consecutive run under the variant's ace rule. ``meanings`` are natural codes of one suit."""
    ranks = [cards.rank_of(c) for c in meanings]
    others = sorted(r for r in ranks if r != cards.ACE)
    aces = len(ranks) - len(others)
    if aces > 1 or len(set(others)) != len(others):
        return None
    if others and others[-1] - others[0] != len(others) - 1 + 0:
        # a gap among the non-aces: only an ace cannot fill it
        return None
    lo, hi = (others[0], others[-1]) if others else (None, None)
    ace_pos = 0  # where the ace goes (1 low, 14 high); no ace: unused
    if aces:
        low_ok = variant.ace in ("both", "low") and lo == 2
        high_ok = variant.ace in ("both", "high") and hi == cards.KING
        if low_ok:
            ace_pos = 1
        elif high_ok:
            ace_pos = 14
        else:
            return None
    return [ace_pos if r == cards.ACE else r for r in ranks]


def why_invalid(variant: Variant, meld: Sequence[int]) -> str | None:
    """None if ``meld`` is a valid meld in ``variant``; otherwise a one-line reason naming it."""
    for x in meld:
        if x == cards.JOKER:
            return f"the joker in {meld_text(meld)} must say what it stands for (JK=7H)"
        if not (is_natural(x) or is_placed_joker(x)):
            return f"{_name(x)} in {meld_text(meld)} is not a rummy card"
    if len(meld) < variant.min_meld:
        return f"meld {meld_text(meld)} has {len(meld)} cards; at least {variant.min_meld} are needed"
    jokers = [x for x in meld if x >= JOKER_AS]
    if jokers and not variant.jokers_allowed:
        return f"{variant.name} has no jokers: {meld_text(meld)}"
    if variant.max_jokers_per_meld is not None and len(jokers) > variant.max_jokers_per_meld:
        return f"meld {meld_text(meld)} holds {len(jokers)} jokers; at most {variant.max_jokers_per_meld} per meld"
    if len(jokers) == len(meld):
        return f"meld {meld_text(meld)} has no natural card"
    meanings = [x - JOKER_AS if x >= JOKER_AS else x for x in meld]
    ranks = {cards.rank_of(c) for c in meanings}
    if len(ranks) == 1:
        seen: set[int] = set()
        for c in meanings:
            if c in seen:
                return f"set {meld_text(meld)} holds {cards.card_str(c)} twice (suits must differ)"
            seen.add(c)
        if len(meld) > variant.max_set:
            return f"set {meld_text(meld)} has {len(meld)} cards; at most {variant.max_set}"
        return None
    suits = {cards.suit_of(c) for c in meanings}
    if len(suits) != 1:
        return f"{meld_text(meld)} is neither a set (one rank) nor a run (one suit)"
    if run_positions(variant, meanings) is None:
        return f"{meld_text(meld)} is not a run of consecutive cards ({_ace_words(variant)})"
    return None


def _ace_words(variant: Variant) -> str:
    return {
        "both": "the ace is high or low, never around the corner",
        "low": "the ace is low only",
        "high": "the ace is high only",
    }[variant.ace]


def is_valid(variant: Variant, meld: Sequence[int]) -> bool:
    return why_invalid(variant, meld) is None


def normalise(variant: Variant, meld: Sequence[int]) -> list[int]:
    """Display order of a valid meld: runs ascending (a low ace first), sets by suit S H D C."""
    meanings = [x - JOKER_AS if x >= JOKER_AS else x for x in meld]
    if len({cards.rank_of(c) for c in meanings}) == 1:
        return [x for _, x in sorted(zip(meanings, meld, strict=True))]
    pos = run_positions(variant, meanings)
    if pos is None:
        return list(meld)
    return [x for _, x in sorted(zip(pos, meld, strict=True))]
