"""AI players: determinisation, the heuristic and search levels, the arena."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from engine.__main__ import main as engine_main
from engine.ai import LEVELS, choose_action, heuristic_action
from engine.ai.sampling import Slot, deal_hidden
from engine.ai.search import ismcts, supports
from engine.arena import run as arena_run
from engine.cards import parse_card, suit_of
from engine.core import State, get_game
from games.oh_hell.ai import oh_hell_policy

# (game, players, options) with determinize; Svinya and Pyanitsa fall back to the heuristic.
SEARCHED = [
    ("oh_hell", 4, None), ("oh_hell", 3, None), ("variety", 4, None), ("carnival", 3, None), ("carnival", 5, None),
    ("klaberjass", 2, None), ("calabrasella", 3, None), ("karusele", 3, None), ("karusele", 4, {"teams": True}),
]
EVERY_GAME = [*SEARCHED, ("svinya", 3, None), ("pyanitsa", 3, None)]
CARD_FIELDS = ("hands", "stock", "extra", "widow", "discards", "pile", "played", "taken", "piles", "trick")


def new_game(game: str, players: int, **kwargs: Any) -> Any:
    """A new game, typed loosely: the tests read each game's own fields (hands, bids, the dix ...)."""
    return get_game(game).new(players, **kwargs)


def positions(game: str, players: int, options: dict | None, seed: int, every: int = 5,
              limit: int = 160) -> Iterator[Any]:
    """States met along a random game, every ``every`` moves, up to ``limit`` moves."""
    state = new_game(game, players, seed=seed, options=options)
    rng = random.Random(seed)
    for step in range(limit):
        if state.over:
            return
        if step % every == 0:
            yield state.clone()
        actions = state.legal_actions()
        state.act(state.to_act, actions[rng.randrange(len(actions))])


def all_cards(state: State) -> Counter[int]:
    """Every card the state holds in its card fields (hands, stock, piles, the trick ...)."""
    found: Counter[int] = Counter()

    def walk(value: object) -> None:
        if isinstance(value, int) and not isinstance(value, bool):
            found[value] += 1
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for name in CARD_FIELDS:
        value = getattr(state, name, None)
        if name == "discards" and getattr(state, "phase", "") != "take":
            continue  # Calabrasella: once play starts the discards are also in the pile
        if name == "trick" and isinstance(value, dict):  # Carnival: {"plays": [[seat, cards, place]]}
            value = [p[1] for p in value["plays"]]
        elif name == "trick" and value and isinstance(value[0], list):  # [[seat, card], ...]
            value = [c for _, c in value]
        walk(value)
    return found


@pytest.mark.parametrize(("game", "players", "options"), SEARCHED)
def test_determinize_keeps_the_seats_view_and_the_cards(game: str, players: int, options: dict | None) -> None:
    changed = 0
    for state in positions(game, players, options, seed=3):
        before = state.to_json()
        for seat in range(players):
            sample = state.determinize(seat, random.Random(seat))
            assert sample.view(seat) == state.view(seat), "the seat would see a different game"
            assert all_cards(sample) == all_cards(state), "cards were created or lost"
            sample.check_invariants()
            if seat == state.to_act:
                assert sample.legal_actions(seat) == state.legal_actions(seat)
            changed += sample.to_json()["state"] != before["state"]
        assert state.to_json() == before, "determinize changed the original"
    assert changed, "determinize never dealt anything afresh"


@pytest.mark.parametrize(("game", "players", "options"), SEARCHED)
def test_determinize_hides_future_deals(game: str, players: int, options: dict | None) -> None:
    state = new_game(game, players, seed=5, options=options)
    sample = state.determinize(state.to_act, random.Random(1))
    assert sample.seed != state.seed and sample.deals == []


def _oh_hell_with_void() -> Any:
    """4 players, 3 cards: seat 0 leads AS, seat 1 has no spade and plays 2H; three spades are unseen
    by seat 3 (JS with seat 0, KS QS with seat 2)."""
    deal = {"dealer": 3, "trump": "KC",
            "hands": [["AS", "JS", "3D"], ["2H", "5H", "6D"], ["KS", "QS", "9H"], ["7C", "8C", "9C"]]}
    state = new_game("oh_hell", 4, seed=1, options={"hand_sizes": [3], "last_deal_no_trump": False},
                                    deals=[deal])
    for action in ("bid 1", "bid 1", "bid 1", "bid 0", "play AS", "play 2H"):
        state.act(state.to_act, action)
    return state


