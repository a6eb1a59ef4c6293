"""Reading the league: the table with trends, one player's record, head to head, CSV, seasons to close."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bot.league import model
from bot.league.ledger import ALL_GAMES
from bot.store.sqlite import Tx

WEEK = 7 * 86400.0
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
    rows = await tx._all(
        "SELECT player, name, mu, sigma, games, wins, shown FROM league_ratings WHERE chat_id = ? AND topic = ? "
        "AND season = ? AND game = ? ORDER BY shown DESC, games DESC, player LIMIT ?",
        chat_id, topic, season, key, limit)
    out = []
    for i, r in enumerate(rows, 1):
        before = await rating_at(tx, chat_id, topic, season, game, r["player"], now - WEEK)
        if before is None:
            trend = 2
        else:
            trend = (r["shown"] > before) - (r["shown"] < before)
        out.append(Row(i, r["player"], r["name"], r["shown"], r["games"], r["wins"], model.provisional(r["games"]),
                       trend))
    return out


async def rating_at(tx: Tx, chat_id: int, topic: int, season: str, game: str | None, player: int,
                    when: float) -> float | None:
    """The player's shown rating after their last match before ``when`` (None: no rated match yet)."""
    mu, sigma = ("s.mu", "s.sigma") if game else ("s.mu_all", "s.sigma_all")
    row = await tx._one(
        f"SELECT {mu} AS mu, {sigma} AS sigma FROM league_seats s JOIN league_matches m ON m.id = s.match_id "
        f"WHERE s.player = ? AND m.chat_id = ? AND m.topic = ? AND m.season = ? AND m.finished_at < ? "
        f"AND m.removed = 0 AND {mu} IS NOT NULL" + (" AND m.game = ?" if game else "") +
        " ORDER BY s.match_id DESC LIMIT 1",
        player, chat_id, topic, season, when, *([game] if game else []))
    return model.shown(row["mu"], row["sigma"]) if row else None


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
    rows = await tx._all(
        "SELECT m.game, COUNT(*) AS games, SUM(s.place = 1) AS wins, AVG(s.place) AS avg_place, "
        "MAX(s.score) AS best FROM league_seats s JOIN league_matches m ON m.id = s.match_id "
        "WHERE s.player = ? AND m.chat_id = ? AND m.topic = ? AND m.removed = 0 GROUP BY m.game "
        "ORDER BY games DESC, m.game", player, chat_id, topic)
    out = []
    for r in rows:
        rating = await tx._one("SELECT shown, games FROM league_ratings WHERE chat_id = ? AND topic = ? AND "
                               "season = ? AND game = ? AND player = ?", chat_id, topic, season, r["game"], player)
        points = await tx._all(
            "SELECT s.mu, s.sigma FROM league_seats s JOIN league_matches m ON m.id = s.match_id WHERE s.player = ? "
            "AND m.chat_id = ? AND m.topic = ? AND m.season = ? AND m.game = ? AND m.removed = 0 "
            "AND s.mu IS NOT NULL ORDER BY s.match_id DESC LIMIT ?", player, chat_id, topic, season, r["game"], history)
        out.append(GameStats(r["game"], r["games"], r["wins"], round(r["avg_place"], 2), r["best"],
                             rating["shown"] if rating else None,
                             model.provisional(rating["games"]) if rating else True,
                             [model.shown(p["mu"], p["sigma"]) for p in reversed(points)]))
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
    rows = await tx._all(
        "SELECT m.game, sa.place AS pa, sb.place AS pb FROM league_seats sa "
        "JOIN league_seats sb ON sb.match_id = sa.match_id AND sb.player = ? "
        "JOIN league_matches m ON m.id = sa.match_id "
        "WHERE sa.player = ? AND m.chat_id = ? AND m.topic = ? AND m.removed = 0 ORDER BY m.id", b, a, chat_id, topic)
    out = HeadToHead()
    for r in rows:
        cell = out.per_game.setdefault(r["game"], [0, 0, 0, 0])
        out.meetings += 1
        cell[0] += 1
        if r["pa"] < r["pb"]:
            out.a_ahead += 1
            cell[1] += 1
        elif r["pb"] < r["pa"]:
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
    rows = await tx._all(
        "SELECT m.id, m.finished_at, m.season, m.game, m.table_id, m.removed, m.removed_reason, s.seat, s.player, "
        "s.name, s.team, s.score, s.place, s.mu, s.sigma FROM league_matches m JOIN league_seats s "
        "ON s.match_id = m.id WHERE m.chat_id = ? AND m.topic = ? ORDER BY m.id, s.seat", chat_id, topic)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["match", "finished_utc", "season", "game", "table", "removed", "removed_reason", "seat",
                     "player_id", "name", "team", "score", "place", "mu", "sigma", "rating"])
    for r in rows:
        when = datetime.fromtimestamp(r["finished_at"], UTC).strftime("%Y-%m-%d %H:%M:%S")
        rating = model.shown(r["mu"], r["sigma"]) if r["mu"] is not None else ""
        writer.writerow([safe_cell(v) for v in (
            r["id"], when, r["season"], r["game"], r["table_id"], r["removed"], r["removed_reason"] or "", r["seat"],
            r["player"], r["name"], r["team"], r["score"], r["place"],
            "" if r["mu"] is None else repr(r["mu"]), "" if r["sigma"] is None else repr(r["sigma"]), rating)])
    return ("\ufeff" + buf.getvalue()).encode("utf-8")  # the BOM makes spreadsheets read Cyrillic right


