"""Random table positions for the solver's benchmark and tests (never used in play).

``random_table`` lays random valid melds from a shuffled pack of the variant's (``Variant.pack``; in Tahiti
also up to four loose face-up singles, as play leaves them);
``random_position`` adds cards to it in one of three ways: ``random`` (any cards left in the
deck: mostly no arrangement, often only after a whole-table search proves it), ``feasible``
(cards cut from a table that is then rearranged: the cards always make valid melds, but the
joker rules may refuse the move: in Tahiti about one in ten, as cutting or reshaping a meld
that holds a joker breaks the rule that it stays as it is; such a position is kept, a refusal
the solver must prove) and ``near`` (a feasible position with one added card swapped for a
random one: barely (in)feasible).
"""

from __future__ import annotations

import random
from collections import Counter

from engine import cards
from engine.melds.tablecards import JOKER_AS
from engine.melds.validate import normalise, why_invalid
from engine.melds.variants import Variant


def _card_at(pos: int, suit: int) -> int:
    return cards.make(14 if pos == 1 else pos, suit)


def _random_meld(variant: Variant, rng: random.Random, pool: Counter[int], max_len: int = 6) -> list[int] | None:
    cap = variant.max_jokers_per_meld if variant.max_jokers_per_meld is not None else 2
    if rng.random() < 0.6:
        positions = list(variant.positions())
        length = rng.randint(variant.min_meld, max_len)
        start = rng.randint(0, len(positions) - length)
        want = [_card_at(p, rng.randrange(4)) for p in positions[start:start + length]]
        suit = cards.suit_of(want[0])
        want = [_card_at(p, suit) for p in positions[start:start + length]]
        if positions[start] == 1 and positions[start + length - 1] == 14:
            return None
    else:
        rank = rng.randint(2, 14)
        size = rng.randint(variant.min_meld, variant.max_set)
        want = [cards.make(rank, s) for s in sorted(rng.sample(range(4), size))]
    meld: list[int] = []
    used: Counter[int] = Counter()
    jokers = 0
    for c in want:
        if pool[c] - used[c] > 0 and not (variant.jokers_allowed and jokers < cap and rng.random() < 0.05
                                         and pool[cards.JOKER] - used[cards.JOKER] > 0):
            used[c] += 1
            meld.append(c)
        elif variant.jokers_allowed and jokers < cap and pool[cards.JOKER] - used[cards.JOKER] > 0:
            used[cards.JOKER] += 1
            jokers += 1
            meld.append(JOKER_AS + c)
        else:
            return None
    if why_invalid(variant, meld):
        return None
    pool.subtract(used)
    return normalise(variant, meld)


def random_table(variant: Variant, rng: random.Random, target: int) -> tuple[list[list[int]], list[int]]:
    """Valid melds of about ``target`` cards from a shuffled deck, and the cards left."""
    deck = cards.deck(variant.pack)
    pool = Counter(deck)
    table: list[list[int]] = []
    size = tries = 0
    while size < target and tries < 2000:
        tries += 1
        meld = _random_meld(variant, rng, pool)
        if meld and size + len(meld) <= target + 2:
            table.append(meld)
            size += len(meld)
    rest = sorted(pool.elements())
    rng.shuffle(rest)
    if variant.table_singles:
        # Tahiti: of the four face-up singles dealt to the table (never a joker), 0..4 are
        # still loose in mid-game; they lie on the table as one-card "melds"
        naturals = [c for c in rest if c != cards.JOKER]
        singles = naturals[:rng.randint(0, 4)]
        for c in singles:
            rest.remove(c)
        table += [[c] for c in singles]
    return table, rest


def random_position(variant: Variant, rng: random.Random, table_cards: int, added: int,
                    kind: str) -> tuple[list[list[int]], list[int]]:
    """(old table, added cards) of the given ``kind`` (see the module docstring)."""
    if kind == "random":
        table, rest = random_table(variant, rng, table_cards)
        return table, rest[:added]
    full, rest = random_table(variant, rng, table_cards + added)
    # cut whole melds and run ends off the full table: what is cut is the "added" hand part
    order = list(range(len(full)))
    rng.shuffle(order)
    cut: list[int] = []
    old: list[list[int]] = []
    for i in order:
        meld = list(full[i])
        if len(cut) + len(meld) <= added and rng.random() < 0.3:
            cut += meld
            continue
        while len(cut) < added and len(meld) > variant.min_meld and rng.random() < 0.5:
            cut.append(meld.pop(rng.choice([0, -1])) if _is_run(meld) else meld.pop())
        old.append(meld)
    hand = [cards.JOKER if x >= JOKER_AS else x for x in cut]
    old = _reshuffle(variant, rng, old)
    if kind == "near" and hand:
        hand[rng.randrange(len(hand))] = rest[0] if rest else hand[0]
    return old, hand


def _is_run(meld: list[int]) -> bool:
    ranks = {cards.rank_of(x % JOKER_AS) for x in meld}
    return len(ranks) > 1


def _reshuffle(variant: Variant, rng: random.Random, table: list[list[int]]) -> list[list[int]]:
    """Split long runs and merge adjacent runs so the old table is not the full table's shape."""
    out: list[list[int]] = []
    for meld in table:
        if _is_run(meld) and len(meld) >= 2 * variant.min_meld and rng.random() < 0.5:
            k = rng.randint(variant.min_meld, len(meld) - variant.min_meld)
            out += [meld[:k], meld[k:]]
        else:
            out.append(meld)
    return out
