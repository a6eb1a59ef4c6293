"""The solver against an independent brute force on thousands of small random positions.

The brute force knows nothing of the solver: it enumerates every partition of the old table
plus the added cards into blocks, every meaning of every joker in a block, and asks
``check_layout`` (the rules' own checker) whether that new table is legal. Positions are built
three ways: random cards from a narrow window (often infeasible), a legal table cut in two
(feasible, usually only after rearranging) and the latter with one added card swapped for a
neighbour (barely feasible or barely infeasible).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache
from typing import Any

import pytest

from engine import cards
from engine.melds import (
    Variant,
    best_subset,
    check_layout,
    dp,
    parse_hand,
    parse_table,
    registered_variants,
    solve,
    why_invalid,
)
from engine.melds.tablecards import JOKER_AS
from engine.melds.validate import normalise

VARIANTS = registered_variants()  # every rummy's meld rules, by name

# -- the brute force -------------------------------------------------------------------


def _joker_meanings(block_naturals: tuple[int, ...], size: int) -> list[int]:
    """Every card a joker could stand for in a meld of ``size`` cards with these naturals."""
    out: set[int] = set()
    for c in block_naturals:
        r, s = cards.rank_of(c), cards.suit_of(c)
        out.update(cards.make(r, su) for su in range(4))
        for pos in ([1, 14] if r == cards.ACE else [r]):  # an ace sits at either end
            for d in range(-size, size + 1):
                if 1 <= pos + d <= 14:
                    out.add(cards.make(14 if pos + d == 1 else pos + d, s))
    return sorted(out)


@cache
def _block_melds(variant: Variant, block: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every valid meld (table ints) made of the physical cards ``block``."""
    naturals = tuple(c for c in block if c != cards.JOKER)
    jokers = len(block) - len(naturals)
    if not naturals:
        return ()
    found = set()
    for meanings in itertools.combinations_with_replacement(_joker_meanings(naturals, len(block)), jokers):
        meld = list(naturals) + [JOKER_AS + m for m in meanings]
        if why_invalid(variant, meld) is None:
            found.add(tuple(normalise(variant, meld)))
    return tuple(sorted(found))


def brute_feasible(variant: Variant, table: list[list[int]], added: list[int]) -> bool:
    phys = sorted([cards.JOKER if x >= JOKER_AS else x for m in table for x in m] + list(added))
    singles = Counter(m[0] for m in table if variant.table_singles and len(m) == 1)

    def blocks(rest: list[int]):
        if not rest:
            yield []
            return
        first, others = rest[0], rest[1:]
        if singles[first]:
            for tail in blocks(others):
                yield [((first,),), *tail]
        seen = set()
        for size in range(variant.min_meld - 1, len(others) + 1):
            for idx in itertools.combinations(range(len(others)), size):
                mates = tuple(others[i] for i in idx)
                if mates in seen:
                    continue
                seen.add(mates)
                options = _block_melds(variant, tuple(sorted((first, *mates))))
                if not options:
                    continue
                left = [c for i, c in enumerate(others) if i not in idx]
                for tail in blocks(left):
                    yield [options, *tail]

    for choice in blocks(phys):
        for new_table in itertools.product(*choice):
            if check_layout(variant, table, added, [list(m) for m in new_table]) is None:
                return True
    return False


# -- positions ---------------------------------------------------------------------------


def _window(rng: random.Random) -> list[int]:
    suits = rng.sample(range(4), rng.choice([1, 2, 2, 3, 4]))
    low = rng.choice([1, 2, 4, 7, 9, 10, 11])
    width = rng.randint(3, 5)
    ranks = [14 if r == 1 else r for r in range(low, min(low + width, 15))]
    return [cards.make(r, s) for r in ranks for s in suits]


