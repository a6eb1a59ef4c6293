"""Karusele's move sample (``legal_sample``) against the lists it gave before it was made faster.

The sample is what ``legal_actions()`` shows (buttons, hints, random play, the AI), so a speed-up
must list exactly the same moves in the same order. ``data/karusele_sample_digests.json`` holds, for
each group of seeded positions below, a digest of every position's list as the implementation of
commit 6d89526 gave it: random games on the public path, and large constructed tables where the
packing search's step budget runs out (its cut-off must stay where it was). Re-record only for an
intended change of the sample: ``python tests/engine/test_karusele_sample.py --record``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import games.karusele.moves as karusele_moves
from engine.cards import JOKER11, JOKER15, JOKER20, deck
from engine.core import get_game
from games.karusele.moves import Item, legal_sample, legal_sample_reference, value

DATA = Path(__file__).parent / "data" / "karusele_sample_digests.json"
GAME_GROUPS = [(players, seed) for players in (2, 3, 4) for seed in range(6)]  # ~6,700 positions
TABLE_GROUPS = [(size, seed) for size in (10, 14, 18) for seed in range(2)]  # 3,000 large tables
JOKER_GROUPS = [(size, seed) for size in (14, 17, 20) for seed in range(2)]  # number cards, a joker in hand


def game_positions(players: int, seed: int) -> Iterator[tuple[list[int], list[Item]]]:
    """Every position of a uniform random game on the public path (seeded)."""
    state: Any = get_game("karusele").new(players, seed=seed)
    rng = random.Random(seed)
    while (seat := state.to_act) is not None:
        yield state.hands[seat], state.table
        state.act(seat, rng.choice(state.legal_actions()))


def table_positions(size: int, seed: int, count: int = 500,
                    jokers: bool = False) -> Iterator[tuple[list[int], list[Item]]]:
    """Random tables of ``size`` items (loose cards, jokers, two-card builds) and four-card hands;
    ``jokers``: number cards only on the table and a joker in hand (the searches that run out of steps)."""
    rng = random.Random(1000 * size + seed + (500 if jokers else 0))
    for _ in range(count):
        pack = [c for c in deck(56) if value(c) is not None] if jokers else deck(56)
        rng.shuffle(pack)
        if jokers:
            pack.remove(joker := rng.choice([JOKER15, JOKER20]))
            pack.insert(0, joker)
        hand, rest = pack[:4], pack[4:]
        table: list[Item] = []
        while len(table) < size:
            card = rest.pop()
            if card in (JOKER11, JOKER15, JOKER20) and rng.random() < 0.5:
                continue
            if value(card) is not None and rng.random() < 0.15:
                partner = next((c for c in rest if value(c) is not None), None)
                if partner is not None:
                    rest.remove(partner)
                    table.append({"cards": [card, partner], "owner": 0, "since": 1})
                    continue
            table.append({"cards": [card], "owner": None, "since": None})
        yield hand, table


def digest(positions: Iterator[tuple[list[int], list[Item]]]) -> dict[str, Any]:
    """How many positions, and a hash of every position's sample in order."""
    h = hashlib.sha256()
    n = 0
    for hand, table in positions:
        h.update("\n".join(legal_sample(hand, table)).encode() + b"\0")
        n += 1
    return {"positions": n, "sha256": h.hexdigest()[:20]}


def current() -> dict[str, dict[str, Any]]:
    out = {f"game {p}p seed {s}": digest(game_positions(p, s)) for p, s in GAME_GROUPS}
    out.update({f"table {n} seed {s}": digest(table_positions(n, s)) for n, s in TABLE_GROUPS})
    out.update({f"jokers {n} seed {s}": digest(table_positions(n, s, 150, True)) for n, s in JOKER_GROUPS})
    return out


@pytest.mark.slow  # every sample list searched again: a long simulation
def test_sample_lists_are_the_recorded_ones() -> None:
    recorded = json.loads(DATA.read_text())
    now = current()
    assert sum(d["positions"] for d in now.values()) > 10_000
    differ = [name for name in recorded if now.get(name) != recorded[name]]
    assert not differ, f"the sample changed on: {differ}"
    assert now.keys() == recorded.keys()


