"""The manipulation rummies at the table (issue 16): the DM toggle hand, the lay-down proposal, the
table and score pictures, and the words. Self-contained so the games' presentation layer can delegate
to it; the services part is bot/services/rummy_turns.py.
"""

from __future__ import annotations

RUMMIES = frozenset({"carousel", "machiavelli", "tahiti", "guadalupe", "vatican", "shanghai", "manipulation"})


def is_rummy(game: str) -> bool:
    return game in RUMMIES