async def open_seasons(tx: Tx) -> list[tuple[int, int, str]]:
    """(chat, topic, season) of every season with matches that is not archived yet."""
    rows = await tx._all(
        "SELECT DISTINCT m.chat_id, m.topic, m.season FROM league_matches m LEFT JOIN league_seasons z "
        "ON z.chat_id = m.chat_id AND z.topic = m.topic AND z.season = m.season WHERE z.season IS NULL")
    return [(r["chat_id"], r["topic"], r["season"]) for r in rows]


async def seasons(tx: Tx, chat_id: int, topic: int) -> list[str]:
    rows = await tx._all("SELECT DISTINCT season FROM league_matches WHERE chat_id = ? AND topic = ? "
                         "ORDER BY season DESC", chat_id, topic)
    return [r["season"] for r in rows]


async def find_player(tx: Tx, chat_id: int, topic: int, username: str) -> tuple[int, str] | None:
    """A player by @username (the bot's users table), or by the name they play under in this league."""
    row = await tx._one("SELECT user_id, first_name FROM users WHERE lower(username) = lower(?)", username)
    if row is not None:
        return row["user_id"], row["first_name"]
    # SQLite's lower() knows only ASCII: compare names case-insensitively here (Cyrillic too).
    wanted = " ".join(username.split()).casefold()
    rows = await tx._all(
        "SELECT s.player, s.name, MAX(s.match_id) AS last FROM league_seats s JOIN league_matches m "
        "ON m.id = s.match_id WHERE m.chat_id = ? AND m.topic = ? GROUP BY s.player, s.name ORDER BY last DESC",
        chat_id, topic)
    for r in rows:
        if " ".join(r["name"].split()).casefold() == wanted:
            return r["player"], r["name"]
    return None


async def recent_matches(tx: Tx, chat_id: int, topic: int, limit: int = 10) -> list[dict[str, Any]]:
    rows = await tx._all(
        "SELECT m.id, m.game, m.finished_at, m.removed, group_concat(s.name || ' ' || s.score, ', ') AS who "
        "FROM league_matches m JOIN league_seats s ON s.match_id = m.id WHERE m.chat_id = ? AND m.topic = ? "
        "GROUP BY m.id ORDER BY m.id DESC LIMIT ?", chat_id, topic, limit)
    return [dict(r) for r in rows]
