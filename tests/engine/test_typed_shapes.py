"""The TypedDicts the engine declares are what the games send: the static types cannot drift.

``State.view`` and ``State.act`` are typed (engine/events.py: ``CommonView``, ``Event``), and each game
declares its own view (the return type of its ``_view``) and events (TypedDicts extending the common
ones, in its rules module or the rummies' base modules). mypy checks the code that builds them; this
checks what seeded random games actually send: every view part has only keys its game's view type
declares, with their types (pydantic, strict), and every event is some declared event shape of its
game with exactly its keys.
"""

from __future__ import annotations

import random
import sys
import typing
from functools import cache
from typing import Any, Literal

import pytest
from pydantic import TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from engine.core import Game, State, all_games
from engine.events import EVENTS, ViewPart

GAMES = all_games()
STEPS = 120  # actions per game: enough to cross bidding, tricks, a deal's end in every game


@cache
def adapter(shape: type) -> TypeAdapter[Any]:
    return TypeAdapter(shape)


def keys(shape: type) -> set[str]:
    """Every key a TypedDict declares, inherited ones included (required or not)."""
    return set(typing.get_type_hints(shape))


def event_shapes(state_cls: type[State]) -> list[type]:
    """The event TypedDicts a game declares: in its state class's modules (the rules module, the
    rummies' base modules) and engine.events; an event shape is one with a ``type`` key."""
    modules = {cls.__module__ for cls in state_cls.__mro__} | {"engine.events"}
    found: dict[str, type] = {}
    for name in sorted(modules):
        for value in vars(sys.modules[name]).values():
            if is_typeddict(value) and value.__module__ == name and "type" in keys(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def shapes_for(kind: str, shapes: list[type]) -> list[type]:
    """A common event (``deal_end``) matches the shapes whose ``type`` is that literal; a game's own
    event (``knock``) the shapes whose ``type`` is any text (``OtherEvent`` and its extensions)."""
    wanted: Any = Literal[kind] if kind in EVENTS else str
    return [s for s in shapes if typing.get_type_hints(s)["type"] == wanted]


def fits(obj: dict[str, Any], shape: type) -> bool:
    if not set(obj) <= keys(shape):
        return False
    try:
        adapter(shape).validate_python(obj, strict=True)
    except ValidationError:
        return False
    return True


def play(game: Game, players: int, seed: int) -> None:
    state = game.new(players, seed=seed)
    view_shape = typing.get_type_hints(type(state)._view)["return"]
    assert is_typeddict(view_shape) and keys(ViewPart) <= keys(view_shape), view_shape
    events_declared = event_shapes(type(state))
    rng = random.Random(seed)
    for _ in range(STEPS):
        for seat in [None, *range(state.n)]:
            part = state._view(seat)
            extra = set(part) - keys(view_shape)
            assert not extra, f"{game.id}: view keys {sorted(extra)} are not in {view_shape.__name__}"
            adapter(view_shape).validate_python(part, strict=True)
        if state.over:
            break
        legal = state.legal_actions()
        seat = state.to_act
        assert seat is not None
        for event in state.act(seat, legal[rng.randrange(len(legal))]):
            candidates = shapes_for(event["type"], events_declared)
            assert any(fits(dict(event), shape) for shape in candidates), (
                f"{game.id}: no declared shape ({', '.join(s.__name__ for s in candidates) or 'none'}) "
                f"is the event {event}")


@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_views_and_events_are_their_declared_types(game: Game) -> None:
    for players in sorted({game.min_players, game.max_players}):
        play(game, players, seed=11 * players)


def test_a_key_the_view_type_does_not_declare_is_caught() -> None:
    """The check above can fail: an undeclared key, or a declared key of the wrong type."""
    from games.oh_hell.rules import OhHellDealEnd, OhHellView

    state = GAMES[[g.id for g in GAMES].index("oh_hell")].new(4, seed=1)
    part: dict[str, Any] = dict(state._view(0))
    assert set(part) <= keys(OhHellView)
    assert not set({**part, "secret": 1}) <= keys(OhHellView)
    with pytest.raises(ValidationError):
        adapter(OhHellView).validate_python({**part, "hand_size": "13"}, strict=True)
    end = {"type": "deal_end", "bids": [1, 2, 3, 4], "tricks": [1, 2, 3, 7], "points": [11, 12, 13, 17],
           "scores": [11, 12, 13, 17], "totals": [11, 12, 13, 17]}
    assert fits(end, OhHellDealEnd) and OhHellDealEnd in shapes_for("deal_end", event_shapes(type(state)))
    assert not fits({**end, "secret": 1}, OhHellDealEnd)
    assert not fits({k: v for k, v in end.items() if k != "tricks"}, OhHellDealEnd)
