"""Checks of a game record's shape before it is replayed, so that a bad record is refused with
one line naming the field and the problem (``players: must be a whole number ...``) instead of
a traceback or a silent misreading (``"players": "abc"`` read as 3 players, ``"seed": null``
replayed with a fresh random seed).

What the games check themselves (a hand of the wrong size, a card not in the pack) stays in
the games; this module checks what is common to every record: the keys, their types, the
actions as ``[seat, text]`` pairs, and of the explicit deals: that each is an object, that
every card is text, that a dealer is a seat, that there are no more of them than the game has
deals, and that a later deal's dealer is the one the game's own rotation gives (``Rotation``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from engine.core import Game, State

FORMAT = "kozyr-record/1"
SEAT_KEYS = frozenset({"dealer", "turn"})  # explicit-deal keys whose value is a seat
NUMBER_KEYS = frozenset({"base"})  # other explicit-deal keys whose value is a number (Svinya's base rank)


class RecordError(ValueError):
    """A record that cannot be replayed as written: ``field`` and ``problem`` for one line."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


def is_int(value: object) -> TypeGuard[int]:
    """A JSON whole number (``true`` is not one, although Python says so)."""
    return isinstance(value, int) and not isinstance(value, bool)


def player_count(record: Mapping[str, Any]) -> int:
    """The number of players: ``players`` is a count or a list of names."""
    if "players" not in record:
        raise RecordError("players", "missing (a number of players or a list of names)")
    players = record["players"]
    if is_int(players):
        return players
    if isinstance(players, list) and all(isinstance(p, str) for p in players):
        return len(players)
    raise RecordError("players", f"must be a whole number or a list of names, not {_show(players)}")


def check_shape(record: Any) -> tuple[str, int, int, dict[str, Any], list[dict[str, Any]]]:
    """(game id, players, seed, options, deals) of a record, each checked for its type."""
    if not isinstance(record, dict):
        raise RecordError("record", f"must be a JSON object, not {type(record).__name__}")
    if record.get("format", FORMAT) != FORMAT:
        raise RecordError("format", f"unknown record format {_show(record.get('format'))} (expected {FORMAT})")
    if "game" not in record:
        raise RecordError("game", "missing (a game id, e.g. carnival)")
    game = record["game"]
    if not isinstance(game, str):
        raise RecordError("game", f"must be a game id, not {_show(game)}")
    players = player_count(record)
    if "seed" not in record:
        raise RecordError("seed", "missing (the whole number the deals are shuffled from)")
    seed = record["seed"]
    if not is_int(seed):
        raise RecordError("seed", f"must be a whole number, not {_show(seed)}")
    options = record.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError("options", f"must be an object of house rules, not {_show(options)}")
    deals = record.get("deals")
    if deals is None:
        deals = []
    if not isinstance(deals, list):
        raise RecordError("deals", f"must be a list of explicit deals, not {_show(deals)}")
    if "actions" in record and not isinstance(record["actions"], list):
        raise RecordError("actions", f'must be a list of [seat, "action"] pairs, not {_show(record["actions"])}')
    return game, players, seed, options, deals


def check_deals(deals: list[Any], players: int) -> None:
    """Each explicit deal is an object; cards are text; seats are seats."""
    for k, deal in enumerate(deals):
        where = f"deals[{k}]"
        if not isinstance(deal, dict):
            raise RecordError(where, f"must be an object (hands, dealer, ...), not {_show(deal)}")
        for key, value in deal.items():
            field = f"{where}.{key}"
            if key in SEAT_KEYS:
                if value is not None and not (is_int(value) and 0 <= value < players):
                    raise RecordError(field, f"{_show(value)} is not a seat (0..{players - 1})")
            elif key in NUMBER_KEYS:
                if not is_int(value):
                    raise RecordError(field, f"must be a whole number, not {_show(value)}")
            else:
                _check_cards(value, field)


def _check_cards(value: Any, field: str) -> None:
    """Cards are written as text (``"10H"``); a number or a ``true`` where a card goes is refused."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_cards(item, f"{field}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_cards(item, f"{field}.{key}")
    elif value is not None and not isinstance(value, str):
        raise RecordError(field, f'{_show(value)} is not a card (cards are text, e.g. "10H")')


def check_action(index: int, item: Any, players: int) -> tuple[int, str]:
    """``[seat, "action"]`` with a seat of the table."""
    field = f"actions[{index}]"
    if not isinstance(item, list | tuple) or len(item) != 2:
        raise RecordError(field, f'must be a [seat, "action"] pair, not {_show(item)}')
    seat, action = item
    if not (is_int(seat) and 0 <= seat < players):
        raise RecordError(field, f"{_show(seat)} is not a seat (0..{players - 1})")
    if not isinstance(action, str) or not action.strip():
        raise RecordError(field, f"the action must be text, not {_show(action)}")
    return seat, action


def deals_in_game(state: State) -> int | None:
    """How many deals the game has, when it says (None: it plays on until a target)."""
    view: Mapping[str, object] = state.view(None)  # the keys are games' own
    for key in ("deals_total", "deals"):
        value = view.get(key)
        if is_int(value):
            return int(value)
    if "deal_no" not in view:
        return 1  # a single-deal game (Pyanitsa, Svinya)
    return None


def check_deal_count(state: State, deals: list[dict[str, Any]]) -> None:
    limit = deals_in_game(state)
    if limit is not None and len(deals) > limit:
        raise RecordError("deals", f"{len(deals)} explicit deals, but this game has {limit}")


class Rotation:
    """Checks that each later explicit deal names the dealer the game's own rotation gives.

    A shadow game is replayed alongside, from the same record with the later deals' dealers
    left out; at each new deal both must agree (the first deal may name any dealer: it starts
    the rotation)."""

    def __init__(self, game: Game, players: int, seed: int, options: dict[str, Any],
                 deals: list[dict[str, Any]]) -> None:
        self.deals = deals
        self.named = [k for k, d in enumerate(deals) if k > 0 and d.get("dealer") is not None]
        self.shadow: State | None = None
        if self.named:
            free = [d if k == 0 else {key: v for key, v in d.items() if key != "dealer"} for k, d in enumerate(deals)]
            self.shadow = game.new(players, seed=seed, options=options, deals=free)

    def step(self, seat: int, action: str, state: State, events: Sequence[Mapping[str, Any]]) -> None:
        """Follow one applied action; refuse at the first deal whose named dealer is off the rotation."""
        if self.shadow is None:
            return
        shadow_events = self.shadow.act(seat, action)
        for ours, theirs in zip(events, shadow_events, strict=False):
            if ours.get("type") == "deal" and ours.get("dealer") != theirs.get("dealer"):
                k = int(ours.get("deal_no", 0)) - 1
                raise RecordError(f"deals[{k}].dealer", f"seat {ours.get('dealer')} contradicts the rotation "
                                                        f"(seat {theirs.get('dealer')} deals deal {k + 1})")
        if not any(k >= int(state.view(None).get("deal_no", 0)) for k in self.named):
            self.shadow = None  # every named dealer is behind us
