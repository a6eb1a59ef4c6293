"""Random self-play of the seven manipulation rummies (RULES.md 8-9), checked at every step.

``engine.selfplay.play_game`` checks the engine's own invariants, refusals, clone/JSON round
trips and the record replay. On top, ``drive`` checks each move here with rules written again
on plain data (sharing no code with the games): the pack is conserved, every table meld stays
valid, the table only grows within a deal, no table card returns to a hand (a hand loses
exactly the cards a lay-down names, and only then), a table joker keeps its meaning unless its
real card arrived in that move (from the hand only in Tahiti), Tahiti's one joker per meld, and
what each seat's view shows.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations
from typing import Any

import pytest

from engine import melds
from engine.ai.random import RandomPlayer
from engine.cards import JOKER, card_str, parse_card
from engine.core import get_game
from engine.record import make_record, replay
from engine.rummy.base import RummyState
from engine.selfplay import POLICIES, play_game

# game id, options, player counts: every variant and option that changes the rules.
VARIANTS: list[tuple[str, dict[str, Any], tuple[int, ...]]] = [
    ("carousel", {"target": 60}, (2, 4)),
    ("carousel", {"target": 40, "culbertson": True}, (2, 3)),
    ("machiavelli", {}, (2, 5)),
    ("tahiti", {}, (2, 4)),
    ("guadalupe", {}, (3, 5)),
    ("vatican", {}, (2, 4)),
    ("shanghai", {}, (3, 5)),
    ("manipulation", {"target": 30}, (3, 6)),
]
IDS = [g + ("-culbertson" if o.get("culbertson") else "") for g, o, _ in VARIANTS]


def physical(x: int) -> int:
    return JOKER if x >= 256 else x


def table_cards(state: RummyState) -> Counter[int]:
    return Counter(x for meld in state.table for x in meld)


def joker_meanings(state: RummyState) -> Counter[int]:
    return Counter(x - 256 for meld in state.table for x in meld if x >= 256)


def check_move(before: RummyState, after: RummyState, seat: int, action: str, events: list[dict[str, Any]]) -> None:
    """One applied action, judged from the states before and after it."""
    new_deal = any(e["type"] == "deal" for e in events)
    words = action.split()
    laid = [parse_card(w) for w in action.split("/")[0].split()[1:]] if words[0] == "lay" else []
    # A hand changes only by the cards named in a lay-down (out) and the cards drawn (in).
    if not new_deal:
        drawn = sum(e["count"] for e in events if e["type"] == "draw")
        assert len(before.stock) - len(after.stock) == drawn and after.stock == before.stock[drawn:]
        assert not Counter(laid) - Counter(before.hands[seat]), f"{action}: laid cards not in the hand"
        expected = Counter(before.hands[seat]) - Counter(laid) + Counter(before.stock[:drawn])
        assert Counter(after.hands[seat]) == expected, f"{action}: the hand changed otherwise"
        for other in range(before.n):
            if other != seat:
                assert before.hands[other] == after.hands[other], "another hand changed"
        # The table only grows, by exactly the cards laid: nothing goes back to a hand.
        old, new = Counter(physical(x) for x in table_cards(before).elements()), \
            Counter(physical(x) for x in table_cards(after).elements())
        assert new - old == Counter(laid) and not old - new, f"{action}: table {old} -> {new}"
        if not laid:
            assert after.table == before.table, "the table changed without a lay-down"
        # A joker keeps its meaning unless its real card came in now (from the hand in Tahiti).
        lost_meaning = joker_meanings(before) - joker_meanings(after)
        naturals_before = Counter(x for x in table_cards(before).elements() if x < 64)
        for card, k in lost_meaning.items():
            from_hand = Counter(laid)[card]
            from_table = naturals_before[card] if before.GAME_ID != "tahiti" else 0
            assert k <= from_hand + from_table, f"{action}: a joker for {card_str(card)} changed meaning"
            assert Counter(x for x in table_cards(after).elements())[card] >= k, "the real card is on the table"
    variant = after.variant
    for meld in after.table:
        if len(meld) == 1 and after.GAME_ID == "tahiti":
            continue
        assert len(meld) >= 3, f"meld {meld} under the minimum"
        meaning = [x - 256 if x >= 256 else x for x in meld]
        if variant.max_jokers_per_meld is not None:
            assert sum(x >= 256 for x in meld) <= variant.max_jokers_per_meld
        if not variant.jokers_allowed:
            assert all(x < 64 for x in meld)
        ranks = {m & 15 for m in meaning}
        if len(ranks) == 1:
            assert len(set(meaning)) == len(meaning) <= 4, f"set {meld}: suits must differ"
        else:
            assert len({m >> 4 for m in meaning}) == 1, f"run {meld}: one suit"
            rs = [m & 15 for m in meaning]
            if 14 in rs and 2 in rs:
                rs = [1 if r == 14 else r for r in rs]
                assert variant.ace in ("both", "low"), f"{meld}: a low ace in {after.GAME_ID}"
            elif 14 in rs:
                assert variant.ace in ("both", "high"), f"{meld}: a high ace in {after.GAME_ID}"
            assert sorted(rs) == list(range(min(rs), min(rs) + len(rs))), f"run {meld} has a gap"
    pack = Counter(after.pack())
    everything = Counter(c for h in after.hands for c in h) + Counter(after.stock) + \
        Counter(physical(x) for x in table_cards(after).elements())
    assert everything == pack, "the pack is not conserved"


def check_view(state: RummyState, rng: random.Random) -> None:
    """A seat sees its own hand and other hands' sizes only; the stock order never shows."""
    viewer = rng.randrange(state.n)
    view = state.view(viewer)
    text = json.dumps(view)
    assert Counter(view["hand"]) == Counter(card_str(c) for c in state.hands[viewer])
    assert view["hand_counts"] == [len(h) for h in state.hands]
    assert view["stock_count"] == len(state.stock)
    twin = type(state).from_json(state.to_json())
    assert isinstance(twin, RummyState)
    others = [s for s in range(state.n) if s != viewer]
    pool = [c for s in others for c in twin.hands[s]] + twin.stock
    rng.shuffle(pool)
    for s in others:
        size = len(twin.hands[s])
        twin.hands[s], pool = sorted(pool[:size]), pool[size:]
    twin.stock = pool
    assert twin.view(viewer) == view, "the view depends on hidden cards"
    assert json.dumps(twin.view(None)) == json.dumps(state.view(None))
    assert "hand" not in state.view(None) and text


