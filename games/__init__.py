"""Every game, one package each: ``games/<id>/`` holds the declaration (``__init__.py``), the rules
(``rules.py``, pure engine code), the bot's presentation (``present.py``) and the rules texts
(``texts/rules.<lang>.txt``).

``REGISTERED`` is the one list of games: the engine's registry imports ``games.<id>.rules`` and the
bot's presentation registry ``games.<id>.present`` for each id here, so adding a game is its folder
plus one line below. ``tests/test_conformance.py`` checks every registered game has all its parts.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib import resources

from games.declaration import Declaration

REGISTERED: tuple[str, ...] = (
    "carnival",
    "oh_hell",
    "klaberjass",
    "calabrasella",
    "variety",
    "karusele",
    "svinya",
    "pyanitsa",
    "carousel",
    "machiavelli",
    "tahiti",
    "guadalupe",
    "vatican",
    "shanghai",
    "manipulation",
)


class UnknownGame(LookupError):
    """A game id that is not in ``REGISTERED``."""


def check_id(game_id: str) -> str:
    if game_id not in REGISTERED:
        raise UnknownGame(f"unknown game {game_id!r}; known: {', '.join(sorted(REGISTERED))}")
    return game_id


@cache
def declaration(game_id: str) -> Declaration:
    """The declaration of a registered game (``games/<id>/__init__.py: DECLARATION``); a package
    without one is an error, never a default."""
    module = importlib.import_module(f"games.{check_id(game_id)}")
    found = getattr(module, "DECLARATION", None)
    if not isinstance(found, Declaration) or found.id != game_id:
        declared = f"it declares id {found.id!r}" if isinstance(found, Declaration) else "it declares none"
        raise TypeError(f"games/{game_id}/__init__.py must define DECLARATION = Declaration(id={game_id!r}, ...), "
                        f"the package's name and its rules' GAME_ID ({declared})")
    return found


def declarations() -> list[Declaration]:
    return [declaration(game_id) for game_id in REGISTERED]


def rules_text(game_id: str, lang: str) -> str | None:
    """The game's rules in ``lang`` (``games/<id>/texts/rules.<lang>.txt``), None when not written."""
    path = resources.files(f"games.{check_id(game_id)}") / "texts" / f"rules.{lang}.txt"
    return path.read_text(encoding="utf-8") if path.is_file() else None
