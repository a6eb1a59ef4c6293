"""Game records: the PGN of this project. A record is plain JSON that replays a game exactly.

``{"format": "kozyr-record/1", "game": id, "players": [names], "options": {...}, "seed": int,
"deals": [explicit deals, optional], "actions": [[seat, "action"], ...]}``
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.cards import card_str, parse_card
from engine.core import GameError, IllegalAction, OptionsError, State, get_game
from engine.record_check import (
    FORMAT,
    RecordError,
    Rotation,
    check_action,
    check_deal_count,
    check_deals,
    check_shape,
)

__all__ = ["FORMAT", "RecordError", "ReplayError", "dumps", "load", "make_record", "replay", "start", "summary"]


class ReplayError(ValueError):
    """An action in a record that is not legal where it stands."""

    def __init__(self, index: int, seat: int, action: str, reason: str) -> None:
        super().__init__(f"action #{index} (seat {seat}, {action!r}) is illegal: {reason}")
        self.index = index
        self.seat = seat
        self.action = action
        self.reason = reason


def make_record(
    state: State,
    actions: Sequence[Sequence[Any]],
    players: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The record of the game that ``state`` started as, with ``actions`` applied since.

    ``state`` may be the start or any later state of that game: seed, options and explicit
    deals are the same throughout.
    """
    names = list(players) if players is not None else [f"P{i + 1}" for i in range(state.n)]
    record: dict[str, Any] = {
        "format": FORMAT,
        "game": state.GAME_ID,
        "players": names,
        "options": state.options.model_dump(mode="json"),
        "seed": state.seed,
        "actions": [[int(seat), str(action)] for seat, action in actions],
    }
    if state.deals:
        record["deals"] = state.deals
    return record


def start(record: dict[str, Any]) -> State:
    """The initial state a record describes; RecordError (one line: field and problem) when the
    record is malformed."""
    game_id, players, seed, options, deals = check_shape(record)
    try:
        game = get_game(game_id)
    except GameError as exc:
        raise RecordError("game", str(exc)) from None
    if not game.min_players <= players <= game.max_players:
        raise RecordError("players", f"{game_id} is for {game.min_players}-{game.max_players} players, not {players}")
    check_deals(deals, players)
    try:
        state = game.new(players, seed=seed, options=options, deals=deals)
    except OptionsError as exc:
        raise RecordError("options", str(exc)) from None
    except GameError as exc:
        raise RecordError("deals", str(exc)) from None
    check_deal_count(state, deals)
    return state


def replay(record: dict[str, Any], upto: int | None = None) -> State:
    """Replay a record (finished or not); RecordError for a malformed record, ReplayError at the
    first illegal action. An action differing from a legal one only in letter case (``play 10h``)
    is read as that action."""
    state = start(record)
    game_id, players, seed, options, deals = check_shape(record)
    rotation = Rotation(state.game, players, seed, options, deals)
    actions = record.get("actions", [])
    for index, item in enumerate(actions[:upto]):
        seat, action = check_action(index, item, players)
        action = _cased(state, seat, action)
        try:
            events = state.act(seat, action)
        except IllegalAction as exc:
            raise ReplayError(index, seat, action, _explain(state, seat, action, exc.reason)) from None
        try:
            rotation.step(seat, action, state, events)
        except IllegalAction:
            rotation.shadow = None  # the shadow cannot follow: nothing more to compare
    played = state.view(None).get("deal_no")
    if state.over and upto is None and isinstance(played, int) and len(deals) > played:
        raise RecordError("deals", f"{len(deals)} explicit deals, but the game ended after {played}")
    return state


def _cased(state: State, seat: int, action: str) -> str:
    """``play 10h`` -> ``play 10H`` when exactly one legal action matches it but for letter case."""
    if state.is_legal(seat, action):
        return action
    legal = state.legal_actions(seat)
    folded = [a for a in legal if a.lower() == action.lower()]
    return folded[0] if len(folded) == 1 else action


def _explain(state: State, seat: int, action: str, reason: str) -> str:
    """Say which verb or card was not understood when the game gives only the generic reason."""
    if reason != "not a legal action now":
        return reason
    legal = state.legal_actions(seat)
    if not legal:
        return reason
    words = action.split()
    verbs = sorted({a.split()[0] for a in legal})
    if words[0].lower() not in verbs:
        return f"{reason}: the verb {words[0]!r} is not understood here (now: {', '.join(verbs)})"
    known = {w.upper() for a in legal for w in a.split()[1:]}
    for word in words[1:]:
        if word.upper() in known:
            continue
        try:
            card = card_str(parse_card(word.upper()))
        except ValueError:
            return f"{reason}: {word!r} is not understood (not a card, nor a word of a legal action)"
        return f"{reason}: {card} cannot be used that way now (legal: {_some(legal)})"
    return f"{reason} (legal: {_some(legal)})"


def _some(legal: list[str], limit: int = 12) -> str:
    shown = ", ".join(legal[:limit])
    return shown + (f" and {len(legal) - limit} more" if len(legal) > limit else "")


def summary(state: State) -> dict[str, Any]:
    """What ``python -m engine replay`` prints: over, scores, winners, the score sheet."""
    return {
        "game": state.GAME_ID,
        "over": state.over,
        "to_act": state.to_act,
        "scores": state.scores(),
        "winners": state.winners(),
        "sheet": state.sheet(),
    }


def load(path: str | Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))  # check_shape checks it
    return record


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, indent=1)