def test_determinize_respects_a_revealed_void() -> None:
    state = _oh_hell_with_void()
    spades_elsewhere: Counter[int] = Counter()
    hands_of_seat_1 = set()
    for i in range(200):
        sample = state.determinize(3, random.Random(i))
        assert all(suit_of(c) != 0 for c in sample.hands[1]), "seat 1 showed it has no spade"
        for s in (0, 2):
            spades_elsewhere[s] += sum(1 for c in sample.hands[s] if suit_of(c) == 0)
        hands_of_seat_1.add(tuple(sorted(sample.hands[1])))
    assert spades_elsewhere[0] and spades_elsewhere[2], "the unseen spades go to the seats that may hold them"
    assert len(hands_of_seat_1) > 1, "seat 1's other cards are dealt afresh"


def test_klaberjass_keeps_the_dix_card_with_its_taker() -> None:
    for seed in range(200):
        state = new_game("klaberjass", 2, seed=seed)
        state.act(state.to_act, "take")
        seat = state.to_act
        if "dix" in state.legal_actions(seat):
            state.act(seat, "dix")
            took = parse_card(state.dix["took"])
            for i in range(30):
                assert took in state.determinize(1 - seat, random.Random(i)).hands[seat]
            return
    pytest.fail("no deal with a dix in 200 seeds")


def test_calabrasella_keeps_the_asked_card_with_the_soloist() -> None:
    for seed in range(300):
        state = new_game("calabrasella", 3, seed=seed)
        state.act(state.to_act, "declare")
        soloist = state.soloist
        asks = [a for a in state.legal_actions(soloist) if a.startswith("ask")]
        if not asks:
            continue
        state.act(soloist, asks[0])
        if state.asked["holder"] is None:
            continue
        card = parse_card(state.asked["card"])
        third = next(s for s in range(3) if s not in (soloist, state.asked["holder"]))
        for i in range(30):
            assert card in state.determinize(third, random.Random(i)).hands[soloist]
        return
    pytest.fail("no deal with an answered ask in 300 seeds")


def test_deal_hidden_fills_every_slot_and_respects_voids() -> None:
    pool = [parse_card(c) for c in ("AS", "KS", "QS", "2H", "3H", "4D", "5D", "6C")]
    slots = [Slot(3, void={0}), Slot(3, known=[parse_card("7C")]), Slot(3)]
    for i in range(100):
        dealt = deal_hidden(slots, pool, random.Random(i))
        assert [len(h) for h in dealt] == [3, 3, 3]
        assert not any(suit_of(c) == 0 for c in dealt[0])
        assert parse_card("7C") in dealt[1]
        assert sorted(c for h in dealt for c in h) == sorted([*pool, parse_card("7C")])
    with pytest.raises(ValueError):
        deal_hidden([Slot(2)], pool, random.Random(0))


@pytest.mark.parametrize(("game", "players", "options"), EVERY_GAME)
def test_every_level_picks_a_legal_action(game: str, players: int, options: dict | None) -> None:
    for state in positions(game, players, options, seed=11, every=9, limit=120):
        seat = state.to_act
        legal = state.legal_actions(seat)
        before = state.to_json()
        for level in LEVELS:
            action = choose_action(state, seat, level, seed=1, budget_ms=10_000, max_iterations=12)
            assert action in legal, (level, action)
        assert state.to_json() == before, "choosing a move changed the game"


@pytest.mark.parametrize(("game", "players", "options"), SEARCHED)
def test_ai_moves_depend_only_on_what_the_seat_sees(game: str, players: int, options: dict | None) -> None:
    """No peeking: two games the seat cannot tell apart (the same view, other cards elsewhere) get the same
    move from every level with the same seed, so an AI seat or a hint never uses a card it has not seen."""
    compared = 0
    for state in positions(game, players, options, seed=21, every=11, limit=110):
        seat = state.to_act
        twin = state.determinize(seat, random.Random(99))
        assert twin.view(seat) == state.view(seat)
        for level in LEVELS:
            ours = choose_action(state, seat, level, seed=4, budget_ms=1e9, max_iterations=20)
            theirs = choose_action(twin, seat, level, seed=4, budget_ms=1e9, max_iterations=20)
            assert ours == theirs, (level, ours, theirs)
        compared += 1
    assert compared


