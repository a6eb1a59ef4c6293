"""A game's identity (id, name, players) comes from its declaration alone; the registry refuses one that
names another game or an empty player range."""

from __future__ import annotations

import sys
import types

import pytest

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
