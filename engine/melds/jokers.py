"""The joker rules of a table move, shared by the layout checker and the solver.

A joker on the table keeps the card it stands for until it is *released*: a real card of
that meaning replaces it (from the hand, or also from the table unless the variant says hand
only). A released joker may take any meaning in the same move (it never goes to a hand:
the new table holds every old table card). Releasing never hurts a solution, so at most
``min(jokers standing for c, real c available)`` jokers of meaning ``c`` are released.
Which of several jokers of one meaning are released matters only in Tahiti (a meld holding an
unreleased joker is frozen) and Vatican (an unreleased joker stays in its meld), so only then
are the choices enumerated.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.melds.tablecards import JOKER_AS
from engine.melds.variants import Variant


@dataclass(frozen=True)
class OldJoker:
    meaning: int
    meld: int  # index of its meld in the old table


def old_jokers(table: Sequence[Sequence[int]]) -> list[OldJoker]:
    return [OldJoker(x - JOKER_AS, i) for i, meld in enumerate(table) for x in meld if x >= JOKER_AS]


def release_sources(variant: Variant, table: Sequence[Sequence[int]], added: Sequence[int]) -> Counter[int]:
    """How many real cards of each code may replace a joker in this move."""
    src = Counter(c for c in added if c < 64)
    if not variant.swap_from_hand_only:
        src.update(x for meld in table for x in meld if x < 64)
    return src


def identity_matters(variant: Variant) -> bool:
    return variant.joker_meld_frozen or variant.joker_stays_in_meld


def release_choices(variant: Variant, jokers: Sequence[OldJoker], sources: Counter[int]) -> Iterator[frozenset[int]]:
    """Sets of indices (into ``jokers``) released, most released first; one choice when which
    joker of a meaning is released does not matter."""
    by_meaning: dict[int, list[int]] = {}
    for i, j in enumerate(jokers):
        by_meaning.setdefault(j.meaning, []).append(i)
    per_meaning = []
    for meaning in sorted(by_meaning):
        idx = by_meaning[meaning]
        k = min(len(idx), sources[meaning])
        if identity_matters(variant):
            per_meaning.append(list(itertools.combinations(idx, k)))
        else:
            per_meaning.append([tuple(idx[:k])])
    for combo in itertools.product(*per_meaning):
        yield frozenset(i for part in combo for i in part)
