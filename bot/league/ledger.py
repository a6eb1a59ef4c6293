"""Applying one match to the ratings: the one function both the live path and recompute use.

Keeping it pure (ratings in, ratings out) is what makes "recompute from the log reproduces the
stored values exactly" true by construction: the same floats go through the same operations in
the same order (match id order), whether the priors come from SQLite or from a dict in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from bot.league import model

ALL_GAMES = "*"


@dataclass
class Seat:
    seat: int
    player: int
    name: str
    team: int
    score: int
    place: int


@dataclass
class Match:
    id: int
    chat_id: int
    topic: int
    season: str
    game: str
    finished_at: float
    teams: list[list[int]]
    seats: list[Seat] = field(default_factory=list)
    removed: bool = False  # an admin removed it: kept in the log, never rated


@dataclass
class Standing:
    """A player's rating in one (league, season, game) with the counts shown next to it."""

    name: str
    mu: float = model.MU
    sigma: float = model.SIGMA
    games: int = 0
    wins: int = 0

    @property
    def shown(self) -> float:
        return model.shown(self.mu, self.sigma)


Lookup = Callable[[str, int], Standing | None]  # (game or ALL_GAMES, player) -> the current standing


def team_places(match: Match, rated: Collection[int]) -> tuple[list[list[Seat]], list[int]]:
    """The sides that are rated (seats of excluded players dropped) and each side's place.

    A side's place is the best place among its seats (teammates share a total, so they share a place).
    """
    by_team: dict[int, list[Seat]] = {}
    for s in match.seats:
        if s.player in rated:
            by_team.setdefault(s.team, []).append(s)
    sides = [by_team[team] for team in sorted(by_team)]
    return sides, [min(s.place for s in side) for side in sides]


def apply(match: Match, excluded: Collection[int], lookup: Lookup) -> dict[tuple[str, int], Standing]:
    """New standings (per game and for all games) of every rated player of ``match``.

    Empty when fewer than two sides remain (e.g. everyone else was excluded): nothing to learn.
    """
    rated = {s.player for s in match.seats if s.player not in excluded}
    sides, places = team_places(match, rated)
    if len(sides) < 2:
        return {}
    out: dict[tuple[str, int], Standing] = {}
    best = min(places)
    for game in (match.game, ALL_GAMES):
        before = [[lookup(game, s.player) or Standing(s.name) for s in side] for side in sides]
        after = model.rate([[(p.mu, p.sigma) for p in side] for side in before], places)
        for side, old_side, new_side, place in zip(sides, before, after, places, strict=True):
            for seat, old, (mu, sigma) in zip(side, old_side, new_side, strict=True):
                out[(game, seat.player)] = Standing(seat.name, mu, sigma, old.games + 1,
                                                    old.wins + (place == best))
    return out
