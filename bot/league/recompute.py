"""Rebuild every rating from the stored matches, in match id order (the order they were rated live).

``recompute`` writes the result; ``check`` only compares it with what is stored and returns the
differences (an empty list means the incremental ratings are exactly what the log implies).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import Any

from bot.league.ledger import ALL_GAMES, Match, Seat, Standing, apply
from bot.store.sqlite import Tx

Key = tuple[int, int, str, str, int]  # chat, topic, season, game, player


@dataclass
class Rebuilt:
    standings: dict[Key, Standing] = field(default_factory=dict)
    seats: dict[tuple[int, int], tuple[float | None, float | None, float | None, float | None]] = \
        field(default_factory=dict)  # (match, seat) -> mu, sigma, mu_all, sigma_all
    matches: int = 0


async def _tuples(tx: Tx, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows as plain tuples: a rebuild reads every seat of every match, and sqlite3.Row costs twice the time."""
    cur = await tx.db.execute(sql, args)
    cur.row_factory = None
    rows = cur.fetchall()
    return list(await rows) if inspect.isawaitable(rows) else rows  # aiosqlite's fetchall is a coroutine


async def _matches(tx: Tx, chat_id: int | None) -> list[Match]:
    where, args = ("WHERE m.chat_id = ?", [chat_id]) if chat_id is not None else ("", [])
    rows = await _tuples(
        tx, "SELECT m.id, m.chat_id, m.topic, m.season, m.game, m.finished_at, m.teams, m.removed, s.seat, s.player, "
        f"s.name, s.team, s.score, s.place FROM league_matches m JOIN league_seats s ON s.match_id = m.id {where} "
        "ORDER BY m.id, s.seat", *args)
    out: list[Match] = []
    last = None
    for match_id, chat, topic, season, game, at, teams, removed, *seat in rows:
        if match_id != last:
            last = match_id
            out.append(Match(match_id, chat, topic, season, game, at, json.loads(teams), removed=bool(removed)))
        out[-1].seats.append(Seat(*seat))
    return out


async def rebuild(tx: Tx, chat_id: int | None = None) -> Rebuilt:
    """Every rating of one chat (or of all chats) as the log implies, in memory."""
    excluded: dict[tuple[int, int], set[int]] = {}
    for r in await tx._all("SELECT chat_id, topic, player FROM league_excluded"):
        excluded.setdefault((r["chat_id"], r["topic"]), set()).add(r["player"])
    out = Rebuilt()
    books: dict[tuple[int, int, str], dict[tuple[str, int], Standing]] = {}
    nobody: set[int] = set()
    for match in await _matches(tx, chat_id):
        if match.removed:
            for s in match.seats:
                out.seats[(match.id, s.seat)] = (None, None, None, None)
            continue
        scope = (match.chat_id, match.topic, match.season)
        book = books.setdefault(scope, {})
        new = apply(match, excluded.get((match.chat_id, match.topic), nobody), lambda game, player, b=book:
                    b.get((game, player)))
        book.update(new)
        for s in match.seats:
            own, overall = new.get((match.game, s.player)), new.get((ALL_GAMES, s.player))
            out.seats[(match.id, s.seat)] = (own.mu if own else None, own.sigma if own else None,
                                             overall.mu if overall else None, overall.sigma if overall else None)
        out.matches += 1
    for scope, book in books.items():
        for (game, player), standing in book.items():
            out.standings[(*scope, game, player)] = standing
    return out


async def check(tx: Tx, chat_id: int | None = None) -> list[str]:
    """The stored values that differ from a rebuild (exact float comparison); empty when none do."""
    rebuilt = await rebuild(tx, chat_id)
    where, args = ("WHERE chat_id = ?", [chat_id]) if chat_id is not None else ("", [])
    diffs: list[str] = []
    stored: dict[Key, Any] = {}
    for r in await tx._all(f"SELECT * FROM league_ratings {where}", *args):
        stored[(r["chat_id"], r["topic"], r["season"], r["game"], r["player"])] = r
    for key in stored.keys() | rebuilt.standings.keys():
        row, want = stored.get(key), rebuilt.standings.get(key)
        if row is None or want is None or (row["mu"], row["sigma"], row["games"], row["wins"]) != (
                want.mu, want.sigma, want.games, want.wins):
            diffs.append(f"rating {key}: stored {tuple(row) if row else None}, log implies {want}")
    join = "JOIN league_matches m ON m.id = s.match_id " + ("WHERE m.chat_id = ?" if chat_id is not None else "")
    for r in await tx._all(f"SELECT s.match_id, s.seat, s.mu, s.sigma, s.mu_all, s.sigma_all FROM league_seats s "
                           f"{join}", *args):
        want_seat = rebuilt.seats.get((r["match_id"], r["seat"]))
        if (r["mu"], r["sigma"], r["mu_all"], r["sigma_all"]) != want_seat:
            diffs.append(f"seat {r['match_id']}/{r['seat']}: stored {tuple(r)[2:]}, log implies {want_seat}")
    return diffs


async def recompute(tx: Tx, chat_id: int | None = None) -> int:
    """Replace the stored ratings of one chat (or all) with a rebuild; returns the matches rated."""
    rebuilt = await rebuild(tx, chat_id)
    where, args = ("WHERE chat_id = ?", (chat_id,)) if chat_id is not None else ("", ())
    await tx.db.execute(f"DELETE FROM league_ratings {where}", args)
    await tx.db.executemany(
        "INSERT INTO league_ratings(chat_id, topic, season, game, player, name, mu, sigma, games, wins, shown) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(*key, s.name, s.mu, s.sigma, s.games, s.wins, s.shown) for key, s in rebuilt.standings.items()])
    await tx.db.executemany("UPDATE league_seats SET mu = ?, sigma = ?, mu_all = ?, sigma_all = ? "
                            "WHERE match_id = ? AND seat = ?",
                            [(*values, match_id, seat) for (match_id, seat), values in rebuilt.seats.items()])
    return rebuilt.matches