def _random_meld(variant: Variant, rng: random.Random, pool: Counter[int], window: list[int]) -> list[int] | None:
    c = rng.choice(window)
    r, s = cards.rank_of(c), cards.suit_of(c)
    if rng.random() < 0.5:
        want = [cards.make(r, su) for su in sorted(rng.sample(range(4), rng.randint(3, 4)))]
    else:
        pos = variant.positions()
        start = rng.randint(pos[0], pos[-1] - 2)
        want = [cards.make(14 if p == 1 else p, s) for p in range(start, start + rng.randint(3, 4)) if p <= pos[-1]]
    meld: list[int] = []
    used: Counter[int] = Counter()
    for w in want:
        if pool[w] - used[w] > 0 and rng.random() > 0.15:
            used[w] += 1
            meld.append(w)
        elif variant.jokers_allowed and pool[cards.JOKER] - used[cards.JOKER] > 0:
            used[cards.JOKER] += 1
            meld.append(JOKER_AS + w)
        else:
            return None
    if why_invalid(variant, meld):
        return None
    pool.subtract(used)
    return normalise(variant, meld)


def random_small_position(variant: Variant, rng: random.Random) -> tuple[list[list[int]], list[int], str]:
    window = _window(rng)
    pool = Counter(window * 2)
    if variant.jokers_allowed:
        pool[cards.JOKER] = rng.choice([0, 1, 1, 2])
    melds: list[list[int]] = []
    for _ in range(12):
        m = _random_meld(variant, rng, pool, window)
        if m and sum(len(x) for x in melds) + len(m) <= 8:
            melds.append(m)
    kind = rng.choice(["random", "cut", "near"])
    if kind == "random" or len(melds) < 1:
        rest = list(pool.elements())
        rng.shuffle(rest)
        table, added = melds, rest[: rng.randint(1, 3)]
        kind = "random"
    else:
        k = rng.randint(1, len(melds))
        cut = melds[:k]
        table = melds[k:]
        added = [cards.JOKER if x >= JOKER_AS else x for m in cut for x in m]
        table_cards = sorted(x for m in table for x in m)
        if table_cards and rng.random() < 0.7:  # rearrange the old table so it is not the solution's shape
            reshaped = solve(variant, [], [cards.JOKER if x >= JOKER_AS else x for x in table_cards])
            if reshaped is not None and not any(x >= JOKER_AS for x in table_cards):
                table = reshaped.table
        if len(added) > 4:
            table, added = table + [cut[0]], added[len(cut[0]):]
        if kind == "near" and added:
            i = rng.randrange(len(added))
            if added[i] != cards.JOKER:
                r, s = cards.rank_of(added[i]), cards.suit_of(added[i])
                added[i] = rng.choice([cards.make(max(2, min(14, r + rng.choice([-1, 1]))), s),
                                       cards.make(r, (s + 1) % 4)])
    if variant.table_singles and rng.random() < 0.5:
        rest = [c for c in pool.elements()]
        table = table + [[c] for c in rng.sample(rest, min(len(rest), rng.randint(1, 2)))]
    if not added:
        added = [rng.choice(window)]
    return [list(m) for m in table], added, kind


def _run(n: int, seed: int, first: int = 0) -> Counter[str]:
    """Positions ``first`` to ``first + n - 1`` of the seed's series, each solved and brute-forced."""
    stats: Counter[str] = Counter()
    for i in range(first, first + n):
        name = list(VARIANTS)[i % len(VARIANTS)]
        variant = VARIANTS[name]
        rng = random.Random(f"{seed}/{i}")
        table, added, kind = random_small_position(variant, rng)
        got = solve(variant, table, added)
        want = brute_feasible(variant, table, added)
        assert (got is not None) == want, (name, table, added, got)
        if got is not None:
            assert check_layout(variant, table, added, got.table) is None, (name, table, added, got.table)
        stats[f"{kind}:{'yes' if want else 'no'}"] += 1
    return stats