def test_search_stops_at_its_iteration_cap() -> None:
    state = new_game("oh_hell", 4, seed=2, options={"hand_sizes": [5]})
    result = ismcts(state, state.to_act, budget_ms=1e9, max_iterations=25, rng=random.Random(0))
    assert result.iterations == 25
    assert result.nodes <= 26  # one node per iteration: memory bounded by the cap
    assert sum(result.visits.values()) == 25


def test_search_stops_when_its_clock_runs_out() -> None:
    ticks = itertools.count()
    state = new_game("carnival", 3, seed=2)
    # a fake clock that advances 1 ms per reading: a 10 ms budget allows about ten iterations
    result = ismcts(state, state.to_act, budget_ms=10, rng=random.Random(0), clock=lambda: next(ticks) / 1000)
    assert 1 <= result.iterations <= 11
    assert result.action in state.legal_actions()


def test_search_restricts_the_root_to_its_candidates() -> None:
    state = new_game("oh_hell", 4, seed=2, options={"hand_sizes": [5]})
    result = ismcts(state, state.to_act, budget_ms=1e9, max_iterations=40, rng=random.Random(0),
                    candidates=["bid 0", "bid 1"])
    assert result.action in ("bid 0", "bid 1") and set(result.visits) <= {"bid 0", "bid 1"}


def test_search_is_supported_where_determinize_exists() -> None:
    for game, players, options in SEARCHED:
        assert supports(new_game(game, players, seed=1, options=options))
    assert not supports(new_game("svinya", 3, seed=1))


def test_heuristic_ducks_once_its_bid_is_made() -> None:
    # seat 1 bid 0 and holds the 2H and the AH; seat 0 leads the 3H: ducking means the 2H
    deal = {"dealer": 2, "trump": "KC", "hands": [["3H", "4D"], ["2H", "AH"], ["5S", "6S"]]}
    state = new_game("oh_hell", 3, seed=1, options={"hand_sizes": [2], "last_deal_no_trump": False},
                                    deals=[deal])
    for action in ("bid 1", "bid 0", "bid 0", "play 3H"):
        state.act(state.to_act, action)
    assert heuristic_action(state, 1) == "play 2H"


def test_heuristic_wins_cheaply_when_last_and_short_of_its_bid() -> None:
    deal = {"dealer": 2, "trump": "KC", "hands": [["3H", "4D"], ["5H", "6D"], ["AH", "6H"]]}
    state = new_game("oh_hell", 3, seed=1, options={"hand_sizes": [2], "last_deal_no_trump": False},
                                    deals=[deal])
    for action in ("bid 0", "bid 0", "bid 1", "play 3H", "play 5H"):
        state.act(state.to_act, action)
    assert state.to_act == 2
    # both hearts beat the 5H; last to play, the 6H is enough and the ace is kept
    assert heuristic_action(state, 2) == "play 6H"


def test_heuristic_beats_random_on_duplicate_oh_hell_deals() -> None:
    options = {"hand_sizes": [7], "last_deal_no_trump": False}
    result = arena_run("oh_hell", 4, ["heuristic", "random", "random", "random"], 40, 1, options=options)
    diff = result["differences"]["heuristic-random"]
    assert diff["ci95"][0] > 0, diff


def test_search_beats_random_on_duplicate_oh_hell_deals() -> None:
    options = {"hand_sizes": [4], "last_deal_no_trump": False}

    def searcher(state: State, seat: int, rng: random.Random) -> str:
        return choose_action(state, seat, "normal", rng, budget_ms=1e9, max_iterations=150)

    result = arena_run("oh_hell", 3, ["search", "random", "random"], 8, 1, options=options,
                       choosers={"search": searcher})
    assert result["differences"]["search-random"]["mean"] > 0


def test_arena_summary_counts_every_decision() -> None:
    result = arena_run("klaberjass", 2, ["heuristic", "random"], 3, 4)
    assert result["deals"] == 3 and set(result["kinds"]) == {"heuristic", "random"}
    for kind in result["kinds"].values():
        assert kind["decisions"] > 0 and kind["mean_decision_ms"] is not None
        assert 0.0 <= kind["win_rate"] <= 1.0
        lo, hi = kind["ci95"]
        assert lo <= kind["mean_score_per_deal"] <= hi
    mine = result["kinds"]["heuristic"]["mean_score_per_deal"] - result["kinds"]["random"]["mean_score_per_deal"]
    assert result["differences"]["heuristic-random"]["mean"] == pytest.approx(mine, abs=0.01)


