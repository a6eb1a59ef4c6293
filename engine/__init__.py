"""Kozyr's pure rules engine: no I/O, no asyncio, no Telegram. See engine/core.py for the contract."""

from engine.core import (
    Game,
    GameError,
    IllegalAction,
    Options,
    OptionsError,
    State,
    all_games,
    get_game,
)

__all__ = ["Game", "GameError", "IllegalAction", "Options", "OptionsError", "State", "all_games", "get_game"]
