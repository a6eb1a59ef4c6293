"""The hand keyboard built as plain JSON (``play_markup``, the hot path) is exactly what aiogram's models dump,
and its buttons carry exactly what ``CallbackData.pack`` would put in them."""

from __future__ import annotations

import json
import random

import pytest
from aiogram.types import InlineKeyboardMarkup

import games
from bot.presentation.registry import presentation
from bot.services.hands.buttons import group_actions, play_markup
from bot.services.outbox import markup_data
from bot.ui.callbacks import Cap, Menu, Move, Pick
from engine.core import get_game


def _legal_lists(game_id: str, games_played: int = 2, moves: int = 60) -> list[list[str]]:
    game = get_game(game_id)
    found: list[list[str]] = []
    for seed in range(games_played):
        state = game.new(game.min_players, seed=seed + 1)
        rng = random.Random(seed)
        for _ in range(moves):
            if state.over or state.to_act is None:
                break
            legal = state.legal_actions(state.to_act)
            found.append(legal)
            state.act(state.to_act, rng.choice(legal))
    return found


@pytest.mark.parametrize("game_id", games.REGISTERED)
def test_play_markup_is_the_models_json_with_the_packed_data(game_id: str) -> None:
    for n, legal in enumerate(_legal_lists(game_id)):
        for lang in ("en", "ru"):
            groups = group_actions(legal, game_id)
            for group in [None, *range(len(groups))]:
                markup = play_markup(game_id, 7, n, legal, lang, group)
                # what aiogram's models dump, key order too (the outbox compares stored payloads as text)
                as_models = markup_data(InlineKeyboardMarkup.model_validate(markup))
                assert json.dumps(as_models) == json.dumps(markup)
                moves = []
                for row in markup["inline_keyboard"]:
                    for button in row:
                        data = button["callback_data"]
                        factory = {"mv": Move, "mn": Menu, "pk": Pick, "cp": Cap}[data.split(":")[0]]
                        unpacked = factory.unpack(data)
                        assert unpacked.pack() == data and unpacked.t == 7 and unpacked.v == n
                        if isinstance(unpacked, Move):
                            moves.append(unpacked.i)
                            assert button["text"] == presentation(game_id).action_label(legal[unpacked.i], lang)
                if group is not None:
                    assert moves == groups[group]


def test_a_top_level_keyboard_offers_every_action_once() -> None:
    legal = ["play C10", "play HK", "play JK over", "play JK under", "pass"]
    markup = play_markup("carnival", 3, 9, legal, "en")
    datas = [b["callback_data"] for row in markup["inline_keyboard"] for b in row]
    assert datas == ["mv:3:9:0", "mv:3:9:1", "mn:3:9:2", "mv:3:9:4"]
    assert play_markup("carnival", 3, 9, legal, "en", 2)["inline_keyboard"][-1] == [
        {"text": "« Back", "callback_data": "mn:3:9:-1"}]
