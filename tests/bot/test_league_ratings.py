"""Rating golden values: the league's ratings against the published Thurstone-Mosteller full-pairing update.

The expected numbers are computed here from the formulas of Weng & Lin (2011, JMLR 12, "A Bayesian
approximation method for online ranking", the TM full-pairing algorithm) with OpenSkill's published
defaults, written out independently of the openskill package; the 1v1 case is also checked by hand.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from bot.league import model
from bot.league.ledger import Match, Seat, Standing, apply
from bot.league.matches import ai_player, build, places, teams_of
from bot.store.sqlite import SeatRow, TableRow

N = NormalDist()
MU, SIGMA, BETA, EPS, TAU, KAPPA = 25.0, 25 / 3, 25 / 6, 0.1, 25 / 300, 1e-4


def v(x, t):
    return N.pdf(x - t) / N.cdf(x - t)


def w(x, t):
    return v(x, t) * (v(x, t) + x - t)


def vt(x, t):
    return (N.pdf(-t - x) - N.pdf(t - x)) / (N.cdf(t - x) - N.cdf(-t - x))


def wt(x, t):
    den = N.cdf(t - x) - N.cdf(-t - x)
    return ((t - x) * N.pdf(t - x) + (t + x) * N.pdf(-t - x)) / den + vt(x, t) ** 2


def paper_update(teams, ranks):
    """Weng & Lin's TM full pairing: teams are lists of (mu, sigma); tau is added to sigma first."""
    teams = [[(mu, math.sqrt(s * s + TAU * TAU)) for mu, s in team] for team in teams]
    sums = [(sum(m for m, _ in t), sum(s * s for _, s in t)) for t in teams]
    out = []
    for i, team in enumerate(teams):
        mu_i, s2_i = sums[i]
        omega = delta = 0.0
        for q in range(len(teams)):
            if q == i:
                continue
            mu_q, s2_q = sums[q]
            c = math.sqrt(s2_i + s2_q + 2 * BETA * BETA)
            d = (mu_i - mu_q) / c
            gamma = math.sqrt(s2_i) / c
            if ranks[q] > ranks[i]:
                omega += s2_i / c * v(d, EPS / c)
                delta += gamma * s2_i / c ** 2 * w(d, EPS / c)
            elif ranks[q] < ranks[i]:
                omega -= s2_i / c * v(-d, EPS / c)
                delta += gamma * s2_i / c ** 2 * w(-d, EPS / c)
            else:
                omega += s2_i / c * vt(d, EPS / c)
                delta += gamma * s2_i / c ** 2 * wt(d, EPS / c)
        out.append([(mu + s * s / s2_i * omega, s * math.sqrt(max(1 - s * s / s2_i * delta, KAPPA)))
                    for mu, s in team])
    return out


def close(got, want, tol=1e-9):
    for side_got, side_want in zip(got, want, strict=True):
        for (mu, s), (emu, es) in zip(side_got, side_want, strict=True):
            assert mu == pytest.approx(emu, abs=tol) and s == pytest.approx(es, abs=tol)


def test_one_against_one_by_hand():
    # Two new players, the first wins. sigma' = sqrt(sigma^2 + tau^2); c^2 = 2 sigma'^2 + 2 beta^2;
    # equal means: x = 0, t = eps / c; mu moves by sigma'^2 / c * phi(-t) / Phi(-t).
    s2 = SIGMA ** 2 + TAU ** 2
    c = math.sqrt(2 * s2 + 2 * BETA ** 2)
    t = EPS / c
    move = s2 / c * N.pdf(-t) / N.cdf(-t)
    shrink = math.sqrt(s2) * math.sqrt(1 - s2 / c ** 2 * (math.sqrt(s2) / c) * (N.pdf(-t) / N.cdf(-t)) *
                                       (N.pdf(-t) / N.cdf(-t) - t))
    got = model.rate([[(MU, SIGMA)], [(MU, SIGMA)]], [1, 2])
    assert got[0][0][0] == pytest.approx(MU + move, abs=1e-9)
    assert got[1][0][0] == pytest.approx(MU - move, abs=1e-9)
    assert got[0][0][1] == pytest.approx(shrink, abs=1e-9) and got[1][0][1] == pytest.approx(shrink, abs=1e-9)
    assert 4.0 < move < 4.5  # about +4.23 for a first win: a sanity bound on the hand formula itself


def test_free_for_all_matches_the_paper():
    teams = [[(31.0, 5.0)], [(25.0, 25 / 3)], [(20.0, 7.0)], [(27.5, 3.2)]]
    ranks = [2, 1, 4, 3]
    close(model.rate(teams, ranks), paper_update(teams, ranks))


def test_tie_matches_the_paper_and_tied_equals_move_alike():
    # The two tied players have equal priors, so the library's tie averaging cannot hide a wrong tie term.
    teams = [[(30.0, 6.0)], [(25.0, 25 / 3)], [(25.0, 25 / 3)]]
    ranks = [1, 2, 2]
    got = model.rate(teams, ranks)
    close(got, paper_update(teams, ranks))
    assert got[1] == got[2]
    # A tie between equals moves nobody's mean but makes both surer.
    tie = model.rate([[(MU, SIGMA)], [(MU, SIGMA)]], [1, 1])
    assert tie[0][0][0] == pytest.approx(MU) and tie[0][0][1] < SIGMA


