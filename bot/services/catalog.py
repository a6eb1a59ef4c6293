"""Which of the engine's games the bot can seat today: all of them (issue 16 brought the manipulation
rummies to the chat: bot/rummy/ and bot/services/rummy_turns.py). The seam stays so a family the
chat cannot show yet can be held back with one line.
"""

from __future__ import annotations

from engine.core import Game, GameError, all_games, get_game

FAMILIES_WITHOUT_A_TABLE: frozenset[str] = frozenset()


def table_games() -> list[Game]:
    """The games a chat can open a table for."""
    return [g for g in all_games() if g.family not in FAMILIES_WITHOUT_A_TABLE]


class NoTableYet(GameError):
    """A game the engine knows that the chat cannot seat yet."""


def table_game(game_id: str) -> Game:
    """The game ``game_id`` if the bot can seat it; GameError otherwise (unknown, or no table yet)."""
    game = get_game(game_id)
    if game.family in FAMILIES_WITHOUT_A_TABLE:
        raise NoTableYet(f"{game_id}: no table in the chat yet")
    return game
