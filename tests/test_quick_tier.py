"""The quick tier is tests/conftest.py's rule: what it marks needs no Telegram (the fake server's own tests
and the smoke set apart), is never slow, and the smoke set plays one game of each kind of hand."""

from __future__ import annotations

import pytest

import games
from tests.conftest import SMOKE_TEST, smoke_games


def test_the_smoke_set_is_one_game_of_each_kind_of_hand() -> None:
    kinds = [games.declaration(game_id).hand for game_id in smoke_games()]
    assert sorted(kinds) == sorted({d.hand for d in games.declarations()})


def test_what_the_rule_marks_quick(request: pytest.FixtureRequest) -> None:
    quick = [item for item in request.session.items if item.get_closest_marker("quick") is not None]
    assert quick, "the rule marked nothing"
    assert not [item.nodeid for item in quick if item.get_closest_marker("slow") is not None]
    through_telegram = {item.nodeid for item in quick if "fake" in getattr(item, "fixturenames", ())
                        and not item.nodeid.startswith("tests/fakebot/")}
    assert through_telegram == {f"{SMOKE_TEST}[{game_id}]" for game_id in smoke_games()} & {
        item.nodeid for item in request.session.items}