def test_fast_sample_equals_the_card_by_card_one(monkeypatch: Any) -> None:
    """``legal_sample`` (packing templates filled with cards) lists what ``legal_sample_reference`` (the
    functions card by card) lists, also when its template store is forgotten and refilled mid-way."""
    monkeypatch.setattr(karusele_moves, "TEMPLATES_MAX", 64)
    karusele_moves._TEMPLATES.clear()
    positions = [(list(hand), [dict(it, cards=list(it["cards"])) for it in table])  # the games change theirs
                 for group in (game_positions(2, 11), game_positions(4, 12), table_positions(12, 5, 200),
                               table_positions(16, 6, 60, True))
                 for hand, table in group]
    assert len(positions) > 300
    for hand, table in positions:
        assert legal_sample(hand, table) == legal_sample_reference(hand, table), (hand, table)
    assert 0 < len(karusele_moves._TEMPLATES) <= 64
    karusele_moves._TEMPLATES.clear()


def template_keys(count: int, seed: int) -> list[int]:
    """Random template keys (value counts below a target, the target), from a few cards to tables whose
    packing search runs out of steps."""
    rng = random.Random(seed)
    values = [*range(1, 11), 11, 15, 20]
    keys = []
    while len(keys) < count:
        target = rng.choice(values[1:])
        counts = dict.fromkeys(rng.choices([v for v in values if v < target], k=rng.randint(1, 12)), 0)
        for v in counts:
            counts[v] = 1 if v > 10 else rng.randint(1, 4)
        if sum(v * c for v, c in counts.items()) >= target:
            keys.append(sum(c << (karusele_moves._BITS * v) for v, c in counts.items()) << 5 | target)
    return keys


def test_quick_templates_are_the_searched_ones(monkeypatch: Any) -> None:
    """The templates made without the budgeted search (one group, the quicker walk, a smaller key's template
    renumbered) are the ones the search gives, also with small budgets, where they must leave the tables it cuts
    off to the search."""
    lone = karusele_moves._quick_value_packings((9, 6, 5, 4, 3), (1, 2, 2, 2, 1), 10)
    assert lone == [((0, 2, 2, 2, 0), [[1, 3], [1, 3], [2, 2]])]  # it lists (not only declines): 6+4 6+4 5+5
    bits = karusele_moves._BITS
    idle = (1 << (bits * 9) | 2 << (bits * 5) | 1 << (bits * 6)) << 5 | 10  # 9 5 5 6 for 10: no ace, the 9 idles
    assert karusele_moves._key_without_idle(idle) == 2 << (bits * 5) << 5 | 10
    assert karusele_moves._make_template(idle) == (("{0}+{1}", "{0}+{1}"),)  # 5+5, the 6 and the 9 left
    keys = template_keys(1500, 3)
    assert sum(karusele_moves._key_without_idle(key) is not None for key in keys) > 300
    full: list[Any] = []
    for budget in (2500, 300, 100, 60, 40, 25):  # small ones: the quick paths decline near the edge
        monkeypatch.setattr(karusele_moves, "SEARCH_BUDGET", budget)
        karusele_moves._TEMPLATES.clear()  # the smaller keys' templates (renumbered) are made at this budget
        quick = [karusele_moves._make_template(key) for key in keys]
        with monkeypatch.context() as m:
            m.setattr(karusele_moves, "_single_group_template", lambda *args: None)
            m.setattr(karusele_moves, "_quick_value_packings", lambda *args: None)
            m.setattr(karusele_moves, "_key_without_idle", lambda *args: None)
            searched = [karusele_moves._make_template(key) for key in keys]
        assert quick == searched, budget
        full = full or searched
        if budget < 2500:  # the search is cut off on some tables (and the quick paths must have left them)
            assert sum(a != b for a, b in zip(searched, full, strict=True)) > 20, budget
    karusele_moves._TEMPLATES.clear()


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    DATA.write_text(json.dumps(current(), indent=1) + "\n")
