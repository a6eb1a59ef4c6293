"""Real Carnival views from the engine, played by random players, render with only public cards."""

from __future__ import annotations

import pytest

from bot.render import caption_table, layout_standings, layout_table
from games.carnival.grid import caption_grid, layout_grid

engine = pytest.importorskip("engine")


def carnival():
    try:
        return engine.get_game("carnival")
    except Exception:  # the game module is written concurrently
        pytest.skip("games/carnival/rules.py not available")


def public(view: dict) -> list[str]:
    trick = view.get("trick")
    if not (trick and trick.get("plays")):
        trick = view.get("last_trick")
    cards = [c for p in (trick or {}).get("plays", []) for c in p["cards"]]
    return cards + ([view["trump_card"]] if view.get("trump_card") else [])


@pytest.mark.parametrize("players,seed", [(3, 1), (6, 2)])
def test_random_game_pictures(players: int, seed: int) -> None:
    from engine.ai.random import RandomPlayer

    state = carnival().new(players, seed=seed)
    bot = RandomPlayer(seed)
    names = ["Ann", "Борис", "Chen 🎉", "Dora", "Екатерина Длинноимённая", "F"][:players]
    steps = 0
    while not state.over:
        if steps % 7 == 0:  # every 7th position: enough variety, keeps the test fast
            view = state.view(None)
            layout = layout_table(view, names)
            assert sorted(layout.cards) == sorted(public(view))
            own = state.view(state.to_act)
            assert sorted(layout_table(own, names).cards) == sorted(public(own))  # own hand never drawn
            assert len(caption_table(view, names)) <= 1024
        state.act(state.to_act, bot.choose(state))
        steps += 1
    sheet = state.sheet()
    grid = layout_grid(sheet, names)
    assert len([d for d in grid.texts if d.kind == "points"]) == 4 * players * players
    assert [d.text for d in grid.texts if d.kind == "total"] == [
        f"−{-t}" if t < 0 else str(t) for t in sheet["totals"]]
    assert len(caption_grid(sheet, names)) <= 1024
    standings = layout_standings(names, state.scores())
    assert len([d for d in standings.texts if d.kind == "name"]) == players
