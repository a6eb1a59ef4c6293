"""The rating model: OpenSkill's Thurstone-Mosteller with full pairing, and how a rating is shown.

Why this model: every match here is a free-for-all of 2-7 sides with shared places (ties) or two
teams; full pairing compares every side with every other, so a 6-player Carnival teaches the model
15 pairwise results, and its tie term handles shared places without special cases. The defaults
are OpenSkill's (mu 25, sigma 25/3, beta 25/6, epsilon 0.1, tau 25/300, kappa 1e-4); they are
pinned here, not taken from the library, so an upgrade cannot silently change every rating.
"""

from __future__ import annotations

import math
import sys
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

_SQRT2 = math.sqrt(2.0)
_SQRT_TAU = math.sqrt(math.tau)
_FLOAT_EPS = sys.float_info.epsilon


def _cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / _SQRT2))


def _pdf(x: float) -> float:
    return math.exp(x ** 2.0 / -2.0) / _SQRT_TAU


def _v(x: float, t: float) -> float:
    xt = x - t
    d = _cdf(xt)
    return -xt if d < _FLOAT_EPS else _pdf(xt) / d


def _w(x: float, t: float) -> float:
    xt = x - t
    d = _cdf(xt)
    if d < _FLOAT_EPS:
        return 1.0 if x < 0 else 0.0
    v = _pdf(xt) / d
    return v * (v + xt)


def _vt(x: float, t: float) -> float:
    xx = abs(x)
    b = _cdf(t - xx) - _cdf(-t - xx)
    if b < 1e-5:
        return -x - t if x < 0 else -x + t
    a = _pdf(-t - xx) - _pdf(t - xx)
    return (-a if x < 0 else a) / b


def _wt(x: float, t: float) -> float:
    xx = abs(x)
    b = _cdf(t - xx) - _cdf(-t - xx)
    if b < _FLOAT_EPS:
        return 1.0
    return ((t - xx) * _pdf(t - xx) + (t + xx) * _pdf(-t - xx)) / b + _vt(x, t) * _vt(x, t)


def rate(priors: Sequence[Sequence[Rating]], places: Sequence[int]) -> list[list[Rating]]:
    """New (mu, sigma) for every player of every side, given each side's place (1 = best; equal = tie).

    This is OpenSkill's ThurstoneMostellerFull.rate (openskill 6.x, the defaults above, no weights, no
    balance, no sigma limit) written out without the package's per-call object copies, which cost 3/4 of
    the time and would make a 100,000-match recompute miss its 30 s: sides are visited in the package's
    order (stably sorted by place), sums are taken in its order, and tests/bot/test_league_ratings.py
    checks that this returns exactly what ``MODEL.rate`` returns, and what the paper's formulas give.
    """
    tau2 = TAU * TAU
    sides = [[(mu, math.sqrt(sigma * sigma + tau2)) for mu, sigma in side] for side in priors]
    order = sorted(range(len(sides)), key=places.__getitem__)
    team_mu: list[float] = []
    team_s2: list[float] = []
    for side in sides:
        mu_sum = s2_sum = 0.0
        for mu, sigma in sorted(side, key=lambda p: p[0] - 3.0 * p[1], reverse=True):
            mu_sum += mu * 1.0
            s2_sum += (sigma * 1.0) ** 2
        team_mu.append(mu_sum)
        team_s2.append(s2_sum)
    two_beta2 = 2 * BETA ** 2
    out: list[list[Rating]] = [[] for _ in sides]
    for i in order:
        omega = delta = 0.0
        mu_i, s2_i = team_mu[i], team_s2[i]
        for q in order:
            if q == i:
                continue
            c = math.sqrt(s2_i + team_s2[q] + two_beta2)
            d = (mu_i - team_mu[q]) / c
            ratio = s2_i / c
            gamma = math.sqrt(s2_i) / c
            t = EPSILON / c
            if places[q] > places[i]:
                omega += ratio * _v(d / 1.0, t)
                delta += gamma * ratio / c * _w(d / 1.0, t)
            elif places[q] < places[i]:
                omega += -ratio * _v(-d / 1.0, t)
                delta += gamma * ratio / c * _w(-d / 1.0, t)
            else:
                omega += ratio * _vt(d / 1.0, t)
                delta += gamma * ratio / c * _wt(d / 1.0, t)
        for mu, sigma in sides[i]:
            share = sigma ** 2 / s2_i
            out[i].append((mu + share * omega, sigma * math.sqrt(max(1 - share * delta, KAPPA))))
    return out


def rate_with_package(priors: Sequence[Sequence[Rating]], places: Sequence[int]) -> list[list[Rating]]:
    """The same update through the openskill package itself (the reference the tests compare with)."""
    teams = [[MODEL.create_rating([mu, sigma]) for mu, sigma in side] for side in priors]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [[(float(p.mu), float(p.sigma)) for p in side] for side in rated]


def shown(mu: float, sigma: float) -> float:
    """The conservative rating a table shows (one decimal)."""
    return round(mu - K * sigma, 1)


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES
