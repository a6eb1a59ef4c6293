"""The rummies' house rules the lobby can step through with a button (match lengths: deals, a
penalty target, Carousel's target), as each game declares them (``games/<id>/__init__.py``):
the engine's option models accept wide ranges, the declarations list the values people choose."""

from __future__ import annotations

from typing import Any

from bot.rummy import is_rummy


def preset_choices(game_id: str) -> dict[str, list[Any]]:
    if not is_rummy(game_id):
        return {}
    from games import declaration

    return {o.key: list(o.choices) for o in declaration(game_id).options if o.choices}
