"""Seeded Oh Hell games replay exactly as they did before the fast path was tuned.

A digest of many random games: every fast legal list (its order too), every action, the scores and the
final state, under several house rules and player counts, with clones and public steps mixed in, and
games dealt from a given pack. The expected value was computed on the code before the tuning; a change
of any legal list's order, a dealt hand or a score changes it. If a rule change is meant to change
play, recompute it and say so in the commit."""

from __future__ import annotations

import hashlib
import json
import random

from engine.core import get_game
from games.oh_hell.rules import OhHellState, shuffled_pack

EXPECTED = "d2b3b0d99e193b91abca450b7e3614d152dddc2b3d4c90fb4f08affd9fc5540c"

OPTIONS = [
    {},
    {"hook": True},
    {"zero_bonus": True, "hand_sizes": "up_and_down"},
    {"hand_sizes": [10], "last_deal_no_trump": False},
    {"hand_sizes": [13, 5, 1], "hook": True},
]


def games_digest(games: int) -> str:
    game = get_game("oh_hell")
    digest = hashlib.sha256()

    def feed(value: object) -> None:
        digest.update(json.dumps(value, sort_keys=True).encode())

    for seed in range(1, games + 1):
        spec = OPTIONS[seed % len(OPTIONS)]
        sizes = spec.get("hand_sizes")
        players = 4 if sizes == [13, 5, 1] else 3 + seed % 3 if sizes == [10] else 3 + seed % 5
        options = game.parse_options(spec)
        rnd = random.Random(seed).random
        state = game.new(players, seed=seed, options=options)
        steps = 0
        while state.current is not None:
            legal = state.fast_legal()
            action = legal[int(rnd() * len(legal))]
            feed([list(legal), action])
            state.fast_apply(action)
            steps += 1
            if steps % 23 == 0:
                state = state.clone()
            if steps % 31 == 0 and state.to_act is not None:
                texts = state.legal_actions()
                feed(texts)
                state.act(state.to_act, texts[int(rnd() * len(texts))])
        feed([state.scores(), state.to_json()])
        if players == 4:
            state = OhHellState.from_pack(4, options, shuffled_pack(random.Random(seed)), seed)
            while state.current is not None:
                legal = state.fast_legal()
                action = legal[int(rnd() * len(legal))]
                feed([list(legal), action])
                state.fast_apply(action)
            feed(state.scores())
    return digest.hexdigest()


def test_seeded_games_replay_as_before() -> None:
    assert games_digest(150) == EXPECTED
