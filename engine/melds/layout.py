"""Check an explicit new table against the old one: partition, melds, joker rules.

Records carry the arrangement a move produced, so a replay never depends on the solver;
this checker is what accepts or refuses such an arrangement.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from engine import cards
from engine.melds.jokers import OldJoker, old_jokers, release_choices, release_sources
from engine.melds.tablecards import JOKER_AS, physical, table_card_str
from engine.melds.validate import meld_text, normalise, why_invalid
from engine.melds.variants import Variant


def _key(variant: Variant, meld: Sequence[int]) -> tuple[int, ...]:
    return tuple(normalise(variant, meld))


def is_single(variant: Variant, meld: Sequence[int]) -> bool:
    """A loose one-card table "meld" (Tahiti's face-up singles)."""
    return variant.table_singles and len(meld) == 1


def check_layout(
    variant: Variant,
    old_table: Sequence[Sequence[int]],
    added: Sequence[int],
    new_table: Sequence[Sequence[int]],
) -> str | None:
    """None if ``new_table`` is a legal rearrangement of ``old_table`` plus the hand cards
    ``added`` (plain ``JOKER`` for a joker from hand); else a one-line reason naming a card or meld."""
    for c in added:
        if not (0 <= c <= cards.JOKER) or c not in cards.CARD_TEXT:
            return f"{c!r} is not a card that can be added"
    have = Counter(physical(x) for meld in old_table for x in meld) + Counter(added)
    got = Counter(physical(x) for meld in new_table for x in meld)
    for c in sorted(got - have):
        return f"{table_card_str(c)} is on the new table but not on the old table or in the added cards"
    for c in sorted(have - got):
        return f"{table_card_str(c)} is missing from the new table (every table card and added card must be in it)"
    old_singles = Counter(m[0] for m in old_table if is_single(variant, m))
    new_singles = Counter(m[0] for m in new_table if is_single(variant, m))
    for c in sorted(new_singles - old_singles):
        return f"{table_card_str(c)} alone is not a meld (at least {variant.min_meld} cards)"
    for meld in new_table:
        if is_single(variant, meld):
            continue
        reason = why_invalid(variant, meld)
        if reason:
            return reason
    return _joker_reason(variant, old_table, added, new_table)


def _joker_reason(
    variant: Variant, old_table: Sequence[Sequence[int]], added: Sequence[int], new_table: Sequence[Sequence[int]]
) -> str | None:
    jokers = old_jokers(old_table)
    if not jokers:
        return None
    sources = release_sources(variant, old_table, added)
    new_meaning = Counter(x - JOKER_AS for meld in new_table for x in meld if x >= JOKER_AS)
    old_meaning = Counter(j.meaning for j in jokers)
    for c in sorted(old_meaning):
        must_release = old_meaning[c] - min(old_meaning[c], new_meaning[c])
        if must_release > sources[c]:
            where = "in the hand" if variant.swap_from_hand_only else "in the hand or on the table"
            return (f"the joker standing for {cards.card_str(c)} keeps its meaning: "
                    f"no real {cards.card_str(c)} {where} replaces it")
    reason = None
    for released in release_choices(variant, jokers, sources):
        reason = _identity_reason(variant, old_table, new_table, jokers, released)
        if reason is None:
            return None
    return reason


def _identity_reason(
    variant: Variant,
    old_table: Sequence[Sequence[int]],
    new_table: Sequence[Sequence[int]],
    jokers: Sequence[OldJoker],
    released: frozenset[int],
) -> str | None:
    kept = [j for i, j in enumerate(jokers) if i not in released]
    if variant.joker_meld_frozen:
        new_keys = Counter(_key(variant, m) for m in new_table)
        need = Counter(_key(variant, old_table[m]) for m in sorted({j.meld for j in kept}))
        for key in need:
            if new_keys[key] < need[key]:
                return (f"meld {meld_text(key)} holds a joker and cannot change until the joker is replaced "
                        f"by its real card from the hand")
    if variant.joker_stays_in_meld:
        return _stays_reason(old_table, new_table, kept)
    return None


def _stays_reason(old_table: Sequence[Sequence[int]], new_table: Sequence[Sequence[int]],
                  kept: Sequence[OldJoker]) -> str | None:
    """Each unreleased joker must land in a new meld (one joker slot each) sharing a natural
    card with its old meld; jokers of one meaning are matched to slots by trying every order."""
    by_meaning: dict[int, list[OldJoker]] = {}
    for j in kept:
        by_meaning.setdefault(j.meaning, []).append(j)
    for c, olds in sorted(by_meaning.items()):
        slots = [i for i, m in enumerate(new_table) for x in m if x == JOKER_AS + c]
        ok = False
        for chosen in itertools.permutations(slots, len(olds)):
            if all(set(old_table[j.meld]) & set(new_table[s]) - {x for x in new_table[s] if x >= JOKER_AS}
                   for j, s in zip(olds, chosen, strict=True)):
                ok = True
                break
        if not ok:
            return (f"the joker standing for {cards.card_str(c)} cannot leave its meld "
                    f"{meld_text(old_table[olds[0].meld])} unless its real card replaces it first")
    return None
