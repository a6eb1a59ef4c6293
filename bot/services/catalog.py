"""Which of the engine's games the bot can seat: those whose declaration says ``chat_table``
(``games/<id>/__init__.py``). Since issue 16 that is every game (the rummies: bot/rummy/ and
bot/services/rummy_turns.py); a game the chat cannot show yet is held back by its declaration.
"""

from __future__ import annotations

from engine.core import Game, GameError, all_games, get_game
from games import declaration


def _seated(game: Game) -> bool:
    return declaration(game.id).chat_table


def table_games() -> list[Game]:
    """The games a chat can open a table for."""
    return [g for g in all_games() if _seated(g)]


class NoTableYet(GameError):
    """A game the engine knows that the chat cannot seat yet."""


def table_game(game_id: str) -> Game:
    """The game ``game_id`` if the bot can seat it; GameError otherwise (unknown, or no table yet)."""
    game = get_game(game_id)
    if not _seated(game):
        raise NoTableYet(f"{game_id}: no table in the chat yet")
    return game
