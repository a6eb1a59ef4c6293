"""The rummies' house rules the lobby can step through with a button: match lengths (deals, a
penalty target, Carousel's target). The engine's option models accept wide ranges; these are the
values people actually choose (RULES.md 8-9), first the default."""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, list[Any]]] = {
    "carousel": {"target": [150, 100, 50, 300]},
    "machiavelli": {"deals": [1, 2, 3, 5], "target": [0, 50, 100]},
    "tahiti": {"deals": [1, 2, 3, 5], "target": [0, 100, 200]},
    "guadalupe": {"deals": [1, 2, 3, 5], "target": [0, 20, 50]},
    "shanghai": {"deals": [1, 2, 3, 5], "target": [0, 50, 100]},
    "manipulation": {"target": [200, 300, 100], "deals": [0, 1, 3]},
}


def preset_choices(game_id: str) -> dict[str, list[Any]]:
    return {k: list(v) for k, v in PRESETS.get(game_id, {}).items()}
