"""The events and view fields every game shares, defined once, and a checker for them.

Games return events and views as plain dicts, typed by the TypedDicts below (``Event``, ``CommonView``;
``engine.core`` names them ``Event`` and ``View``): they say which keys and types the *common* ones
always carry, whatever the game, so a consumer (the bot, a log, an AI) can read them without per-game
fallbacks. A game may add keys of its own to any event or view (``deal_end`` of Oh Hell also has
``bids``) by a TypedDict that extends the common one, and may emit event types of its own (``ask``,
``sweep``, ``flip``: they extend ``OtherEvent``); those only need a ``type`` and, if they name a
``seat``, a real one.

The common events (``EVENTS``):

- ``deal``: ``deal_no`` (1-based) and ``dealer`` of the deal that starts.
- ``bid``: ``seat`` and its ``bid`` (a number or a word).
- ``play``: ``seat`` and the ``cards`` it put down (a list, even for one card; ``card`` too when one).
- ``trick``: ``leader``, ``winner``, ``plays`` (``[{"seat", "cards"}, ...]`` in order) and ``cards``
  (every card of the trick, flat).
- ``pass`` / ``draw``: the ``seat`` that passed or drew.
- ``deal_end``: ``scores`` (this deal's points per seat) and ``totals`` (running totals after it).
- ``game_over``: ``winners`` (seats sharing first place) and ``totals`` (final; ``scores`` repeats them).

The common view fields (``CommonView``): ``game``, ``players``, ``seat`` (None: a spectator),
``to_act``, ``over``, ``scores`` (running totals), ``phase``, ``hand_counts``; ``hand`` (the viewer's own
cards, never present for a spectator); and when present, ``deal_no``, ``dealer``, ``trick`` and
``last_trick`` in the shapes below.

The checker, used by tests (tests/engine/test_events.py and the conformance test over every game):

- ``check_event(event, players=None)`` raises ``ShapeError`` naming the event type and the field when a
  common event lacks a common field, has it of the wrong type, or breaks a consistency rule (a seat
  outside ``range(players)``, a trick whose ``cards`` are not its plays' cards, no winner...).
- ``check_view(view)`` does the same for a view: types, lengths per ``players``, ``over`` agreeing with
  ``to_act``, and a ``hand`` only for a seated viewer and of that seat's ``hand_counts`` size.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Literal, NotRequired, cast

from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic reads TypedDicts only from here before Python 3.12

__all__ = [
    "EVENTS", "BidEvent", "CommonView", "DealEndEvent", "DealEvent", "DrawEvent", "Event", "GameOverEvent",
    "OtherEvent", "PassEvent", "Play", "PlayEvent", "ShapeError", "TrickEvent", "TrickView", "ViewPart",
    "check_event", "check_view", "json_events", "json_view",
]

_STRICT = ConfigDict(strict=True)


class ShapeError(ValueError):
    """An event or view that does not have the shape every game promises."""


@with_config(_STRICT)
class Play(TypedDict):
    """One seat's part of a trick (Carnival's plays add ``place``/``mode``)."""

    seat: int
    cards: list[str]


@with_config(_STRICT)
class DealEvent(TypedDict):
    type: Literal["deal"]
    deal_no: int
    dealer: int


@with_config(_STRICT)
class BidEvent(TypedDict):
    type: Literal["bid"]
    seat: int
    bid: int | str


@with_config(_STRICT)
class PlayEvent(TypedDict):
    type: Literal["play"]
    seat: int
    cards: list[str]
    card: NotRequired[str]


@with_config(_STRICT)
class TrickEvent(TypedDict):
    type: Literal["trick"]
    leader: int
    winner: int
    plays: list[Play]
    cards: list[str]


@with_config(_STRICT)
class PassEvent(TypedDict):
    type: Literal["pass"]
    seat: int


@with_config(_STRICT)
class DrawEvent(TypedDict):
    type: Literal["draw"]
    seat: int


@with_config(_STRICT)
class DealEndEvent(TypedDict):
    type: Literal["deal_end"]
    scores: list[int]
    totals: list[int]


@with_config(_STRICT)
class GameOverEvent(TypedDict):
    type: Literal["game_over"]
    winners: list[int]
    totals: list[int]
    scores: list[int]


@with_config(_STRICT)
class OtherEvent(TypedDict):
    """A game's own event: a type, and a real seat if it names one."""

    type: str
    seat: NotRequired[int | None]