def drive(game: str, players: int, seed: int, policy: str, options: dict[str, Any]) -> tuple[RummyState, int]:
    state = get_game(game).new(players, seed=seed, options=options)
    assert isinstance(state, RummyState)
    start = state.clone()
    rng = random.Random(seed)
    bots = [RandomPlayer(seed * 7 + s, policy) for s in range(players)]  # type: ignore[arg-type]
    actions: list[list[Any]] = []
    lays = 0
    while (seat := state.to_act) is not None:
        if len(actions) % 5 == 0:
            check_view(state, rng)
        action = bots[seat].choose(state, seat)
        before = state.clone()
        events = state.act(seat, action)
        assert isinstance(before, RummyState)
        check_move(before, state, seat, action, events)
        lays += action.startswith("lay")
        actions.append([seat, action])
        assert len(actions) < 5000, "the game does not end"
    assert replay(make_record(start, actions)) == state
    return state, lays


@pytest.mark.parametrize(("game", "options", "counts"), VARIANTS, ids=IDS)
def test_selfplay_every_step(game: str, options: dict[str, Any], counts: tuple[int, ...]) -> None:
    """The engine's own checks at every step (refusals change nothing, clone, JSON, replay)."""
    for i, players in enumerate(counts):
        state, actions = play_game(game, players, 100 + i, POLICIES[i % 3], options, check_every=1)
        assert state.over and actions


@pytest.mark.parametrize(("game", "options", "counts"), VARIANTS, ids=IDS)
def test_selfplay_independent_checks(game: str, options: dict[str, Any], counts: tuple[int, ...]) -> None:
    """Our own rules at every move, over a few games per player count; lay-downs do happen."""
    total_lays = 0
    for k, players in enumerate(counts):
        state, lays = drive(game, players, 500 + 10 * players + k, POLICIES[(k + 1) % 3], options)
        total_lays += lays
        assert state.over
    assert total_lays > 0


def test_selfplay_reaches_the_hard_paths() -> None:
    """Random play exercises what the solver is for: lay-downs that rearrange several melds,
    jokers laid from hand and released by their real card, Tahiti's loose singles used."""
    seen: Counter[str] = Counter()
    for game, options in (("carousel", {"target": 60}), ("tahiti", {}), ("machiavelli", {})):
        for seed in range(2):
            state = get_game(game).new(3, seed=seed, options=options)
            assert isinstance(state, RummyState)
            bots = [RandomPlayer(seed + s, "uniform") for s in range(3)]
            while (seat := state.to_act) is not None:
                action = bots[seat].choose(state, seat)
                before = [tuple(m) for m in state.table]
                jokers = joker_meanings(state)
                singles = sum(len(m) == 1 for m in state.table)
                deal = state.deal_no
                state.act(seat, action)
                if not action.startswith("lay") or state.deal_no != deal:
                    continue
                after = [tuple(m) for m in state.table]
                if sum((Counter(before) & Counter(after)).values()) < len(before) - 1:
                    seen[game + " rearranged"] += 1
                if jokers - joker_meanings(state):
                    seen[game + " joker released"] += 1
                if "JK" in action.split("/")[0].split():
                    seen[game + " joker from hand"] += 1
                if sum(len(m) == 1 for m in state.table) < singles:
                    seen[game + " single used"] += 1
    for key in ("carousel rearranged", "machiavelli rearranged", "tahiti rearranged", "carousel joker released",
                "carousel joker from hand", "tahiti joker from hand", "tahiti single used"):
        assert seen[key] > 0, f"no {key} in random play: {seen}"


def test_must_meld_draws_and_passes_only_when_nothing_goes_down() -> None:
    """Shanghai and Manipulation: whenever the engine offers only ``draw`` or ``pass``, no non-empty
    part of the hand goes down (every subset tried with the solver, not with best_subset); whenever
    it offers lay-downs, drawing is refused."""
    checked = 0
    for game in ("shanghai", "manipulation"):
        state = get_game(game).new(3, seed=9, options={"deals": 1, "target": 0})
        assert isinstance(state, RummyState)
        bots = [RandomPlayer(9 + s, "uniform") for s in range(3)]
        while (seat := state.to_act) is not None:
            legal = state.legal_actions(seat)
            hand = state.hands[seat]
            if legal in (["draw"], ["pass"]) and len(hand) <= 9 and checked < 40:
                for size in range(1, len(hand) + 1):
                    for part in set(combinations(sorted(hand), size)):
                        assert melds.solve(state.variant, state.table, list(part)) is None, \
                            f"{game}: {legal} offered but {[card_str(c) for c in part]} goes down"
                checked += 1
            elif legal and legal[0].startswith("lay"):
                assert not state.is_legal(seat, "draw")
            state.act(seat, bots[seat].choose(state, seat))
    assert checked > 3
