"""Points per place, byes and the tiebreaks, on hand-made results whose standings are worked out here."""

from __future__ import annotations

from bot.tournaments.standings import (
    Entry,
    TableResult,
    default_bye,
    default_points,
    knockout_order,
    place_points,
    standings,
)


def test_defaults_per_family_and_shared_places() -> None:
    assert default_points("solo", 3) == (2.0, 1.0, 0.0)
    assert default_points("teams", 4) == (2.0, 0.0)
    assert default_bye((2.0, 1.0, 0.0)) == 1.0
    assert place_points({1: 1, 2: 1, 3: 3}, (2.0, 1.0, 0.0)) == {1: 1.5, 2: 1.5, 3: 0.0}


def test_tiebreaks_opponents_then_head_to_head_then_rating() -> None:
    entries = [Entry(i, f"p{i}", rating=float(i)) for i in range(1, 7)]
    results = [
        TableResult(0, {1: 1, 2: 2, 3: 3}), TableResult(0, {4: 1, 5: 2, 6: 3}),
        TableResult(1, {4: 1, 1: 2, 5: 3}), TableResult(1, {2: 1, 6: 2, 3: 3}),
    ]
    table = standings(entries, results, [], (2.0, 1.0, 0.0), 1.0)
    points = {s.id: s.points for s in table}
    assert points == {1: 3.0, 2: 3.0, 3: 0.0, 4: 4.0, 5: 1.0, 6: 1.0}
    assert table[0].id == 4
    # 1 and 2 tie on 3 points; opponents: 1 met 2, 3, 4, 5 (3+0+4+1=8), 2 met 1, 3, 6, 3 (3+0+1+0=4)
    assert [s.id for s in table[1:3]] == [1, 2]
    # 5 and 6 tie on 1 point; opponents: 5 met 4, 6, 4, 1 (4+1+4+3=12), 6 met 4, 5, 2, 3 (4+1+3+0=8)
    assert [s.id for s in table[3:5]] == [5, 6]


def test_head_to_head_decides_before_rating() -> None:
    entries = [Entry(1, "a", rating=10.0), Entry(2, "b", rating=0.0), Entry(4, "d"), Entry(5, "e")]
    # 1 and 2 end on 1 point with the same opponents' points (each met the other and 4); 2 beat 1
    results = [TableResult(0, {2: 1, 1: 2}), TableResult(1, {1: 1, 4: 2}), TableResult(2, {4: 1, 2: 2}),
               TableResult(3, {4: 1, 5: 2})]
    table = standings(entries, results, [], (1.0, 0.0), 0.5)
    by_id = {s.id: s for s in table}
    assert (by_id[1].points, by_id[1].opponents) == (by_id[2].points, by_id[2].opponents) == (1.0, 3.0)
    assert (by_id[2].h2h, by_id[1].h2h) == (1.0, -1.0)
    assert [s.id for s in table] == [4, 2, 1, 5]


def test_byes_late_joiners_and_withdrawn() -> None:
    entries = [Entry(1, "a"), Entry(2, "b", joined=2), Entry(3, "c", withdrawn=1)]
    table = standings(entries, [TableResult(0, {1: 1, 3: 2})], [(1, 1)], (1.0, 0.0), 0.5, late_rounds=2)
    got = {s.id: (s.points, s.byes, s.withdrawn) for s in table}
    assert got == {1: (1.5, 1, False), 2: (0.5, 0, False), 3: (0.0, 0, True)}


def test_knockout_order_by_last_round_then_place() -> None:
    entries = [Entry(i, str(i)) for i in range(1, 7)]
    results = [TableResult(0, {1: 1, 2: 2, 3: 3}), TableResult(0, {4: 1, 5: 2, 6: 3}),
               TableResult(1, {4: 1, 1: 2})]
    assert [e.id for e in knockout_order(entries, results)] == [4, 1, 2, 5, 3, 6]
