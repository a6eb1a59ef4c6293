"""The rating model: OpenSkill's Thurstone-Mosteller with full pairing, and how a rating is shown.

Why this model: every match here is a free-for-all of 2-7 sides with shared places (ties) or two
teams; full pairing compares every side with every other, so a 6-player Carnival teaches the model
15 pairwise results, and its tie term handles shared places without special cases. The defaults
are OpenSkill's (mu 25, sigma 25/3, beta 25/6, epsilon 0.1, tau 25/300, kappa 1e-4); they are
pinned here, not taken from the library, so an upgrade cannot silently change every rating.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import ThurstoneMostellerFull

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
EPSILON = 0.1
TAU = 25.0 / 300.0
KAPPA = 0.0001
K = 3.0  # the displayed rating is mu - K * sigma: a player is at least this good with ~99.7% confidence
PROVISIONAL_GAMES = 5  # fewer rated games than this: the rating is shown as provisional

MODEL = ThurstoneMostellerFull(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, epsilon=EPSILON, tau=TAU)

Rating = tuple[float, float]  # (mu, sigma)


def rate(priors: Sequence[Sequence[Rating]], places: Sequence[int]) -> list[list[Rating]]:
    """New (mu, sigma) for every player of every side, given each side's place (1 = best; equal = tie)."""
    teams = [[MODEL.create_rating([mu, sigma]) for mu, sigma in side] for side in priors]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [[(float(p.mu), float(p.sigma)) for p in side] for side in rated]


def shown(mu: float, sigma: float) -> float:
    """The conservative rating a table shows (one decimal)."""
    return round(mu - K * sigma, 1)


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES
