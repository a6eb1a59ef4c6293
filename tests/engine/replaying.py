"""Replaying a game record with the events of every action: what the engine tests recount points from."""

from __future__ import annotations

from typing import Any

from engine.record import start


def play_with_events(record: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    """The record's final state and every event its actions produced, in order."""
    state = start(record)
    events: list[dict[str, Any]] = []
    for seat, action in record["actions"]:
        events.extend(state.act(seat, action))
    return state, events
