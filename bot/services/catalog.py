"""Which of the engine's games the bot can seat today.

A game whose declaration says ``chat_table=False`` is one the engine plays but the chat cannot seat yet
(say, a game whose DM hand or table picture is not written): ``/new`` refuses it with a clear line and
``/games`` does not offer it; ``/rules`` still explains it.
"""

from __future__ import annotations

import games
from bot.ui.i18n import t
from engine.core import Game, GameError, all_games, get_game


def table_games() -> list[Game]:
    """The games a chat can open a table for (their declarations say ``chat_table``)."""
    return [g for g in all_games() if games.declaration(g.id).chat_table]


class NoTableYet(GameError):
    """A game the engine knows that the chat cannot seat yet."""


def table_game(game_id: str) -> Game:
    """The game ``game_id`` if the bot can seat it; GameError otherwise (unknown, or no table yet)."""
    game = get_game(game_id)
    if not games.declaration(game_id).chat_table:
        raise NoTableYet(f"{game_id}: no table in the chat yet")
    return game


def not_seatable(exc: GameError, shown: str, lang: str) -> str:
    """Why a game named as ``shown`` (escaped already) cannot be opened here (``exc`` from ``table_game``), and the
    games that can: /new and /tournament refuse with the same line."""
    known = ", ".join(g.id for g in table_games())
    if isinstance(exc, NoTableYet):
        return t(lang, "{game} cannot be played in the chat yet (only /rules). Games: {known}", game=shown,
                 known=known)
    return t(lang, "I don't know the game {game}. Games: {known}", game=shown, known=known)
