"""Shared pytest configuration: the fake Telegram server's fixtures (``fake``, ``fake_bot``: tests/fakebot/fixtures.py)
the running bot's (``db``, ``app``, ``run_bot``, ``open_table``: tests/bot/harness.py) and both stores' (``store``,
``pg_url``: tests/store/backends.py), for every test; and the ``quick`` tier.

The quick tier (``python -m pytest -m quick``: a later ``-m`` replaces addopts' ``-m "not slow"``) is a
rule, not a list, so that a new test joins it or not by what it is:

1. Every check that needs no Telegram, once: a test that requests neither the fake Bot API (``fake``, hence
   no ``app`` and no ``open_table``) nor is marked slow; the fake server's own tests (tests/fakebot/) count
   as needing none. Of a test parametrized over cases (games, seeds, sizes) the first case only: the check
   runs, and the everyday command runs it for every case. This takes in the engine's and each game's
   rules, the conformance checks, render, the store, the bot's services and keyboards, the layers and
   no-cycles tests.
2. A smoke set through the bot: ``tests/test_conformance.py::test_a_game_through_the_bot`` for the first
   registered game of each kind of hand (``Declaration.hand``: a trick game's move buttons, a rummy's
   toggle hand, Karusele's capture builder).
"""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.fakebot.fixtures", "tests.bot.harness", "tests.store.backends"]

SMOKE_TEST = "tests/test_conformance.py::test_a_game_through_the_bot"


def smoke_games() -> set[str]:
    """The first registered game of each kind of hand."""
    import games

    first: dict[str, str] = {}
    for game_id in games.REGISTERED:
        first.setdefault(games.declaration(game_id).hand, game_id)
    return set(first.values())


def is_quick(item: pytest.Item, seen: set[tuple[str, str]], smoke: set[str]) -> bool:
    if item.get_closest_marker("slow") is not None:
        return False
    name = getattr(item, "originalname", item.name)
    callspec = getattr(item, "callspec", None)
    if item.nodeid.split("[")[0] == SMOKE_TEST:
        return callspec is not None and callspec.params.get("game_id") in smoke
    if "fake" in getattr(item, "fixturenames", ()) and not item.nodeid.startswith("tests/fakebot/"):
        return False
    if callspec is not None:  # parametrized: the first case only
        key = (item.nodeid.split("::")[0], name)
        if key in seen:
            return False
        seen.add(key)
    return True


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m selection reads the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    seen: set[tuple[str, str]] = set()
    smoke = smoke_games()
    for item in items:
        if is_quick(item, seen, smoke):
            item.add_marker(pytest.mark.quick)
        elif item.get_closest_marker("quick") is not None:
            raise pytest.UsageError(f"{item.nodeid} is marked quick by hand: the tier is tests/conftest.py's rule")
