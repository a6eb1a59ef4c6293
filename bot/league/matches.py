"""Every finished table becomes a match of its chat's league, rated at once (in the move's transaction).

What counts: a table whose game reached its end (the engine says ``over``). A cancelled or
abandoned table never counts, however far it got: its totals are not a result anyone agreed to.

Sides: seats rated together. Only partnerships fixed for the whole game are teams here (Karusele's
``teams`` option: seats 0+2 against 1+3). Variety's auction partners and Calabrasella's soloist
change every deal and the game's result is each seat's own total, so those games are rated as a
free-for-all of their final totals (each deal's partnership is kept with the match, in ``deal_teams``);
Klaberjass is one against one.

AI seats are players of their own: one synthetic negative id per AI level and per AI seat at the
table (two AI seats of one level at one table cannot be one player in one match), never a human's.
"""

from __future__ import annotations

import logging
from typing import Any

import games
from bot.league import clock
from bot.league import store as db
from bot.league.ledger import ALL_GAMES, Match, Seat, Standing, apply
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from engine.core import State
from engine.record import make_record

log = logging.getLogger(__name__)

AI_LEVELS = ("random",)  # engine/ai: the level every AI seat plays today
AI_SLOTS = 10  # AI seats of one level at one table get ids -(level * AI_SLOTS + ordinal)


def ai_player(level: str, ordinal: int) -> int:
    """The synthetic player id of the ``ordinal``-th (1-based) AI seat of ``level`` at a table."""
    index = AI_LEVELS.index(level) if level in AI_LEVELS else len(AI_LEVELS)
    return -((index + 1) * AI_SLOTS + ordinal)


def is_ai(player: int) -> bool:
    return player < 0


def teams_of(game: str, options: dict[str, Any], n: int) -> list[list[int]]:
    """The seats rated together (see the module docstring): the game's declared partnerships."""
    return games.declaration(game).teams_of(options, n)


def deal_teams(game: str, sheet: dict[str, Any], n: int) -> list[list[list[int]]]:
    """Per deal, the partnerships of games whose partners change every deal (kept with the match, not rated)."""
    return games.declaration(game).deal_teams(sheet, n)


def places(totals: list[int]) -> list[int]:
    """Competition ranking, highest total first; ties share a place: 30, 10, 10, 5 -> 1, 2, 2, 4."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


def build(row: TableRow, seats: list[SeatRow], scores: list[int], topic: int, season: str,
          finished_at: float) -> Match:
    teams = teams_of(row.game, row.options, len(seats))
    team_of = {seat: i for i, team in enumerate(teams) for seat in team}
    team_scores = [max(scores[s] for s in team) for team in teams]
    team_place = places(team_scores)
    match = Match(0, row.chat_id, topic, season, row.game, finished_at, teams)
    ordinal = 0
    for s in seats:
        if s.user_id is None:
            ordinal += 1
            player = ai_player("random", ordinal)
        else:
            player = s.user_id
        team = team_of[s.seat]
        match.seats.append(Seat(s.seat, player, s.name, team, scores[s.seat], team_place[team]))
    return match


async def record_finished(tx: Tx, row: TableRow, seats: list[SeatRow], state: State) -> Match | None:
    """Record a finished table as a match and rate it; a table already recorded is left alone.

    Runs inside the final move's transaction, in a savepoint: should the league fail (a bug, a full
    disk for its tables), its part is undone and logged, and the move itself still commits, so a
    game always finishes.
    """
    if not state.over:
        return None
    await tx.savepoint("league_match")
    try:
        match = await _record(tx, row, seats, state)
    except Exception:
        await tx.rollback_to("league_match")
        log.exception("league: table %s could not be recorded as a match", row.id)
        match = None
    await tx.release("league_match")
    return match


async def _record(tx: Tx, row: TableRow, seats: list[SeatRow], state: State) -> Match | None:
    if await db.has_match(tx, row.id):
        return None
    rule, per_topic = await db.config(tx, row.chat_id)
    now = clock.now()
    topic = row.thread_id if per_topic else 0
    match = build(row, seats, state.scores(), topic, rule.key(now), now)
    record = make_record(state, await tx.actions(row.id), [s.name for s in seats])
    await db.insert_match(tx, row.id, match, row.options, record, deal_teams(row.game, state.sheet(), len(seats)))
    await rate_stored(tx, match)
    return match


async def rate_stored(tx: Tx, match: Match) -> dict[tuple[str, int], Standing]:
    """Rate one stored match against the ratings in the database (the live path)."""
    skip = await db.excluded(tx, match.chat_id, match.topic)
    cache: dict[tuple[str, int], Standing | None] = {}
    for game in (match.game, ALL_GAMES):
        for s in match.seats:
            cache[(game, s.player)] = await db.standing(tx, match, game, s.player)
    new = apply(match, skip, lambda game, player: cache[(game, player)])
    await db.write_standings(tx, (match.chat_id, match.topic, match.season), new)
    await db.write_seat_ratings(tx, match, new)
    return new
