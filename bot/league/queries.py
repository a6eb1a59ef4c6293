"""Reading the league: the table with trends, one player's record, head to head, CSV, seasons to close."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bot.league import model
from bot.league.ledger import ALL_GAMES
from bot.store.contract import StoreTx as Tx

WEEK = 7 * 86400.0
USERNAME = re.compile(r"[A-Za-z0-9_]{1,32}")  # what a Telegram @username can be
TOP_ROWS = 20


@dataclass
class Row:
    """One line of /top."""

    rank: int
    player: int
    name: str
    rating: float
    games: int
    wins: int
    provisional: bool
    trend: int  # +1 up since a week ago, -1 down, 0 same; 2 new this week

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


async def top(tx: Tx, chat_id: int, topic: int, season: str, game: str | None, now: float,
              limit: int = TOP_ROWS) -> list[Row]:
    """The best ``limit`` players by conservative rating, with the trend since a week ago."""
    key = game or ALL_GAMES
    out = []
    for i, (player, name, shown, games, wins) in enumerate(await tx.league_top(chat_id, topic, season, key, limit), 1):
        before = await rating_at(tx, chat_id, topic, season, game, player, now - WEEK)
        if before is None:
            trend = 2
        else:
            trend = (shown > before) - (shown < before)
        out.append(Row(i, player, name, shown, games, wins, model.provisional(games), trend))
    return out


async def rating_at(tx: Tx, chat_id: int, topic: int, season: str, game: str | None, player: int,
                    when: float) -> float | None:
    """The player's shown rating after their last match before ``when`` (None: no rated match yet)."""
    row = await tx.league_rating_at(chat_id, topic, season, game, player, when)
    return model.shown(*row) if row else None


@dataclass
class GameStats:
    game: str
    games: int
    wins: int
    avg_place: float
    best_score: int
    rating: float | None  # this season's rating in this game
    provisional: bool
    history: list[float] = field(default_factory=list)  # shown rating after each match this season

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


async def stats(tx: Tx, chat_id: int, topic: int, season: str, player: int, history: int = 40) -> list[GameStats]:
    """Per game, over every season of this league: games, wins, average place, best score; this season's
    rating and its history (the last ``history`` matches)."""
    out = []
    for game, games, wins, avg_place, best in await tx.league_games_of(chat_id, topic, player):
        rating = await tx.league_rating(chat_id, topic, season, game, player)
        points = await tx.league_history(chat_id, topic, season, game, player, history)
        out.append(GameStats(game, games, wins, round(avg_place, 2), best,
                             rating[0] if rating else None,
                             model.provisional(rating[1]) if rating else True,
                             [model.shown(mu, sigma) for mu, sigma in reversed(points)]))
    return out


@dataclass
class HeadToHead:
    meetings: int = 0
    a_ahead: int = 0
    b_ahead: int = 0
    level: int = 0
    per_game: dict[str, list[int]] = field(default_factory=dict)  # game -> [meetings, a ahead, b ahead, level]

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


async def head_to_head(tx: Tx, chat_id: int, topic: int, a: int, b: int) -> HeadToHead:
    """Every match of this league (all seasons) where both played: who finished ahead of whom."""
    out = HeadToHead()
    for game, pa, pb in await tx.league_meetings(chat_id, topic, a, b):
        cell = out.per_game.setdefault(game, [0, 0, 0, 0])
        out.meetings += 1
        cell[0] += 1
        if pa < pb:
            out.a_ahead += 1
            cell[1] += 1
        elif pb < pa:
            out.b_ahead += 1
            cell[2] += 1
        else:
            out.level += 1
            cell[3] += 1
    return out


def safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text starting with = + - @ (or a tab/CR) gets a leading '."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


async def export_csv(tx: Tx, chat_id: int, topic: int) -> bytes:
    """Every match of the league, one line per seat (no cards: the record stays out of the export)."""
    rows = await tx.league_export(chat_id, topic)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["match", "finished_utc", "season", "game", "table", "removed", "removed_reason", "seat",
                     "player_id", "name", "team", "score", "place", "mu", "sigma", "rating"])
    for (match_id, finished_at, season, game, table_id, removed, reason, seat, player, name, team, score, place,
         mu, sigma) in rows:
        when = datetime.fromtimestamp(finished_at, UTC).strftime("%Y-%m-%d %H:%M:%S")
        rating = model.shown(mu, sigma) if mu is not None else ""
        writer.writerow([safe_cell(v) for v in (
            match_id, when, season, game, table_id, removed, reason or "", seat, player, name, team, score, place,
            "" if mu is None else repr(mu), "" if sigma is None else repr(sigma), rating)])
    return ("\ufeff" + buf.getvalue()).encode("utf-8")  # the BOM makes spreadsheets read Cyrillic right


async def open_seasons(tx: Tx) -> list[tuple[int, int, str]]:
    """(chat, topic, season) of every season with matches that is not archived yet."""
    return await tx.league_open_seasons()


async def seasons(tx: Tx, chat_id: int, topic: int) -> list[str]:
    return await tx.league_seasons(chat_id, topic)


async def find_player(tx: Tx, chat_id: int, topic: int, username: str) -> tuple[int, str] | None:
    """A player by @username (the bot's users table), or by the name they play under in this league.
    Only text shaped like a Telegram username (A-Z a-z 0-9 _, up to 32) is looked up: PostgreSQL refuses
    a NUL in a query's text, and nothing longer can match."""
    found = await tx.user_by_username(username) if USERNAME.fullmatch(username) else None
    if found is not None:
        return found
    # SQLite's lower() knows only ASCII: compare names case-insensitively here (Cyrillic too).
    wanted = " ".join(username.split()).casefold()
    for player, name in await tx.league_names(chat_id, topic):
        if " ".join(name.split()).casefold() == wanted:
            return player, name
    return None


async def recent_matches(tx: Tx, chat_id: int, topic: int, limit: int = 10) -> list[dict[str, Any]]:
    return await tx.league_recent(chat_id, topic, limit)
