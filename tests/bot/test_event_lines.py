"""The group's log lines read the common events (engine/events.py) of every chat game without per-game
fallbacks: every event of a random game, in both languages, gives a line or None, never an error; the
lines of a deal's end show that deal's scores, and Klaberjass's shows each side's counted points."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

import games
from bot.presentation.registry import presentation
from engine.core import Event, get_game

NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal"]


def events_of(game_id: str, seed: int = 4) -> tuple[int, list[Event]]:
    game = get_game(game_id)
    players = game.min_players
    options = {"deals": 2} if "deals" in game.options.model_fields else {}
    state = game.new(players, seed=seed, options=options)
    rng = random.Random(seed)
    events: list[Event] = []
    while not state.over and len(events) < 3000:
        seat = state.to_act
        assert seat is not None
        events += state.act(seat, rng.choice(state.legal_actions()))
    return players, events


@pytest.mark.parametrize("game_id", [d.id for d in games.declarations() if d.chat_table])
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_event_has_a_line_or_none(game_id: str, lang: str) -> None:
    players, events = events_of(game_id)
    names = NAMES[:players]
    for event in events:
        line = presentation(game_id).event_line(event, names, lang)
        assert line is None or (isinstance(line, str) and line.strip()), event


def numbers(line: str) -> list[int]:
    return [int(x) for x in re.findall(r"[-+−]?\d+", line.replace("−", "-"))]


def test_a_deal_end_line_shows_the_deals_scores() -> None:
    """Carnival has no log line of its own for a deal's end: the common one shows ``scores``."""
    players, events = events_of("carnival")
    end: dict[str, Any] = next(e for e in events if e["type"] == "deal_end")
    line = presentation("carnival").event_line(end, NAMES[:players], "en")
    assert line is not None
    assert numbers(line) == end["scores"]


def test_klaberjass_deal_end_line_shows_counted_points() -> None:
    _, events = events_of("klaberjass")
    ends = [e for e in events if e["type"] == "deal_end" and not e.get("annulled")]
    assert ends
    for end in ends:
        line = presentation("klaberjass").event_line(end, NAMES[:2], "en")
        assert line is not None
        counted = f"{NAMES[0]} {end['counted'][0]}, {NAMES[1]} {end['counted'][1]}"
        assert counted in line, (line, end)
