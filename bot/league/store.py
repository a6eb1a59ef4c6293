"""The league's reads and writes in its own terms (``Match``, ``Standing``, ``SeasonRule``), on the store's
league queries (bot/store/queries.py): this module holds no SQL, only the conversions, so the league
runs on either store. Everything runs inside the caller's transaction."""

from __future__ import annotations

from typing import Any

from bot.league.ledger import ALL_GAMES, Match, Standing
from bot.league.seasons import SeasonRule
from bot.store.contract import StoreTx as Tx


async def config(tx: Tx, chat_id: int) -> tuple[SeasonRule, bool]:
    """The chat's season rule and whether it keeps a league per forum topic (defaults: monthly, one league)."""
    row = await tx.league_config(chat_id)
    if row is None:
        return SeasonRule(), False
    kind, days, anchor, per_topic = row
    return SeasonRule(kind, days, anchor), per_topic


async def set_config(tx: Tx, chat_id: int, rule: SeasonRule, per_topic: bool) -> None:
    await tx.set_league_config(chat_id, rule.kind, rule.days, rule.anchor, per_topic)


async def excluded(tx: Tx, chat_id: int, topic: int) -> set[int]:
    return await tx.league_excluded(chat_id, topic)


async def set_excluded(tx: Tx, chat_id: int, topic: int, player: int, on: bool) -> bool:
    """Exclude (or include again) a player; False when nothing changed."""
    return await tx.set_league_excluded(chat_id, topic, player, on)


async def log(tx: Tx, chat_id: int, topic: int, at: float, admin_id: int, action: str, target: str,
              reason: str = "") -> None:
    await tx.league_log(chat_id, topic, at, admin_id, action, target, reason)


async def remove_match(tx: Tx, chat_id: int, topic: int, match_id: int, reason: str) -> bool:
    """Mark a match of this league removed (it stays in the log, out of every rating); False if there is none."""
    return await tx.remove_league_match(chat_id, topic, match_id, reason)


async def archive_season(tx: Tx, chat_id: int, topic: int, season: str, at: float) -> bool:
    """Mark a season closed; False when it already was."""
    return await tx.archive_season(chat_id, topic, season, at)


async def insert_match(tx: Tx, table_id: int, match: Match, options: dict[str, Any], record: dict[str, Any],
                       deal_teams: list[list[list[int]]] | None = None) -> int:
    match.id = await tx.insert_league_match(
        table_id, match.chat_id, match.topic, match.season, match.game, match.finished_at, options, match.teams,
        deal_teams or [], record, [(s.seat, s.player, s.name, s.team, s.score, s.place) for s in match.seats])
    return match.id


async def has_match(tx: Tx, table_id: int) -> bool:
    return await tx.has_league_match(table_id)


async def standing(tx: Tx, match: Match, game: str, player: int) -> Standing | None:
    row = await tx.league_standing(match.chat_id, match.topic, match.season, game, player)
    return Standing(*row) if row else None


async def write_standings(tx: Tx, scope: tuple[int, int, str], standings: dict[tuple[str, int], Standing]) -> None:
    chat_id, topic, season = scope
    await tx.write_league_ratings([(chat_id, topic, season, game, player, s.name, s.mu, s.sigma, s.games, s.wins,
                                    s.shown) for (game, player), s in standings.items()])


async def write_seat_ratings(tx: Tx, match: Match, standings: dict[tuple[str, int], Standing]) -> None:
    """Each seat keeps its ratings after the match: the history /stats charts and /top's trend read."""
    rows = []
    for s in match.seats:
        own, overall = standings.get((match.game, s.player)), standings.get((ALL_GAMES, s.player))
        rows.append((match.id, s.seat, own.mu if own else None, own.sigma if own else None,
                     overall.mu if overall else None, overall.sigma if overall else None))
    await tx.write_seat_ratings(rows)
