"""Game records: the PGN of this project. A record is plain JSON that replays a game exactly.

``{"format": "kozyr-record/1", "game": id, "players": [names], "options": {...}, "seed": int,
"deals": [explicit deals, optional], "actions": [[seat, "action"], ...]}``
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.core import IllegalAction, State, get_game

FORMAT = "kozyr-record/1"


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
    """The initial state a record describes."""
    if record.get("format", FORMAT) != FORMAT:
        raise ValueError(f"unknown record format {record.get('format')!r}")
    game = get_game(record["game"])
    players = record["players"]
    count = players if isinstance(players, int) else len(players)
    return game.new(count, seed=record.get("seed", 0), options=record.get("options"), deals=record.get("deals"))


def replay(record: dict[str, Any], upto: int | None = None) -> State:
    """Replay a record (finished or not); raise ReplayError at the first illegal action."""
    state = start(record)
    for index, (seat, action) in enumerate(record.get("actions", [])[:upto]):
        try:
            state.act(int(seat), str(action))
        except IllegalAction as exc:
            raise ReplayError(index, int(seat), str(action), exc.reason) from None
    return state


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
    return json.loads(Path(path).read_text(encoding="utf-8"))


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, indent=1)
