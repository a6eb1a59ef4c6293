"""The sample of lay-downs ``legal_actions`` lists for the rummies (mixed into ``RummyState``).

A hand usually allows far too many lay-downs to list, so the state lists a bounded,
deterministic sample in the explicit form: new 3-card runs and 3-4-card sets from the hand
(Tahiti: with loose table singles), pairs completed by a hand joker, single cards added at an
end of a table meld, then (when few were found) one hand card tried with the solver, which may
rearrange the table; and, when a rule must know for sure whether any lay-down exists (must-meld
games, a pass with the stock out), the solver's best subset. Every candidate is checked with
``engine.melds.check_layout`` and the game's own rule before it is listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

from engine import melds
from engine.cards import JOKER, rank_of, suit_of
from engine.rummy.notation import lay_text

ACE = 14


@lru_cache(maxsize=2048)
def best_subset(variant: melds.Variant, table: tuple[tuple[int, ...], ...], hand: tuple[int, ...]) -> tuple[int, ...]:
    """``melds.best_subset``, remembered: a pure function, asked again for the same position when
    a game is replayed or checked (a must-meld ``draw`` is legal only when nothing goes down)."""
    return tuple(melds.best_subset(variant, [list(m) for m in table], list(hand)))


class LaySampler:
    """Methods of ``RummyState`` that build its sample of lay-downs (they use its table, hands,
    variant and hooks: ``_lay_rule``, ``_may_add_singly``, ``_needs_exact_ability``)."""

    turn: int | None
    hands: list[list[int]]
    table: list[list[int]]
    LAY_SAMPLE: ClassVar[int] = 10  # lay-downs listed at most
    SOLVER_TRIES: ClassVar[int] = 1  # hand cards tried one by one with the solver for the sample

    if TYPE_CHECKING:  # what RummyState provides (declared for the type checker only: no stub may shadow it)
        @property
        def variant(self) -> melds.Variant: ...
        def _lay_rule(self, seat: int, hand_cards: list[int], layout: list[list[int]]) -> str | None: ...
        def _may_add_singly(self, seat: int) -> bool: ...
        def _needs_exact_ability(self) -> bool: ...
        def _normalised(self, table: Sequence[Sequence[int]]) -> list[list[int]]: ...

    def _pool(self, seat: int) -> list[tuple[int, bool]]:
        """Cards a new meld may use: (card, from_hand); Tahiti's loose singles after the hand."""
        singles = [m[0] for m in self.table if len(m) == 1]
        return [(c, True) for c in self.hands[seat]] + [(c, False) for c in singles]

    def lay_samples(self) -> list[str]:
        """A bounded, deterministic sample of legal lay-downs (explicit form); exact about
        whether one exists when the game needs it (``_needs_exact_ability``)."""
        seat = self.turn
        assert seat is not None
        out: list[str] = []
        seen: set[str] = set()
        tried_cards: set[int] = set()

        def offer(hand_cards: list[int], table: list[list[int]]) -> None:
            if len(out) >= self.LAY_SAMPLE:
                return
            if melds.check_layout(self.variant, self.table, hand_cards, table) is not None:
                return
            if self._lay_rule(seat, hand_cards, table) is not None:
                return
            text = lay_text(hand_cards, self._normalised(table))
            if text not in seen:
                seen.add(text)
                out.append(text)
                tried_cards.update(hand_cards)

        for meld, used in self._hand_melds(self._pool(seat)):
            hand_cards = [c for c, h in used if h]
            if not hand_cards:
                continue
            table = [list(m) for m in self.table]
            for c, h in used:
                if not h:
                    table.remove([c])  # a Tahiti single joins the new meld
            offer(hand_cards, [*table, meld])
        for i, new_meld, card, from_hand in self._additions(self._pool(seat)):
            if from_hand:
                offer([card], [*self.table[:i], new_meld, *self.table[i + 1:]])
        if self.table and self._may_add_singly(seat) and len(out) < 3:  # few easy ones: ask the solver
            tries = 0
            for c in sorted(set(self.hands[seat])):
                if tries >= self.SOLVER_TRIES or len(out) >= self.LAY_SAMPLE:
                    break
                if c in tried_cards:
                    continue
                tries += 1
                solution = melds.solve(self.variant, self.table, [c])
                if solution is not None:
                    offer([c], [list(m) for m in solution.table])
        if not out and self._needs_exact_ability() and self._may_add_singly(seat):
            # Nothing easy: the solver decides whether any lay-down exists. (Before Vatican's
            # opening, the new 3-card runs listed above are already every possible opening.)
            best = list(best_subset(self.variant, tuple(map(tuple, self.table)), tuple(sorted(self.hands[seat]))))
            if best:
                solution = melds.solve(self.variant, self.table, best)
                assert solution is not None, "best_subset answered a subset the solver cannot lay"
                offer(list(best), [list(m) for m in solution.table])
                assert out, "the solver's best lay-down was refused by the game's own rules"
        return out

    def _hand_melds(self, pool: list[tuple[int, bool]]) -> list[tuple[list[int], list[tuple[int, bool]]]]:
        """New 3-card (and 4-card set) melds from the pool, and pairs completed by a hand joker."""
        variant = self.variant
        found: list[tuple[list[int], list[tuple[int, bool]]]] = []
        by_card: dict[int, tuple[int, bool]] = {}
        for c, h in pool:
            if c != JOKER and (c not in by_card or h and not by_card[c][1]):
                by_card[c] = (c, h)
        joker = next(((c, h) for c, h in pool if c == JOKER and h), None)
        real = sorted(by_card)
        for s in range(4):
            ranks = {rank_of(c) for c in real if suit_of(c) == s}
            if ACE in ranks:
                ranks.add(1)
            for r in sorted(ranks):
                seq = [r, r + 1, r + 2]
                if all(x in ranks for x in seq):
                    cards = [s * 16 + (ACE if x == 1 else x) for x in seq]
                    if melds.is_valid(variant, cards):
                        found.append((cards, [by_card[c] for c in cards]))
        for r in range(2, ACE + 1):
            cards = [c for c in real if rank_of(c) == r]
            for size in (4, 3):
                if len(cards) >= size and melds.is_valid(variant, cards[:size]):
                    found.append((cards[:size], [by_card[c] for c in cards[:size]]))
                    break
        if joker is not None and variant.jokers_allowed:
            for a in real:
                for b in real:
                    if b <= a:
                        continue
                    for meld in _joker_completions(a, b):
                        if melds.is_valid(variant, meld):
                            found.append((meld, [by_card[a], by_card[b], joker]))
                            break
                if len(found) > 3 * self.LAY_SAMPLE:
                    break
        return found

    def _additions(self, pool: list[tuple[int, bool]]) -> list[tuple[int, list[int], int, bool]]:
        """One pool card added at an end of a table meld: (meld index, new meld, card, from hand)."""
        variant = self.variant
        out: list[tuple[int, list[int], int, bool]] = []
        for i, meld in enumerate(self.table):
            meaning = [melds.stands_for(x) for x in meld]
            suits = {suit_of(x) for x in meaning}
            for c, h in dict.fromkeys(pool):
                if c == JOKER:
                    for x in _joker_ends(meaning):
                        for cand in ([*meld, melds.placed_joker(x)], [melds.placed_joker(x), *meld]):
                            if melds.is_valid(variant, cand):
                                out.append((i, cand, c, h))
                                break
                    continue
                if suit_of(c) not in suits and rank_of(c) != rank_of(meaning[0]):
                    continue
                for cand in ([*meld, c], [c, *meld]):
                    if melds.is_valid(variant, cand):
                        out.append((i, cand, c, h))
                        break
        return out


