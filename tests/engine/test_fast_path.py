"""The engine's fast path (integer actions, no events) against the public contract, in every game.

At every step of random games: the fast legal set maps one to one onto ``legal_actions`` through
``action_to_text``/``text_to_action``, ``current`` is ``to_act``, and one action applied by ``act``
(text) or by ``fast_apply`` (int) gives equal states (``to_json``). Whole games played on the fast
path alone replay through the text path (``act``) to the same scores and the same final state.
"""

from __future__ import annotations

import random

import pytest

from engine.cards import deck
from engine.core import Game, State, all_games, deal_rng, get_game
from engine.core import shuffle as core_shuffle
from games.oh_hell.rules import OhHellOptions, OhHellState, shuffled_pack

# Manipulation's games are long simulations (ten seconds each): in the full run, not in -m "not slow".
GAMES = [pytest.param(game.id, players, marks=[pytest.mark.slow] if game.id == "manipulation" else [])
         for game in all_games() for players in sorted({game.min_players, game.max_players})]
MAX_STEPS = 2500  # a game longer than this is cut (the checks still ran on every step before)
MIXED_STEPS = 400  # the mixed-paths test: several deals and hand-overs in every game, in seconds


def check_legal_maps(state: State) -> list[int]:
    """The fast legal set is the text legal set, one to one; returns the fast list (copied)."""
    fast = list(state.fast_legal())
    texts = [state.action_to_text(a) for a in fast]
    assert len(set(fast)) == len(fast), f"repeated fast actions: {texts}"
    assert sorted(texts) == sorted(state.legal_actions()), "fast and text legal sets differ"
    assert [state.text_to_action(t) for t in texts] == fast, "text_to_action is not the inverse"
    return fast


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_every_step_fast_equals_text(game_id: str, players: int) -> None:
    game: Game = get_game(game_id)
    state = game.new(players, seed=4242 + players)
    rng = random.Random(players)
    steps = 0
    while state.to_act is not None and steps < MAX_STEPS:
        assert state.current == state.to_act
        fast = check_legal_maps(state)
        action = fast[rng.randrange(len(fast))]
        by_text = state.clone()
        events = by_text.act(state.to_act, state.action_to_text(action))
        assert events, "the public path still reports events"
        state.fast_apply(action)
        assert state.to_json() == by_text.to_json(), f"step {steps}: fast_apply differs from act"
        steps += 1
    if steps < MAX_STEPS:
        assert state.current is None and state.over
        assert state.fast_legal() == []
    assert steps > 10


@pytest.mark.parametrize(("game_id", "players"), GAMES)
@pytest.mark.parametrize("seed", [1, 77])
def test_fast_game_replays_through_text(game_id: str, players: int, seed: int) -> None:
    game = get_game(game_id)
    fast_state = game.new(players, seed=seed)
    rng = random.Random(seed)
    played: list[tuple[int, str]] = []
    while fast_state.current is not None and len(played) < MAX_STEPS:
        legal = fast_state.fast_legal()
        action = legal[rng.randrange(len(legal))]
        played.append((fast_state.current, fast_state.action_to_text(action)))
        fast_state.fast_apply(action)
    text_state = game.new(players, seed=seed)
    for seat, text in played:
        text_state.act(seat, text)
    assert text_state.scores() == fast_state.scores()
    assert text_state.to_json() == fast_state.to_json()
    assert type(fast_state).from_json(fast_state.to_json()).to_json() == text_state.to_json()
    if len(played) < MAX_STEPS:
        assert text_state.over and fast_state.over


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_paths_mixed_with_clones_and_json(game_id: str, players: int) -> None:
    """What a fast path keeps beside the FIELDS (derived, never in the JSON) follows the state through every
    hand-over: a random mix of ``act``, ``fast_apply``, ``clone`` and ``from_json`` plays the same game, with
    the same legal sets, as the public path alone."""
    game = get_game(game_id)
    mixed = game.new(players, seed=99 + players)
    public = game.new(players, seed=99 + players)
    rng = random.Random(players * 7 + 1)
    steps = 0
    while public.to_act is not None and steps < MIXED_STEPS:
        fast = check_legal_maps(mixed)
        assert sorted(public.legal_actions()) == sorted(mixed.legal_actions())
        action = fast[rng.randrange(len(fast))]
        text = mixed.action_to_text(action)
        public.act(public.to_act, text)
        if rng.random() < 0.5:
            mixed.fast_apply(action)
        else:
            mixed.act(mixed.to_act, text)  # type: ignore[arg-type]
        handover = rng.random()
        if handover < 0.1:
            mixed = type(mixed).from_json(mixed.to_json())
        elif handover < 0.3 and mixed.current is not None:
            twin = mixed.clone()  # play on in the copy or in the original: the other must not notice
            if rng.random() < 0.5:
                mixed, twin = twin, mixed
            legal = twin.fast_legal()
            twin.fast_apply(legal[rng.randrange(len(legal))])
        assert mixed.to_json() == public.to_json(), f"step {steps}"
        steps += 1
    assert steps > 10


def test_fast_legal_is_refreshed_after_public_calls() -> None:
    """Mixing the paths: a cached public legal list never leaks into the next step."""
    state = get_game("oh_hell").new(4, seed=3)
    while state.current is not None:
        state.legal_actions()  # fills the public path's cache
        state.fast_apply(state.fast_legal()[0])
        if state.current is not None:
            assert state.legal_actions() == [state.action_to_text(a) for a in state.fast_legal()]