@with_config(_STRICT)
class TrickView(TypedDict):
    """The trick on the table (``trick``, with the seat winning it so far as ``best`` where a game
    says) or the last one taken (``last_trick``, with its ``winner``)."""

    leader: int
    plays: list[Play]
    winner: NotRequired[int]
    best: NotRequired[int | None]


@with_config(_STRICT)
class ViewPart(TypedDict):
    """What a game's ``State._view`` gives: the common fields a game knows. Each game's view extends it
    with its own keys (``OhHellView(ViewPart)``); ``State.view`` puts the fields every state knows first."""

    phase: str
    hand_counts: list[int]
    hand: NotRequired[list[str]]
    deal_no: NotRequired[int]
    dealer: NotRequired[int | None]
    trick: NotRequired[TrickView | None]
    last_trick: NotRequired[TrickView | None]


@with_config(_STRICT)
class CommonView(ViewPart):
    """A whole view (``State.view``): the fields every state knows, then its game's ``ViewPart``."""

    game: str
    players: int
    seat: int | None
    to_act: int | None
    over: bool
    scores: list[int]


Event = (DealEvent | BidEvent | PlayEvent | TrickEvent | PassEvent | DrawEvent | DealEndEvent | GameOverEvent
         | OtherEvent)
"""What ``State.act`` returns a list of: one of the common shapes, or a game's own (``OtherEvent``). A game
extends these TypedDicts with keys of its own (``class OhHellDealEnd(DealEndEvent)``); readers that want a
game's extras read them as that game's type, or as a ``Mapping``."""


def json_events(events: list[Event]) -> list[dict[str, Any]]:
    """The same list (no copy), typed as the plain JSON objects its events are: for readers that take
    any game's events as dicts (the bot's words, logs and pictures) rather than as the shapes above."""
    return cast(list[dict[str, Any]], events)


def json_view(view: CommonView) -> dict[str, Any]:
    """The same view (no copy), typed as a plain JSON object: see ``json_events``."""
    return cast(dict[str, Any], view)


EVENTS: dict[str, type] = {
    "deal": DealEvent, "bid": BidEvent, "play": PlayEvent, "trick": TrickEvent, "pass": PassEvent,
    "draw": DrawEvent, "deal_end": DealEndEvent, "game_over": GameOverEvent,
}
"""The common event types and their shapes; any other type is a game's own (``OtherEvent``)."""

@cache
def _adapter(shape: type) -> TypeAdapter[Any]:
    """Built on first use: importing the engine (selfplay, the CLI) should not pay for every schema."""
    return TypeAdapter(shape)


def _validate(shape: type, data: Any, what: str) -> None:
    try:
        _adapter(shape).validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'itself'}: {e['msg']}" for e in exc.errors())
        raise ShapeError(f"{what}: {problems}") from None


def _seat(value: Any, players: int | None, what: str) -> None:
    if players is not None and value is not None and not 0 <= value < players:
        raise ShapeError(f"{what}: seat {value} is not one of {players} seats")


def _per_seat(values: list[Any], players: int | None, what: str) -> None:
    if players is not None and len(values) != players:
        raise ShapeError(f"{what}: {len(values)} entries for {players} seats")


def _check_plays(plays: list[Play], leader: int, players: int | None, what: str) -> None:
    for play in plays:
        _seat(play["seat"], players, f"{what}.plays")
    if plays and plays[0]["seat"] != leader:
        raise ShapeError(f"{what}: the leader is seat {leader} but seat {plays[0]['seat']} played first")