def _joker_completions(a: int, b: int) -> list[list[int]]:
    """Three-card melds of real cards ``a`` < ``b`` and a joker standing for the missing card
    (candidates only: ``melds.is_valid`` decides, e.g. about aces)."""
    pj = melds.placed_joker
    ra, rb = rank_of(a), rank_of(b)
    if suit_of(a) == suit_of(b):
        s = suit_of(a) * 16
        out = []
        if rb - ra == 1:
            if rb < ACE:
                out.append([a, b, pj(s + rb + 1)])
            if ra > 2:
                out.append([pj(s + ra - 1), a, b])
            elif ra == 2:
                out.append([pj(s + ACE), a, b])
        elif rb - ra == 2:
            out.append([a, pj(s + ra + 1), b])
        elif rb == ACE and ra == 2:
            out.append([b, a, pj(s + 3)])
        elif rb == ACE and ra == 3:
            out.append([b, pj(s + 2), a])
        return out
    if ra == rb:
        other = [s for s in range(4) if s not in (suit_of(a), suit_of(b))]
        return [[a, b, pj(other[0] * 16 + ra)]]
    return []


def _joker_ends(meaning: list[int]) -> list[int]:
    """Cards a joker could stand for at an end of a meld (runs) or as a missing suit (sets)."""
    suits = {suit_of(x) for x in meaning}
    ranks = [rank_of(x) for x in meaning]
    if len(suits) == 1 and len(set(ranks)) == len(ranks):
        s = suit_of(meaning[0])
        lo, hi = ranks[0], ranks[-1]
        out = []
        if hi < ACE:
            out.append(s * 16 + hi + 1)
        if lo > 2:
            out.append(s * 16 + lo - 1)
        elif lo == 2:
            out.append(s * 16 + ACE)
        return out
    if len(set(ranks)) == 1:
        return [s * 16 + ranks[0] for s in range(4) if s not in suits]
    return []
