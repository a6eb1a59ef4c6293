"""The bot's AI seats (bot/services/ai_seats.py) ask the solver in a rummy even when the engine lists
one move: a lone ``end`` may hide a lay-down (the Carousel AI kept laying down)."""

from __future__ import annotations

from bot.services.ai_seats import AiSeats
from engine.cards import parse_card
from engine.rummy.base import is_lay, parse_lay
from tests.engine.test_rummy_ai import carousel_after_a_partial_lay


async def test_an_ai_seat_lays_down_what_the_listed_moves_hide():
    state = carousel_after_a_partial_lay()
    assert state.legal_actions() == ["end"]
    ai = AiSeats(think_ms=5.0)
    try:
        action = await ai.choose(state.clone(), 0, seed=1)
        assert is_lay(action) and sorted(parse_lay(action)[0]) == sorted([parse_card("8S"), parse_card("8D")])
        state.act(0, action)
        assert await ai.choose(state.clone(), 0, seed=1) == "end"
    finally:
        ai.close()