def test_arena_cli_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = engine_main(["arena", "--game", "oh_hell", "--players", "3", "--seats", "normal,heuristic,random",
                        "--deals", "1", "--seed", "2", "--budget-ms", "5", "--option", "hand_sizes=2"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["kinds"]) == {"normal", "heuristic", "random"} and out["budget_ms"] == 5


def test_arena_cli_refuses_a_bad_seat_list(capsys: pytest.CaptureFixture[str]) -> None:
    code = engine_main(["arena", "--game", "oh_hell", "--players", "3", "--seats", "strong,random", "--deals", "1"])
    assert code == 2
    assert "3 players" in capsys.readouterr().err
    code = engine_main(["arena", "--game", "oh_hell", "--players", "3", "--seats", "strong,random,genius"])
    assert code == 2 and "genius" in capsys.readouterr().err


def _three_hand_oh_hell(hands: list[list[str]], moves: list[str]) -> Any:
    deal = {"dealer": 2, "trump": "KC", "hands": hands}
    state = new_game("oh_hell", 3, seed=1, options={"hand_sizes": [len(hands[0])], "last_deal_no_trump": False},
                                    deals=[deal])
    for action in moves:
        state.act(state.to_act, action)
    return state


def _policy_move(state: Any, epsilon: float = 0.0, seed: int = 0) -> str:
    seat = state.current
    legal = list(state.fast_legal())
    return state.action_to_text(oh_hell_policy(state, seat, legal, random.Random(seed), epsilon))


def test_rollout_policy_keeps_to_the_bid() -> None:
    # seat 1 bid 0: under the 3H it ducks with the 2H, though the ace would win
    state = _three_hand_oh_hell([["3H", "4D"], ["2H", "AH"], ["5S", "6S"]], ["bid 1", "bid 0", "bid 0", "play 3H"])
    assert _policy_move(state) == "play 2H"
    # seat 2 bid 1 and plays last: the 6H is enough, the ace is kept
    state = _three_hand_oh_hell([["3H", "4D"], ["5H", "6D"], ["AH", "6H"]], ["bid 0", "bid 0", "bid 1", "play 3H",
                                                                             "play 5H"])
    assert _policy_move(state) == "play 6H"
    # short of its bid and void in the led suit, seat 1 trumps; once made (bid 0) it throws its top heart
    state = _three_hand_oh_hell([["3D", "4H"], ["2C", "AH"], ["5D", "6S"]], ["bid 0", "bid 1", "bid 0", "play 3D"])
    assert _policy_move(state) == "play 2C"
    state = _three_hand_oh_hell([["3D", "4H"], ["2C", "AH"], ["5D", "6S"]], ["bid 0", "bid 0", "bid 0", "play 3D"])
    assert _policy_move(state) == "play AH"


def test_rollout_policy_bids_by_the_hand_and_strays_at_its_rate() -> None:
    strong = _three_hand_oh_hell([["AC", "QC", "JC"], ["2H", "3H", "4D"], ["5S", "6S", "7D"]], [])
    weak = _three_hand_oh_hell([["2H", "3H", "4D"], ["AC", "QC", "JC"], ["5S", "6S", "7D"]], [])
    strong_bids = Counter(_policy_move(strong, seed=i) for i in range(50))
    weak_bids = Counter(_policy_move(weak, seed=i) for i in range(50))
    assert strong_bids.most_common(1)[0][0] in ("bid 2", "bid 3") and weak_bids.most_common(1)[0][0] == "bid 0"
    state = _three_hand_oh_hell([["3H", "4D"], ["2H", "AH"], ["5S", "6S"]], ["bid 1", "bid 0", "bid 0", "play 3H"])
    strays = sum(_policy_move(state, epsilon=0.5, seed=i) == "play AH" for i in range(400))
    assert 60 < strays < 140  # half the moves random, half of those the ace: about 100 of 400


def test_deal_hidden_without_voids_is_uniform_and_keeps_known_cards() -> None:
    pool = [parse_card(c) for c in ("AS", "KS", "2H", "3H")]
    slots = [Slot(2), Slot(3, known=[parse_card("7C")])]
    seen: Counter[tuple[int, ...]] = Counter()
    for i in range(1200):
        dealt = deal_hidden(slots, pool, random.Random(i))
        assert [len(h) for h in dealt] == [2, 3] and parse_card("7C") in dealt[1]
        assert sorted(dealt[0] + dealt[1]) == sorted([*pool, parse_card("7C")])
        seen[tuple(sorted(dealt[0]))] += 1
    assert len(seen) == 6 and min(seen.values()) > 120  # C(4,2) = 6 hands for the first slot, 200 each