def test_teams_are_rated_as_teams():
    teams = [[(28.0, 6.0), (22.0, 7.5)], [(25.0, 25 / 3), (24.0, 4.0)]]
    ranks = [2, 1]
    got = model.rate(teams, ranks)
    close(got, paper_update(teams, ranks))
    # A teammate's share of the team's change is sigma^2 / team sigma^2: the less certain one moves more.
    assert abs(got[0][1][0] - 22.0) > abs(got[0][0][0] - 28.0)


def test_shown_rating_is_conservative_and_new_players_are_provisional():
    assert model.shown(25.0, 25 / 3) == 0.0
    assert model.shown(30.0, 2.0) == 24.0
    assert model.provisional(0) and model.provisional(4) and not model.provisional(5)


def _table(game="carnival", options=None, n=4):
    return TableRow(id=7, chat_id=-100, thread_id=0, game=game, status="finished", creator_id=1,
                    options=options or {}, seed=1, version=1, state=None, ui={})


def test_places_share_ties_and_match_seats_know_their_teams():
    assert places([30, 10, 10, 5]) == [1, 2, 2, 4]
    seats = [SeatRow(0, 11, "Ann"), SeatRow(1, None, "🤖 Ada"), SeatRow(2, 13, "Cid"), SeatRow(3, None, "🤖 Boris")]
    m = build(_table("karusele", {"teams": True}), seats, [120, 80, 120, 80], 0, "2026-11", 1.0)
    assert m.teams == [[0, 2], [1, 3]]
    assert [(s.team, s.place) for s in m.seats] == [(0, 1), (1, 2), (0, 1), (1, 2)]
    # AI seats are their own players, never a human's, and two AI seats at one table are two players.
    assert m.seats[1].player == ai_player("random", 1) and m.seats[3].player == ai_player("random", 2)
    assert m.seats[1].player < 0 and m.seats[1].player != m.seats[3].player
    assert teams_of("variety", {}, 4) == [[0], [1], [2], [3]]  # partners change every deal: rated by totals
    assert teams_of("karusele", {"teams": False}, 4) == [[0], [1], [2], [3]]


def test_apply_rates_per_game_and_overall_and_skips_excluded_players():
    match = Match(1, -100, 0, "2026-11", "oh_hell", 1.0, [[0], [1], [2]],
                  [Seat(0, 11, "Ann", 0, 50, 1), Seat(1, 12, "Bob", 1, 40, 2), Seat(2, 13, "Cid", 2, 40, 2)])
    book: dict = {}
    new = apply(match, set(), lambda g, p: book.get((g, p)))
    assert set(new) == {(g, p) for g in ("oh_hell", "*") for p in (11, 12, 13)}
    assert new[("oh_hell", 11)].wins == 1 and new[("oh_hell", 12)].wins == 0
    assert new[("oh_hell", 11)].mu == new[("*", 11)].mu  # both start fresh: the same first update
    # Bob excluded: Ann against Cid only, which is a plain 1v1.
    only = apply(match, {12}, lambda g, p: None)
    assert (("oh_hell", 12)) not in only
    want = model.rate([[(MU, SIGMA)], [(MU, SIGMA)]], [1, 2])
    assert (only[("oh_hell", 11)].mu, only[("oh_hell", 13)].mu) == (want[0][0][0], want[1][0][0])
    # Everyone but one excluded: nothing to learn.
    assert apply(match, {12, 13}, lambda g, p: None) == {}
    # A prior carries in: games and wins count on.
    prior = Standing("Ann", 27.0, 5.0, 9, 4)
    again = apply(match, set(), lambda g, p: prior if p == 11 else None)
    assert again[("oh_hell", 11)].games == 10 and again[("oh_hell", 11)].wins == 5


def test_the_fast_update_is_the_openskill_package_update():
    """bot.league.model.rate writes out openskill's ThurstoneMostellerFull; over many random matches (sides of
    1-2 players, 2-7 sides, random ties) it agrees with the package to 1e-12 (float rounding of a compiled build)."""
    import random

    rng = random.Random(3)
    for _ in range(400):
        n, size = rng.randint(2, 7), rng.choice([1, 1, 2])
        priors = [[(rng.uniform(0, 45), rng.uniform(0.3, 9)) for _ in range(size)] for _ in range(n)]
        ranks = [rng.randint(1, n) for _ in range(n)]
        close(model.rate(priors, ranks), model.rate_with_package(priors, ranks), tol=1e-12)


def test_captions_are_cut_at_whole_lines_never_inside_an_escaped_name():
    from bot.league.service import fit_lines

    text = "🏆 <b>League</b>\n1. &lt;b&gt;Bob — 3.1\n2. Ann — 2.0"
    assert fit_lines(text, 30) == "🏆 <b>League</b>"
    assert fit_lines(text, 200) == text
    assert fit_lines("x" * 50, 10) == "…"
