"""The rummies' action notation: lay-downs as text and back, and small multiset helpers.

See ``engine.rummy.base`` for the notation itself (``lay 7H 8H / 7H-8H-9H | ...``); this module
only turns it into cards and back, so the state, the sampler and tests share one parser.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from engine import melds
from engine.cards import JOKER, CardError, card_str, parse_card, rank_of

LAY = "lay"


class LayError(ValueError):
    """A lay-down that is not legal; the message names the card or meld."""


# -- text ------------------------------------------------------------------------------------------

def meld_str(meld: Sequence[int]) -> str:
    """``7H-8H-JK=9H``."""
    return "-".join(melds.table_card_str(c) for c in meld)


def meld_kind(meld: Sequence[int]) -> str:
    """``set``, ``run`` or (Tahiti) ``single``: Manipulation keeps sets and runs apart on the table."""
    if len(meld) == 1:
        return "single"
    return "set" if len({rank_of(melds.stands_for(x)) for x in meld}) == 1 else "run"


def table_str(table: Sequence[Sequence[int]]) -> list[str]:
    return [meld_str(m) for m in table]


def lay_text(hand: Sequence[int], table: Sequence[Sequence[int]]) -> str:
    """The explicit lay-down action: named cards (sorted), ``/``, the whole new table."""
    words = [card_str(c) for c in sorted(hand)]
    return f"{LAY} {' '.join(words)} / {' | '.join(meld_str(m) for m in table)}"


def parse_lay(action: str) -> tuple[list[int], list[list[int]] | None]:
    """``lay CARDS [/ LAYOUT]`` -> (hand cards, explicit layout or None)."""
    head, slash, tail = action.partition("/")
    words = head.split()
    if not words or words[0] != LAY:
        raise LayError("not a lay-down (lay CARDS [/ LAYOUT])")
    hand: list[int] = []
    for word in words[1:]:
        try:
            card = parse_card(word)
        except CardError:
            raise LayError(f"{word!r} is not a card") from None
        if card > JOKER:
            raise LayError(f"{word!r} is not a rummy card")
        hand.append(card)
    if not slash:
        return hand, None
    layout: list[list[int]] = []
    for part in tail.split("|"):
        meld: list[int] = []
        for word in part.replace("-", " ").split():
            try:
                meld.append(melds.parse_table_card(word))
            except (CardError, ValueError):
                raise LayError(f"{word!r} is not a table card") from None
        if not meld:
            raise LayError("an empty meld in the layout")
        layout.append(meld)
    return hand, layout


def is_lay(action: str) -> bool:
    return action.split()[:1] == [LAY]


def flat(table: Iterable[Sequence[int]]) -> list[int]:
    """Table cards as pack cards: a placed joker counts as the joker it is."""
    return [JOKER if melds.is_placed_joker(c) else c for m in table for c in m]


def missing(have: Sequence[int], want: Sequence[int]) -> int | None:
    """The first card of ``want`` that ``have`` does not hold (as a multiset), or None."""
    left = Counter(have)
    for c in want:
        if left[c] <= 0:
            return c
        left[c] -= 1
    return None
