"""The rummies' AI (games/rummies/ai.py) and the questions the bot asks the engine."""

from __future__ import annotations

import pytest

from engine.ai import choose_action, only_action
from engine.cards import parse_card
from engine.core import get_game
from engine.melds import best_subset
from engine.rummy.base import RummyState, is_lay, parse_lay
from engine.rummy.largest import largest_lay

GAMES = [("carousel", 3, {"target": 40}), ("machiavelli", 4, {}), ("tahiti", 4, {}), ("guadalupe", 4, {}),
         ("vatican", 4, {}), ("shanghai", 4, {}), ("manipulation", 4, {"deals": 1, "target": 0})]


@pytest.mark.parametrize(("game", "n", "options"), GAMES)
def test_ai_seats_finish_every_rummy_with_legal_moves(game, n, options):
    state = get_game(game).new(n, seed=11, options=options)
    assert isinstance(state, RummyState)
    moves = 0
    while (seat := state.to_act) is not None:
        action = choose_action(state, seat, "normal", moves)
        assert state.is_legal(seat, action), action
        if is_lay(action) and state.may_lay():  # the largest part of the hand that goes down
            size = len(best_subset(state.variant, state.table, state.hands[seat]))
            assert len(parse_lay(action)[0]) <= size
        if not is_lay(action) and state.may_lay():  # a verb only when nothing more goes down
            assert largest_lay(state) is None, (action, state.legal_actions())
        forced = state.forced_action()
        if forced is not None:
            assert state.legal_actions() == [forced] and action == forced
        state.act(seat, action)
        state.check_invariants()
        moves += 1
        assert moves < 3000
    assert state.over


def test_the_ai_lays_down_the_largest_subset_when_it_goes():
    state = get_game("machiavelli").new(2, seed=1, deals=[{"dealer": 1, "hands": [
        ["7H", "8H", "9H", "5S", "5D", "5C", "KC", "QD", "2S", "3D", "4C", "JH", "10S"],
        ["7S", "8S", "9S", "6H", "6D", "6C", "KD", "QC", "2H", "3C", "4D", "JS", "10H"]]}])
    assert isinstance(state, RummyState)
    lay = largest_lay(state)
    assert lay is not None and sorted(parse_lay(lay)[0]) == sorted(best_subset(state.variant, [], state.hands[0]))
    assert len(parse_lay(lay)[0]) == 6
    assert state.forced_action() is None  # may draw or lay: a choice


def test_a_must_meld_draw_is_forced_only_when_nothing_goes_down():
    state = get_game("shanghai").new(3, seed=2, deals=[{"dealer": 2, "hands": [
        ["2S", "5H", "8D", "JC", "KS", "3H", "6D", "9C", "QS", "10D"],
        ["7S", "8S", "9S", "6H", "6D", "6C", "KD", "QC", "2H", "3C"],
        ["AS", "AD", "3S", "10C", "JD", "5C", "7D", "9S", "QH", "2C"]]}])
    assert isinstance(state, RummyState)
    assert state.to_act == 0 and state.forced_action() == "draw"


def carousel_after_a_partial_lay() -> RummyState:
    """Carousel, seat 0 after drawing and laying 5-8♥ as a run: 8♠ 8♦ still go down (with the run's
    8♥ as a set), a rearrangement the sample of lay-downs does not list: the only listed move is ``end``."""
    state = get_game("carousel").new(2, seed=1, options={"target": 40}, deals=[{"dealer": 1, "hands": [
        ["5H", "6H", "7H", "8H", "8S", "8D", "KC", "QD", "2S", "3D"],
        ["7S", "9S", "JS", "6D", "10D", "6C", "KD", "QC", "2H", "3C"]]}])
    assert isinstance(state, RummyState)
    state.act(0, "draw")
    state.act(0, state.canonical_action("lay 5H 6H 7H 8H"))
    return state


def test_the_carousel_ai_keeps_laying_down_within_a_turn():
    state = carousel_after_a_partial_lay()
    assert state.to_act == 0 and state.legal_actions() == ["end"]
    assert only_action(state, state.legal_actions()) is None  # not forced: a lay-down may hide behind it
    action = choose_action(state, 0, "normal", 0)
    assert is_lay(action) and sorted(parse_lay(action)[0]) == sorted([parse_card("8S"), parse_card("8D")])
    state.act(0, action)
    assert state.to_act == 0  # still seat 0's turn: laying down does not end it
    assert choose_action(state, 0, "normal", 0) == "end"  # nothing more goes down


def test_a_move_the_rules_force_needs_no_thought():
    state = get_game("carousel").new(2, seed=1, options={"target": 40})
    assert isinstance(state, RummyState)
    assert only_action(state, state.legal_actions()) == "draw"  # a turn starts with a draw
