"""Finding a game's presentation: ``presentation(game)`` imports ``games/<game>/present.py`` (named by
``games.REGISTERED``) and returns its ``PRESENTATION``; a game without one, or one that defines the wrong
thing, is an error, never a silent default. The bot's services ask here; a game's own modules never do.
"""

from __future__ import annotations

import importlib
from functools import cache

import games
from bot.presentation.base import NoPresentation, Presentation
from games.declaration import HandKind


@cache
def presentation(game: str) -> Presentation:
    """The presentation of ``game`` (``games/<game>/present.py: PRESENTATION``); NoPresentation when the
    game is unknown, has no chat table yet, or its module is missing or defines something else."""
    try:
        declared = games.declaration(game)
    except games.UnknownGame as exc:
        raise NoPresentation(str(exc)) from None
    try:
        module = importlib.import_module(f"games.{game}.present")
    except ModuleNotFoundError as exc:
        if exc.name != f"games.{game}.present":
            raise
        why = "" if declared.chat_table else " (its declaration says: no chat table yet)"
        raise NoPresentation(f"games/{game}/present.py is missing{why}") from None
    found = getattr(module, "PRESENTATION", None)
    if not isinstance(found, Presentation) or found.game != game:
        raise NoPresentation(f"games/{game}/present.py must define PRESENTATION, a Presentation for {game!r}")
    return found


def hand_kind(game: str) -> HandKind:
    """The kind of hand the game's players act with (its declaration's ``hand``)."""
    return games.declaration(game).hand
