"""One log line per game event, for the operator: ids, game and counts only, never names or cards."""

from __future__ import annotations

import logging

log = logging.getLogger("bot.events")


def opened(table_id: int, chat_id: int, game: str) -> None:
    log.info("table %d opened: %s in chat %d", table_id, game, chat_id)


def started(table_id: int, game: str, players: int, ai: int) -> None:
    log.info("table %d started: %s, %d players (%d AI)", table_id, game, players, ai)


def finished(table_id: int, game: str, moves: int) -> None:
    log.info("table %d finished: %s after %d moves", table_id, game, moves)


def cancelled(table_id: int, was_playing: bool) -> None:
    log.info("table %d cancelled %s", table_id, "mid-game" if was_playing else "in the lobby")