@pytest.mark.slow
def test_solver_agrees_with_brute_force_on_2000_small_positions() -> None:
    stats = _run(2000, seed=1)
    # both answers are well represented, including near misses
    assert stats["near:yes"] > 100 and stats["near:no"] > 100, stats
    assert stats["random:no"] > 100 and stats["cut:yes"] > 300, stats


@pytest.mark.slow
@pytest.mark.parametrize("part", range(8))
def test_solver_agrees_with_brute_force_on_10000_more_positions(part: int) -> None:
    """In eight parts of 1250 positions, so that parallel test workers share them."""
    stats = _run(1250, seed=2, first=part * 1250)
    assert sum(stats.values()) == 1250


def _check_best_subset(n: int, seed: str) -> None:
    for i in range(n):
        name = list(VARIANTS)[i % len(VARIANTS)]
        variant = VARIANTS[name]
        rng = random.Random(f"{seed}/{i}")
        table, added, _ = random_small_position(variant, rng)
        hand = added[:4]
        got = best_subset(variant, table, hand)
        best = 0
        for size in range(len(hand), 0, -1):
            if any(brute_feasible(variant, table, list(sub)) for sub in set(itertools.combinations(hand, size))):
                best = size
                break
        assert len(got) == best, (name, table, hand, got)
        if got:
            assert not Counter(got) - Counter(hand)
            assert brute_feasible(variant, table, got)


def test_best_subset_is_the_largest_part_that_goes_down() -> None:
    _check_best_subset(300, "best")


def test_best_subset_stays_exact_when_windows_bound_it_from_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows (engine/melds/windows.py) are asked only after long searches, which small
    positions never need: asked at once here, their bounds must never cost a card."""
    raised = Counter[str]()
    least = dp.RankDP._window_least

    def counted(self: dp.RankDP, width: int, lo: int, hi: int) -> int:
        got = least(self, width, lo, hi)
        raised["asked"] += 1
        raised["raised"] += got > lo
        return got

    monkeypatch.setattr(dp, "_WINDOWS", {3: 0})
    monkeypatch.setattr(dp.RankDP, "_window_least", counted)
    _check_best_subset(300, "windows")
    assert raised["raised"] > 10, raised  # the windows did tell something


def test_jokers_that_fit_no_meld_of_the_lean_answer_take_the_exact_search() -> None:
    """Lean mode finds the two full sets and no place for the joker; the exact search finds
    the run 5S-6S-JK."""
    variant = VARIANTS["carousel"]
    table = [[cards.make(5, s) for s in range(4)], [cards.make(6, s) for s in range(4)]]
    got = solve(variant, table, [cards.JOKER])
    assert got is not None
    assert check_layout(variant, table, [cards.JOKER], got.table) is None
    assert solve(variant, table[:1], [cards.JOKER]) is None



@pytest.mark.slow
def test_vatican_best_subset_agrees_with_solve_when_pinned_jokers_branch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Vatican's jokers that keep their meaning: when the answer without their rule cannot
    keep it, ``best_subset`` branches on the meld of the first such joker and bounds each
    branch by the best so far; ``solve`` (the decision, its own search) on every part of the
    hand must agree on the largest part that goes down, and the branching must be reached."""
    from engine.melds import solver
    from engine.melds.positions import random_table

    branched = Counter[str]()
    pin_melds = solver._pin_melds

    def counted(*args: Any, **kwargs: Any) -> Any:  # a pass-through counter
        branched["branched"] += 1
        return pin_melds(*args, **kwargs)

    monkeypatch.setattr(solver, "_pin_melds", counted)
    variant = VARIANTS["vatican"]
    for i in range(300):
        rng = random.Random(f"pinned/{i}")
        table, rest = random_table(variant, rng, rng.randint(12, 30))
        pinned = [x - JOKER_AS for m in table for x in m if x >= JOKER_AS]
        if not pinned:
            continue
        r, s = cards.rank_of(pinned[0]), cards.suit_of(pinned[0])
        rivals = [cards.make(q, s) for q in range(max(2, r - 2), min(14, r + 2) + 1)]
        rivals += [cards.make(r, t) for t in range(4)]
        hand = rng.sample(rivals, 3) + rest[:3]  # cards that compete for the pinned joker's place
        got = best_subset(variant, table, hand)
        parts = [set(itertools.combinations(sorted(hand), size)) for size in range(len(hand) + 1)]
        best = max(size for size in range(len(hand) + 1)
                   if size == 0 or any(solve(variant, table, list(sub)) for sub in parts[size]))
        assert len(got) == best, (table, hand, got)
        if got:
            assert solve(variant, table, got) is not None
    assert branched["branched"] > 30, branched