def test_oh_hell_from_pack_deals_like_the_seed() -> None:
    """A game dealt from a given pack equals the seeded game whose shuffle gave that pack."""
    game = get_game("oh_hell")
    options = game.parse_options({"hand_sizes": [5, 6]})
    assert isinstance(options, OhHellOptions)
    seeded = game.new(4, seed=99, options=options)
    dealt = OhHellState.from_pack(4, options, shuffled_pack(deal_rng(99, 0)), seed=99)
    assert dealt.to_json() == seeded.to_json()
    other = OhHellState.from_pack(4, options, shuffled_pack(random.Random(5)), seed=99)
    assert other.to_json()["state"]["hands"] != seeded.to_json()["state"]["hands"]


def test_oh_hell_codes_are_fixed() -> None:
    """Oh Hell's ints are the card codes and 64 + the bid, the same in every process."""
    state = get_game("oh_hell").new(4, seed=1)
    assert state.text_to_action("play AS") == 14 and state.action_to_text(14) == "play AS"
    assert state.text_to_action("bid 3") == 67 and state.action_to_text(64) == "bid 0"


def test_action_codec_round_trips_and_refuses_unknown_codes() -> None:
    """Codes are the same in every process: fixed small ones, else the text's bytes; nothing else decodes."""
    from engine.core import ActionCodec

    codec = ActionCodec()
    codec.fix(7, "bid 7")
    texts = ["bid 7", "take 7H 3S+4D (AH+6C)", "trail JS", "x", "пас"]
    codes = [codec.code(t) for t in texts]
    assert codes[0] == 7 and len(set(codes)) == len(codes)
    assert [codec.text(c) for c in codes] == texts
    assert ActionCodec().code("trail JS") == codes[2]  # another codec (another process) agrees
    for bad in (8, -1, (1 << 40) + 3, 5 << 20):
        with pytest.raises(ValueError):
            codec.text(bad)
    with pytest.raises(ValueError):
        codec.fix(1 << 20, "too big")
    with pytest.raises(ValueError):
        codec.fix(8, "bid 7")  # one text, one code


def test_deal_rng_is_the_text_seeded_generator() -> None:
    """``deal_rng`` seeds once, but stored seeds must keep replaying: the generator is exactly
    ``random.Random("kozyr/<seed>/<deal>")``, state and draws (gauss too), for any seed."""
    for seed in (0, 1, 12345, 2**53 - 1, -7):
        for deal in (0, 1, 14):
            ours, text_seeded = deal_rng(seed, deal), random.Random(f"kozyr/{seed}/{deal}")
            assert type(ours) is random.Random
            assert ours.getstate() == text_seeded.getstate()
            assert [ours.random(), ours.gauss(0, 1), ours.randrange(52)] == \
                [text_seeded.random(), text_seeded.gauss(0, 1), text_seeded.randrange(52)]


def test_shuffle_is_random_shuffle() -> None:
    """``engine.core.shuffle`` replaces ``rng.shuffle`` in the deals, so stored seeds replay only if it
    gives the very same permutation and leaves the generator in the same state, for every pack size."""
    for seed in range(150):
        for size in (0, 1, 2, 3, 32, 36, 52, 56, 76, 108):
            ours, theirs = deal_rng(seed, 3), deal_rng(seed, 3)
            cards_ours, cards_theirs = list(range(size)), list(range(size))
            core_shuffle(ours, cards_ours)
            theirs.shuffle(cards_theirs)
            assert cards_ours == cards_theirs
            assert ours.getstate() == theirs.getstate()


def test_oh_hell_shuffled_pack_is_the_sort_by_random_keys() -> None:
    """``shuffled_pack`` draws its sort keys in C; it must be the sort by one ``rng.random()`` per card in pack
    order that dealt every stored seed (the same pack, the generator left in the same state)."""
    for seed in range(300):
        ours, theirs = [deal_rng(seed, 0) if seed % 2 else random.Random(seed) for _ in range(2)]
        rnd = theirs.random
        assert shuffled_pack(ours) == sorted(deck(52), key=lambda _card: rnd())
        assert ours.getstate() == theirs.getstate()


def test_carnival_fast_legal_lists_the_text_order() -> None:
    """Carnival's fast legal list is ``legal_actions`` in the same order (its own promise, beyond the same
    set): the fast step's shortcuts (a forced suit, a lead's Carnivals, bids before the hook) keep it."""
    game = get_game("carnival")
    steps = 0
    for players in (3, 4, 6):
        for seed in range(4):
            state = game.new(players, seed=seed, options={"quarters": 2})
            rng = random.Random(seed)
            while state.current is not None:
                fast = state.fast_legal()
                assert [state.action_to_text(a) for a in fast] == state.legal_actions(), f"step {steps}"
                state.fast_apply(fast[rng.randrange(len(fast))])
                steps += 1
    assert steps > 2000


@pytest.mark.parametrize("options", [{"hook": True}, {"zero_bonus": True, "hand_sizes": "up_and_down"}])
def test_oh_hell_fast_path_under_house_rules(options: dict) -> None:
    """The Oh Hell fast step keeps the next legal list and the scoring itself: with the hook the dealer's
    list lacks a bid, with the zero bonus a made 0 scores 5 + the cards dealt; every step equals ``act``."""
    game = get_game("oh_hell")
    for players in (3, 5):
        state = game.new(players, seed=players, options=options)
        rng = random.Random(players)
        while state.current is not None:
            fast = check_legal_maps(state)
            action = fast[rng.randrange(len(fast))]
            by_text = state.clone()
            by_text.act(state.current, state.action_to_text(action))
            state.fast_apply(action)
            assert state.to_json() == by_text.to_json()
        assert state.over
