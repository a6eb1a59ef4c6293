"""Which of the engine's games the bot can seat today.

The manipulation rummies are complete in the engine (issue 15) but have no table in the chat yet: their
DM hand (toggle your cards, the solver lays them out) and meld picture come with issue 16. Until then
``/new`` refuses them with a clear line and ``/games`` does not offer them; ``/rules`` still explains them.
"""

from __future__ import annotations

from engine.core import Game, GameError, all_games, get_game

FAMILIES_WITHOUT_A_TABLE = frozenset({"rummy"})


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
