"""The pairing rules as properties, checked over seeded random tournaments (hypothesis is not installed):
every round complete, no repeat meeting while one is avoidable (checked against an exhaustive search),
byes spread, the same seed the same pairing; the round robin's balance; knockout rounds."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest

from bot.tournaments.pairing import (
    Pairing,
    Player,
    balance,
    knockout,
    meetings,
    repeats,
    round_robin,
    split_sizes,
    swiss,
)


def partitions(people: list[int], size: int):
    """Every way to seat ``people`` at tables of ``size``."""
    if not people:
        yield []
        return
    first, rest = people[0], people[1:]
    for mates in combinations(rest, size - 1):
        left = [p for p in rest if p not in mates]
        for more in partitions(left, size):
            yield [[first, *mates], *more]


def avoidable(people: list[int], size: int, met: Counter) -> bool:
    return any(repeats(tables, met) == 0 for tables in partitions(people, size))


def play(pairing: Pairing, scores: dict[int, float], rng: random.Random) -> None:
    for table in pairing.tables:
        order = table[:]
        rng.shuffle(order)
        for place, p in enumerate(order):
            scores[p] += len(order) - 1 - place
    for p in pairing.byes:
        scores[p] += 1


@pytest.mark.parametrize("seed", range(40))
def test_swiss_rounds_are_complete_avoid_repeats_and_spread_byes(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([2, 3, 4])
    n = rng.randint(size + 1, 12 if size > 2 else 10)
    ids = list(range(1, n + 1))
    ratings = {p: rng.uniform(0, 30) for p in ids}
    scores: dict[int, float] = dict.fromkeys(ids, 0.0)
    byes: Counter[int] = Counter()
    met: Counter = Counter()
    for rnd in range(rng.randint(2, 6)):
        players = [Player(p, scores[p], ratings[p], byes[p]) for p in ids]
        pairing = swiss(players, size, met, seed * 100 + rnd)
        # complete: everyone once, full tables, the remainder on byes
        assert sorted(pairing.players()) == ids
        assert all(len(t) == size for t in pairing.tables)
        assert len(pairing.byes) == n % size
        # no repeat while a seating of the same players without one exists
        seated = sorted(p for t in pairing.tables for p in t)
        if repeats(pairing.tables, met):
            assert not avoidable(seated, size, met), (rnd, pairing, met)
        # byes spread: nobody has a second bye before everyone has had one
        byes.update(pairing.byes)
        assert max(byes.values(), default=0) - min(byes[p] for p in ids) <= 1
        # reproducible
        assert swiss(players, size, met, seed * 100 + rnd) == pairing
        met.update(meetings(pairing.tables))
        play(pairing, scores, rng)


def test_swiss_seats_by_score_then_rating() -> None:
    players = [Player(i, score=float(i // 3), rating=float(i)) for i in range(9)]
    pairing = swiss(players, 3, Counter(), seed=1)
    assert pairing.tables == [[8, 7, 6], [5, 4, 3], [2, 1, 0]]


def test_swiss_keeps_repeats_low_on_a_large_field() -> None:
    rng = random.Random(5)
    ids = list(range(300))
    met: Counter = Counter()
    scores = dict.fromkeys(ids, 0.0)
    for rnd in range(5):
        pairing = swiss([Player(p, scores[p], 0.0) for p in ids], 4, met, rnd)
        assert sorted(pairing.players()) == ids
        assert repeats(pairing.tables, met) == 0
        met.update(meetings(pairing.tables))
        play(pairing, scores, rng)


def test_oh_hell_six_players_in_threes_meets_the_stated_balance() -> None:
    """6 players at tables of three: 5 rounds, every pair meets 1–3 times, 5 pairs 3 times; an
    exhaustive look at every 4-, 5- and 6-round schedule shows nothing narrower lets everyone meet."""
    schedule = round_robin(range(1, 7), 3, seed=7)
    assert len(schedule.rounds) == 5
    for rnd in schedule.rounds:
        assert sorted(p for t in rnd.tables for p in t) == list(range(1, 7)) and not rnd.byes
        assert all(len(t) == 3 for t in rnd.tables)
    b = schedule.balance
    assert (b.low, b.high, b.at_high) == (1, 3, 5)
    assert b.describe() == "every pair meets 1–3 times (5 pairs 3 times)"
    parts = [Pairing([list(c), [x for x in range(6) if x not in c]]) for c in combinations(range(6), 3) if 0 in c]
    for rounds in (3, 4, 5):
        for rest in combinations_with_replacement(range(10), rounds - 1):
            other = balance(range(6), [parts[0]] + [parts[i] for i in rest])
            assert other.low == 0 or other.high - other.low >= 2


@pytest.mark.parametrize(("n", "size"), [(5, 3), (7, 3), (8, 4), (9, 3), (8, 3)])
def test_round_robin_everyone_meets_with_counts_one_apart(n: int, size: int) -> None:
    schedule = round_robin(range(n), size, seed=3)
    byes: Counter[int] = Counter()
    for rnd in schedule.rounds:
        assert sorted(rnd.players()) == list(range(n))
        byes.update(rnd.byes)
    assert schedule.balance.low >= 1 and schedule.balance.high - schedule.balance.low <= 1
    assert max(byes.values(), default=0) - min((byes[p] for p in range(n)), default=0) <= 1
    assert round_robin(range(n), size, seed=3).rounds == schedule.rounds


def test_knockout_snakes_seeds_and_makes_even_tables() -> None:
    pairing = knockout(list(range(1, 10)), 3, 3)
    assert pairing.tables == [[1, 6, 7], [2, 5, 8], [3, 4, 9]] and not pairing.byes
    assert split_sizes(7, 3, 2) == [3, 2, 2]
    odd = knockout(list(range(1, 8)), 4, 3)  # 7 at tables of 3-4: a 4 and a 3
    assert sorted(len(t) for t in odd.tables) == [3, 4] and not odd.byes
    two = knockout(list(range(1, 6)), 3, 3)  # 5 cannot make tables of three: the top seeds sit out
    assert two.byes == [1, 2] and two.tables == [[3, 4, 5]]