def check_event(event: Mapping[str, Any], players: int | None = None) -> None:
    """Raise ShapeError unless ``event`` has its type's common fields (see the module docstring)."""
    if not isinstance(event, Mapping):
        raise ShapeError(f"an event is a dict, not {type(event).__name__}")
    kind = event.get("type")
    shape = EVENTS.get(kind) if isinstance(kind, str) else None
    what = f"event {kind!r}"
    _validate(shape or OtherEvent, event, what)
    for key in ("seat", "dealer", "leader", "winner"):
        if key in event and isinstance(event[key], int):
            _seat(event[key], players, f"{what}.{key}")
    if kind == "play":
        if not event["cards"]:
            raise ShapeError(f"{what}: no cards")
        if "card" in event and event["cards"] != [event["card"]]:
            raise ShapeError(f"{what}: card {event['card']!r} is not its cards {event['cards']!r}")
    elif kind == "trick":
        plays = event["plays"]
        _check_plays(plays, event["leader"], players, what)
        if [c for p in plays for c in p["cards"]] != event["cards"]:
            raise ShapeError(f"{what}: cards {event['cards']!r} are not the plays' cards")
        if event["winner"] not in {p["seat"] for p in plays}:
            raise ShapeError(f"{what}: the winner, seat {event['winner']}, did not play to it")
    elif kind == "deal":
        if event["deal_no"] < 1:
            raise ShapeError(f"{what}: deal_no {event['deal_no']} is not 1 or more")
    elif kind == "deal_end":
        _per_seat(event["scores"], players, f"{what}.scores")
        _per_seat(event["totals"], players, f"{what}.totals")
    elif kind == "game_over":
        _per_seat(event["totals"], players, f"{what}.totals")
        if event["scores"] != event["totals"]:
            raise ShapeError(f"{what}: scores {event['scores']} differ from totals {event['totals']}")
        winners = event["winners"]
        if not winners or winners != sorted(set(winners)):
            raise ShapeError(f"{what}: winners {winners} are not a sorted, non-empty set of seats")
        for seat in winners:
            _seat(seat, players, f"{what}.winners")


def check_view(view: Mapping[str, Any]) -> None:
    """Raise ShapeError unless ``view`` has the common view fields (see the module docstring)."""
    if not isinstance(view, Mapping):
        raise ShapeError(f"a view is a dict, not {type(view).__name__}")
    _validate(CommonView, view, "view")
    players, seat = view["players"], view["seat"]
    what = f"view of {view['game']!r} for seat {seat}"
    if players < 1:
        raise ShapeError(f"{what}: {players} players")
    _seat(seat, players, f"{what}.seat")
    _seat(view["to_act"], players, f"{what}.to_act")
    _seat(view.get("dealer"), players, f"{what}.dealer")
    _per_seat(view["scores"], players, f"{what}.scores")
    _per_seat(view["hand_counts"], players, f"{what}.hand_counts")
    if view["over"] != (view["to_act"] is None):
        raise ShapeError(f"{what}: over is {view['over']} but to_act is {view['to_act']}")
    if "hand" in view:
        if seat is None:
            raise ShapeError(f"{what}: a spectator is shown a hand")
        if len(view["hand"]) != view["hand_counts"][seat]:
            raise ShapeError(f"{what}: a hand of {len(view['hand'])} cards but hand_counts says "
                             f"{view['hand_counts'][seat]}")
    for key in ("trick", "last_trick"):
        trick = view.get(key)
        if trick is not None:
            _check_plays(trick["plays"], trick["leader"], players, f"{what}.{key}")
            if key == "last_trick" and trick.get("winner") not in {p["seat"] for p in trick["plays"]}:
                raise ShapeError(f"{what}.last_trick: the winner did not play to it")
