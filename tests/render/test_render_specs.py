"""Picture specs as the outbox keeps them: drawn by the game they name."""

from __future__ import annotations

from bot.render import examples as ex
from bot.services.pictures import GridPicture, Pictures


def test_a_grid_spec_without_its_game_draws_the_grid_game() -> None:
    """Specs queued before grid specs named their game were all the one grid game's (Carnival's)."""
    sheet = ex.sheet_example(4, 5)
    named: GridPicture = {"kind": "grid", "game": "carnival", "sheet": sheet, "names": ex.NAMES_6[:4], "lang": "ru",
                          "totals": None, "current": 6}
    older = {key: value for key, value in named.items() if key != "game"}
    assert Pictures.render(older) == Pictures.render(dict(named))
