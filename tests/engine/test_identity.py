"""A game's identity (id, name, players) comes from its declaration alone; the registry refuses one that
names another game or an empty player range, and a package whose rules' ``GAME_ID`` is not the package's id,
with an error that names ``GAME_ID`` (the field the author has to fix)."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import engine.core
import games
from engine.core import GameError, get_game, identity
from games import declaration
from games.declaration import Declaration


def ghost_package(monkeypatch: pytest.MonkeyPatch, declared: Declaration) -> None:
    package = types.ModuleType("games.ghost")
    package.DECLARATION = declared  # type: ignore[attr-defined]  # a package's declaration, set by hand
    monkeypatch.setitem(sys.modules, "games.ghost", package)


def test_the_game_reads_its_name_and_players_from_the_declaration() -> None:
    game = get_game("klaberjass")
    declared = declaration("klaberjass")
    assert game.identity is declared
    assert (game.name, game.min_players, game.max_players) == (declared.title, *declared.players)


def test_a_declaration_naming_another_game_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    ghost_package(monkeypatch, Declaration(id="phantom", title="Ghost", players=(2, 4)))
    with pytest.raises(GameError, match="with id 'ghost'"):
        identity("ghost")


def test_an_empty_player_range_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    ghost_package(monkeypatch, Declaration(id="ghost", title="Ghost", players=(4, 2)))
    with pytest.raises(GameError, match="players"):
        identity("ghost")


RULES = """
from engine.core import Game, Options, State, register


class GhostOptions(Options):
    pass


class GhostState(State):
    GAME_ID = {game_id!r}


register(Game(options=GhostOptions, state=GhostState))
"""


@pytest.fixture
def on_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[[str, str], None]]:
    """``on_disk(declared_id, rules_game_id)``: a real package ``games/haunt/`` (in tmp_path, on the ``games``
    package's path and in ``REGISTERED``) whose declaration and rules name those ids; imported as any game is.
    The registry's tables are copies for the test: nothing of the package outlives it."""
    monkeypatch.setattr(engine.core, "_REGISTRY", dict(engine.core._REGISTRY))
    monkeypatch.setattr(engine.core, "_IDENTITIES", dict(engine.core._IDENTITIES))
    monkeypatch.setattr(games, "__path__", [*games.__path__, str(tmp_path)])
    monkeypatch.setattr(games, "REGISTERED", (*games.REGISTERED, "haunt"))
    for name in ("games.haunt", "games.haunt.rules"):
        monkeypatch.delitem(sys.modules, name, raising=False)  # and removed again after the test

    def write(declared_id: str, rules_game_id: str) -> None:
        (tmp_path / "haunt").mkdir()
        (tmp_path / "haunt" / "__init__.py").write_text(
            "from games.declaration import Declaration\n"
            f"DECLARATION = Declaration(id={declared_id!r}, title='Haunt', players=(2, 4))\n")
        (tmp_path / "haunt" / "rules.py").write_text(RULES.format(game_id=rules_game_id))
    yield write
    for name in ("games.haunt", "games.haunt.rules"):
        sys.modules.pop(name, None)


def test_a_wrong_game_id_in_the_rules_is_named(on_disk: Callable[[str, str], None]) -> None:
    on_disk("haunt", "haunted")
    with pytest.raises(GameError, match=r"GhostState\.GAME_ID is 'haunted'; GAME_ID must be the package's id 'haunt'"):
        get_game("haunt")


def test_a_declaration_naming_another_game_names_game_id(on_disk: Callable[[str, str], None]) -> None:
    on_disk("haunted", "haunt")
    with pytest.raises(GameError, match=r"with id 'haunt', the package's name and its rules' GAME_ID "
                                        r"\(it declares id 'haunted'\)"):
        get_game("haunt")
    with pytest.raises(TypeError, match=r"Declaration\(id='haunt', ...\), the package's name and its rules' GAME_ID"):
        declaration("haunt")


def test_rules_that_register_no_game_name_game_id(on_disk: Callable[[str, str], None], tmp_path: Path) -> None:
    on_disk("haunt", "haunt")
    (tmp_path / "haunt" / "rules.py").write_text("")
    with pytest.raises(GameError, match=r"does not register a game 'haunt'.*GAME_ID is 'haunt'"):
        get_game("haunt")
