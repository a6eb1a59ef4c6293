"""The same meld problem read from the top rank down, for the rank programme's hard proofs.

The rank programme (``dp.py``) goes up the positions, so when the reason a problem has no
arrangement lies at the top (the jacks to the aces need one joker more than there are) it
learns it only after trying every way of laying the low ranks: some 50,000 states. Read
from the top down, the same problem fails within a few hundred. Mirroring sends rank ``r``
(2..13) to ``15 - r`` and keeps the aces (a low ace becomes a high one): runs go to runs,
sets to sets, so the mirrored problem has an arrangement exactly when the problem has; the
ace rule turns over with it (A-2-3 only becomes Q-K-A only).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engine.melds.tablecards import JOKER_AS
from engine.melds.variants import AceRule, Variant

_TURNED: dict[AceRule, AceRule] = {"both": "both", "low": "high", "high": "low"}


def mirror_code(code: int) -> int:
    """Card code ``code`` (0..63) read from the top: ranks 2..13 turn over, the rest stay."""
    rank = code & 15
    return code - rank + (15 - rank) if 2 <= rank <= 13 else code


def mirror_counts(counts: Sequence[int]) -> list[int]:
    """Counts per card code (64 of them), mirrored."""
    return [counts[mirror_code(c)] for c in range(64)]


def mirror_variant(variant: Variant) -> Variant:
    return dataclasses.replace(variant, ace=_TURNED[variant.ace])


def mirror_found(found: tuple[list[list[int]], list[int], int]) -> tuple[list[list[int]], list[int], int]:
    """A solution of the mirrored problem (melds of table ints, optional naturals used per
    code, optional jokers used) turned back: a run read upwards again."""
    melds, opt_used, jokers = found
    back = [[JOKER_AS + mirror_code(x - JOKER_AS) if x >= JOKER_AS else mirror_code(x) for x in reversed(meld)]
            for meld in melds]
    return back, mirror_counts(opt_used), jokers
