"""The engine's fast path (integer actions, no events) against the public contract, in every game.

At every step of random games: the fast legal set maps one to one onto ``legal_actions`` through
``action_to_text``/``text_to_action``, ``current`` is ``to_act``, and one action applied by ``act``
(text) or by ``fast_apply`` (int) gives equal states (``to_json``). Whole games played on the fast
path alone replay through the text path (``act``) to the same scores and the same final state.
"""

from __future__ import annotations

import random

import pytest

from engine.core import Game, State, all_games, deal_rng, get_game
from games.oh_hell.rules import OhHellState, shuffled_pack

GAMES = [(game.id, players) for game in all_games() for players in sorted({game.min_players, game.max_players})]
MAX_STEPS = 2500  # a game longer than this is cut (the checks still ran on every step before)


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
