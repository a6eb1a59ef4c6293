"""The league's SQL (tables in bot/store/migrations/0003_league.sql), run inside the caller's transaction."""

from __future__ import annotations

import json
from typing import Any

from bot.league.ledger import ALL_GAMES, Match, Seat, Standing
from bot.league.seasons import SeasonRule
from bot.store.sqlite import Tx


async def config(tx: Tx, chat_id: int) -> tuple[SeasonRule, bool]:
    """The chat's season rule and whether it keeps a league per forum topic (defaults: monthly, one league)."""
    row = await tx._one("SELECT * FROM league_config WHERE chat_id = ?", chat_id)
    if row is None:
        return SeasonRule(), False
    return SeasonRule(row["season_kind"], row["season_days"], row["anchor"]), bool(row["per_topic"])


async def set_config(tx: Tx, chat_id: int, rule: SeasonRule, per_topic: bool) -> None:
    await tx.db.execute(
        "INSERT INTO league_config(chat_id, season_kind, season_days, anchor, per_topic) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(chat_id) DO UPDATE SET season_kind = excluded.season_kind, season_days = excluded.season_days, "
        "anchor = excluded.anchor, per_topic = excluded.per_topic",
        (chat_id, rule.kind, rule.days, rule.anchor, int(per_topic)))


async def excluded(tx: Tx, chat_id: int, topic: int) -> set[int]:
    rows = await tx._all("SELECT player FROM league_excluded WHERE chat_id = ? AND topic = ?", chat_id, topic)
    return {r["player"] for r in rows}


async def set_excluded(tx: Tx, chat_id: int, topic: int, player: int, on: bool) -> bool:
    """Exclude (or include again) a player; False when nothing changed."""
    if on:
        cur = await tx.db.execute("INSERT OR IGNORE INTO league_excluded(chat_id, topic, player) VALUES (?, ?, ?)",
                                  (chat_id, topic, player))
    else:
        cur = await tx.db.execute("DELETE FROM league_excluded WHERE chat_id = ? AND topic = ? AND player = ?",
                                  (chat_id, topic, player))
    return cur.rowcount == 1


async def log(tx: Tx, chat_id: int, topic: int, at: float, admin_id: int, action: str, target: str,
              reason: str = "") -> None:
    await tx.db.execute("INSERT INTO league_log(chat_id, topic, at, admin_id, action, target, reason) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)", (chat_id, topic, at, admin_id, action, target, reason))


async def remove_match(tx: Tx, chat_id: int, topic: int, match_id: int, reason: str) -> bool:
    """Mark a match of this league removed (it stays in the log, out of every rating); False if there is none."""
    cur = await tx.db.execute("UPDATE league_matches SET removed = 1, removed_reason = ? WHERE id = ? AND chat_id = ? "
                              "AND topic = ? AND removed = 0", (reason, match_id, chat_id, topic))
    return cur.rowcount == 1


async def archive_season(tx: Tx, chat_id: int, topic: int, season: str, at: float) -> bool:
    """Mark a season closed; False when it already was."""
    cur = await tx.db.execute("INSERT OR IGNORE INTO league_seasons(chat_id, topic, season, closed_at) "
                              "VALUES (?, ?, ?, ?)", (chat_id, topic, season, at))
    return cur.rowcount == 1


async def insert_match(tx: Tx, table_id: int, match: Match, options: dict[str, Any], record: dict[str, Any],
                       deal_teams: list[list[list[int]]] | None = None) -> int:
    cur = await tx.db.execute(
        "INSERT INTO league_matches(table_id, chat_id, topic, season, game, finished_at, options, teams, deal_teams, "
        "record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (table_id, match.chat_id, match.topic, match.season, match.game, match.finished_at,
         json.dumps(options, separators=(",", ":")), json.dumps(match.teams, separators=(",", ":")),
         json.dumps(deal_teams or [], separators=(",", ":")),
         json.dumps(record, ensure_ascii=False, separators=(",", ":"))))
    match.id = int(cur.lastrowid or 0)
    await tx.db.executemany(
        "INSERT INTO league_seats(match_id, seat, player, name, team, score, place) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(match.id, s.seat, s.player, s.name, s.team, s.score, s.place) for s in match.seats])
    return match.id


async def has_match(tx: Tx, table_id: int) -> bool:
    return await tx._one("SELECT 1 FROM league_matches WHERE table_id = ?", table_id) is not None


async def standing(tx: Tx, match: Match, game: str, player: int) -> Standing | None:
    row = await tx._one("SELECT name, mu, sigma, games, wins FROM league_ratings WHERE chat_id = ? AND topic = ? "
                        "AND season = ? AND game = ? AND player = ?",
                        match.chat_id, match.topic, match.season, game, player)
    return Standing(row["name"], row["mu"], row["sigma"], row["games"], row["wins"]) if row else None


async def write_standings(tx: Tx, scope: tuple[int, int, str], standings: dict[tuple[str, int], Standing]) -> None:
    chat_id, topic, season = scope
    await tx.db.executemany(
        "INSERT OR REPLACE INTO league_ratings(chat_id, topic, season, game, player, name, mu, sigma, games, wins, "
        "shown) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(chat_id, topic, season, game, player, s.name, s.mu, s.sigma, s.games, s.wins, s.shown)
         for (game, player), s in standings.items()])


async def write_seat_ratings(tx: Tx, match: Match, standings: dict[tuple[str, int], Standing]) -> None:
    """Each seat keeps its ratings after the match: the history /stats charts and /top's trend read."""
    rows = []
    for s in match.seats:
        own, overall = standings.get((match.game, s.player)), standings.get((ALL_GAMES, s.player))
        rows.append((own.mu if own else None, own.sigma if own else None,
                     overall.mu if overall else None, overall.sigma if overall else None, match.id, s.seat))
    await tx.db.executemany("UPDATE league_seats SET mu = ?, sigma = ?, mu_all = ?, sigma_all = ? "
                            "WHERE match_id = ? AND seat = ?", rows)


def match_from_rows(m: Any, seats: list[Any]) -> Match:
    match = Match(m["id"], m["chat_id"], m["topic"], m["season"], m["game"], m["finished_at"], json.loads(m["teams"]))
    match.seats = [Seat(s["seat"], s["player"], s["name"], s["team"], s["score"], s["place"]) for s in seats]
    return match
