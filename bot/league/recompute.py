"""Rebuild every rating from the stored matches, in match id order (the order they were rated live).

``recompute`` writes the result; ``check`` only compares it with what is stored and returns the
differences (an empty list means the incremental ratings are exactly what the log implies).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from bot.league.ledger import ALL_GAMES, Lookup, Match, Seat, Standing, apply
from bot.store.contract import StoreTx as Tx
from bot.store.queries import LeagueRating

Key = tuple[int, int, str, str, int]  # chat, topic, season, game, player


@dataclass
class Rebuilt:
    standings: dict[Key, Standing] = field(default_factory=dict)
    seats: dict[tuple[int, int], tuple[float | None, float | None, float | None, float | None]] = \
        field(default_factory=dict)  # (match, seat) -> mu, sigma, mu_all, sigma_all
    matches: int = 0


def _lookup(book: dict[tuple[str, int], Standing]) -> Lookup:
    return lambda game, player: book.get((game, player))


async def _matches(tx: Tx, chat_id: int | None) -> list[Match]:
    rows = await tx.league_match_seats(chat_id)
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
    for chat, topic, player in await tx.all_league_excluded():
        excluded.setdefault((chat, topic), set()).add(player)
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
        new = apply(match, excluded.get((match.chat_id, match.topic), nobody), _lookup(book))
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
    diffs: list[str] = []
    stored: dict[Key, LeagueRating] = {(r[0], r[1], r[2], r[3], r[4]): r for r in await tx.league_ratings(chat_id)}
    for key in stored.keys() | rebuilt.standings.keys():
        row, want = stored.get(key), rebuilt.standings.get(key)
        if row is None or want is None or (row[6], row[7], row[8], row[9]) != (
                want.mu, want.sigma, want.games, want.wins):
            diffs.append(f"rating {key}: stored {row}, log implies {want}")
    for match_id, seat, *values in await tx.league_seat_ratings(chat_id):
        want_seat = rebuilt.seats.get((match_id, seat))
        if tuple(values) != want_seat:
            diffs.append(f"seat {match_id}/{seat}: stored {tuple(values)}, log implies {want_seat}")
    return diffs


async def recompute(tx: Tx, chat_id: int | None = None) -> int:
    """Replace the stored ratings of one chat (or all) with a rebuild; returns the matches rated."""
    rebuilt = await rebuild(tx, chat_id)
    await tx.replace_league_ratings(chat_id, [(*key, s.name, s.mu, s.sigma, s.games, s.wins, s.shown)
                                              for key, s in rebuilt.standings.items()])
    await tx.write_seat_ratings([(match_id, seat, *values) for (match_id, seat), values in rebuilt.seats.items()])
    return rebuilt.matches