def test_a_joker_led_run_and_a_natural_led_run_may_start_together() -> None:
    """JK=JD-QD-KD and QD-KD-AD, add JD KD AD: the only new table is JD-QD-KD, QD-KD-AD and
    JK=QD-KD-AD, two runs beginning at the queen, one with the joker; the rank programme once
    dropped every natural-led run beside a joker-led one."""
    jd, qd, kd, ad = (cards.make(r, 2) for r in (11, 12, 13, 14))
    table = [[JOKER_AS + jd, qd, kd], [qd, kd, ad]]
    for name in ("carousel", "vatican"):
        variant = VARIANTS[name]
        got = solve(variant, table, [jd, kd, ad])
        assert got is not None, name
        assert check_layout(variant, table, [jd, kd, ad], got.table) is None
        assert sorted(best_subset(variant, table, [jd, kd, ad])) == sorted([jd, kd, ad]), name


# -- the mirrored search (engine/melds/mirror.py) -------------------------------------------


def _mirror_answers(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Make the mirrored search give every answer of the rank programme: the upward search
    gives up at once whenever it races the mirror (``_RACE_VISITS`` 1 starts the race at the
    first state), so a search interrupted and resumed is tried too; count what the mirrored
    searches answered (a pass-through counter)."""
    answers = Counter[str]()
    feasible = dp.RankDP._solve_feasible

    def mirrored_only(self: dp.RankDP, bud: int, give_up: int = 1 << 62) -> Any:
        if self.mirror and give_up < 1 << 62:
            raise dp._OutOfTime  # the upward search's turn, given up
        got = feasible(self, bud, give_up)
        if not self.mirror and not self.windows and self.max_visits == 1 << 62:  # a mirrored search
            answers["found" if got is not None else "none"] += 1
        return got

    monkeypatch.setattr(dp, "_RACE_VISITS", 1)
    monkeypatch.setattr(dp, "_RACE_SOLVE", 1)
    monkeypatch.setattr(dp.RankDP, "_solve_feasible", mirrored_only)
    return answers


def test_mirror_turns_ranks_over_and_keeps_aces() -> None:
    from engine.melds.mirror import mirror_code, mirror_found, mirror_variant

    assert all(mirror_code(mirror_code(c)) == c for c in range(64))
    assert mirror_code(cards.make(2, 1)) == cards.make(13, 1) and mirror_code(cards.make(14, 3)) == cards.make(14, 3)
    assert mirror_variant(VARIANTS["shanghai"]).ace == "high" and mirror_variant(VARIANTS["manipulation"]).ace == "low"
    qh, kh, ah = (cards.make(r, 1) for r in (12, 13, 14))
    melds, used, jokers = mirror_found(([[qh, kh, JOKER_AS + ah]], [0] * 64, 1))
    assert melds == [[JOKER_AS + ah, cards.make(2, 1), cards.make(3, 1)]] and jokers == 1


def test_solver_agrees_with_brute_force_when_the_mirrored_search_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mirrored search answering first must never refuse a position that has an
    arrangement ("cut" positions always have one, "near" ones barely) nor accept one without."""
    answers = _mirror_answers(monkeypatch)
    stats = _run(800, seed=3)
    assert stats["cut:yes"] > 100 and stats["near:yes"] > 40 and stats["near:no"] > 40, stats
    assert answers["found"] > 100 and answers["none"] > 100, answers


def test_best_subset_stays_exact_when_the_mirrored_search_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = _mirror_answers(monkeypatch)
    _check_best_subset(300, "mirror")
    assert answers["found"] > 30 and answers["none"] > 30, answers


def _mid_game(variant: Variant, rng: random.Random, kind: str) -> tuple[list[list[int]], list[int]]:
    from engine.melds.positions import random_position

    return random_position(variant, rng, rng.randint(30, 60), rng.randint(1, 12), kind)


def _upward(monkeypatch: pytest.MonkeyPatch, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` with the upward search only (the mirror never asked)."""
    with monkeypatch.context() as upward:
        upward.setattr(dp, "_RACE_VISITS", 1 << 61)
        upward.setattr(dp, "_RACE_SOLVE", 1 << 61)
        upward.setattr(dp, "_RACE_PROBE", 0)
        upward.setattr(dp.RankDP, "_solve_feasible", _UPWARD)
        return fn(*args)


_UPWARD = dp.RankDP._solve_feasible


@pytest.mark.slow
def test_mirrored_search_agrees_with_the_upward_one_on_mid_game_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bench-sized positions, too big for the brute force: the solver whose every rank
    programme answer comes from the mirrored search against the solver that never asks it
    (the upward search alone, as before the mirror). "feasible" positions are cut from a
    legal table (in Tahiti and Vatican the joker rules may still refuse them), so a wrong
    proof of none fails here; "near" ones are barely feasible or barely not."""
    answers = _mirror_answers(monkeypatch)
    checked = Counter[str]()
    for name, variant in VARIANTS.items():
        rng = random.Random(f"mirror-mid/{name}")
        for i in range(24):
            kind = ("feasible", "near", "random")[i % 3]
            table, added = _mid_game(variant, rng, kind)
            got = solve(variant, table, added)
            want = _upward(monkeypatch, solve, variant, table, added) is not None
            assert (got is not None) == want, (name, table, added)
            if got is not None:
                assert check_layout(variant, table, added, got.table) is None
            checked[f"{kind}:{want}"] += 1
        for _ in range(6):
            from engine.melds.positions import random_table

            table, rest = random_table(variant, rng, rng.randint(30, 60))
            hand = rest[:12]
            got_subset = best_subset(variant, table, hand)
            assert len(_upward(monkeypatch, best_subset, variant, table, hand)) == len(got_subset), (
                name, table, hand)
            assert not got_subset or _upward(monkeypatch, solve, variant, table, got_subset) is not None
    assert checked["feasible:True"] > 50 and checked["near:False"] > 10 and checked["near:True"] > 10, checked
    assert answers["found"] > 100 and answers["none"] > 50, answers


def test_vatican_hand_whose_whole_cannot_go_down_for_want_of_a_joker_at_the_top() -> None:
    """Released jokers 3D and QD leave two free jokers; all fifteen cards would need a third
    (the jacks to the aces: without AS, KH, JD or QC the rest goes down), a proof the upward
    search reaches after some 50,000 states and the mirrored one within 3,000. Fourteen go
    down, and solve lays them."""
    variant = VARIANTS["vatican"]
    table = parse_table("3C-4C-5C-6C-7C | 10H-JH-QH-KH | 8H-9H-10H | 6D-7D-8D-9D-10D-JD | QS-QH-QD-QC | 10C-JC-QC | "
                        "3S-3H-3D | 3S-3H-3D-3C | 5C-6C-7C-8C-9C | AD-2D-JK=3D-4D-5D-6D | 10D-JD-JK=QD | QS-KS-AS | "
                        "5S-6S-7S-8S | 6S-7S-8S-9S | 4H-5H-6H-7H")
    hand = parse_hand("KH 4C 4H 4S 5D AS 4S 6H 9C 2H 8D 2D 2C 5H 10S")
    got = best_subset(variant, table, hand)
    assert len(got) == 14
    assert solve(variant, table, got) is not None
    assert solve(variant, table, hand) is None


def test_a_search_interrupted_and_resumed_answers_as_one_run() -> None:
    """``_solve_feasible`` stopped after 40 states, then a quarter more each time, and asked
    again goes on where its vector turns stopped: the answer must be the one an
    uninterrupted search gives, and its melds valid and holding every card."""
    from engine.melds.positions import random_position

    seen = Counter[bool]()
    for i in range(120):
        name = ("carousel", "tahiti", "vatican", "machiavelli", "shanghai", "manipulation")[i % 6]
        variant = VARIANTS[name]
        rng = random.Random(f"resume/{i}")
        kind = ("feasible", "near")[i % 2]
        table, added = random_position(variant, rng, rng.randint(20, 40), rng.randint(1, 6), kind)
        pool = Counter(x for m in table for x in m if x < 64) + Counter(c for c in added if c < 64)
        jokers = sum(1 for m in table for x in m if x >= JOKER_AS) + added.count(cards.JOKER)
        mand = [pool[c] for c in range(64)]
        whole = dp.RankDP(variant, mand, [0] * 64, 0, jokers, None, mirror=False)
        whole._init_masks()
        want = whole._solve_feasible(0)
        pieces = dp.RankDP(variant, mand, [0] * 64, 0, jokers, None, mirror=False)
        pieces._init_masks()
        allowance = 40
        while True:
            try:
                got = pieces._solve_feasible(0, pieces.visits + allowance)
                break
            except dp._OutOfTime:
                allowance += allowance // 4
        assert (got is None) == (want is None), (name, table, added)
        if got is not None:
            melds = got[0]
            assert all(why_invalid(variant, m) is None for m in melds), (name, melds)
            assert Counter(x for m in melds for x in m if x < JOKER_AS) == +pool
        seen[got is not None] += 1
    assert seen[True] > 30 and seen[False] > 10, seen


def test_a_suits_moves_cached_for_many_states_are_each_states_own() -> None:
    """The rank programme caches a suit's moves per (step, that suit's open runs, cards put
    aside, jokers, budget), not per state: for every state some searches (with budgets, and
    Tahiti's capped jokers) visited at a suit's step, the cached list must be the one
    ``_suit_steps`` builds for that state alone."""
    from engine.melds.positions import random_position

    states = keys = 0
    for i in range(24):
        name = ("carousel", "tahiti", "vatican", "shanghai")[i % 4]
        variant = VARIANTS[name]
        rng = random.Random(f"steps/{i}")
        table, added = random_position(variant, rng, rng.randint(20, 50), rng.randint(1, 8), "near")
        pool = Counter(x for m in table for x in m if x < 64) + Counter(c for c in added if c < 64)
        jokers = sum(1 for m in table for x in m if x >= JOKER_AS) + added.count(cards.JOKER)
        opt = Counter(c for c in added if c < 64)
        mand = pool - opt
        search = dp.RankDP(variant, [mand[c] for c in range(64)], [opt[c] for c in range(64)], 0, jokers,
                           budget=0 if i % 2 else None, mirror=False)
        if i % 2:
            search.fewest_left_out(0, len(added))
        else:
            search.solve()
        cache = search.steps
        for key in search.mmemo:
            place, step = key & ((1 << dp._JAT) - 1), (key >> dp._STEPAT) & 0xFF
            if step % 5 == 4 or step == search.last_step:
                continue
            jokers_left, bud = (key >> dp._JAT) & 0xFF, key >> dp._BAT
            cached = cache.get(search._steps_key(place, jokers_left, bud))
            if cached is None:  # a state found in the memo but never expanded
                continue
            search.steps = {}
            assert search._suit_steps(place, jokers_left, bud) == cached, (name, key)
            states += 1
        keys += len(cache)
    assert states > 2000 and keys < states * 3 // 4, (states, keys)  # many states were served a shared list
