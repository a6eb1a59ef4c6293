"""What a record may show while its game is still on: the public log, never the seed or any hand.

A full record (seed, options, every action) replays the game exactly, so mid-game it would show every
hand and every future deal to anyone who asks. Until the game ends ``/record`` gives the log lines the
group has already seen, rebuilt from the stored actions; the full record comes when the game is over.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from bot.presentation.registry import presentation
from bot.ui import words
from bot.ui.i18n import t
from engine.events import json_events
from engine.record import start

_TAG = re.compile(r"</?[a-z]+[^>]*>")
FINISHED = ("finished", "cancelled")


def plain(html_text: str) -> str:
    """Telegram HTML as the reader sees it: tags dropped, entities decoded."""
    return html.unescape(_TAG.sub("", html_text))


def public_lines(game: str, options: dict[str, Any], seed: int, names: Sequence[str],
                 actions: Sequence[Sequence[Any]], lang: str) -> list[str]:
    """The group log of the game so far, line by line (plain text): exactly what the table has shown."""
    state = start({"game": game, "players": list(names), "options": options, "seed": seed})
    lines: list[str] = []
    for seat, action in actions:
        for event in json_events(state.act(int(seat), str(action))):
            line = presentation(game).event_line(event, names, lang)
            if line:
                lines.append(plain(line))
    return lines


def public_log(game: str, options: dict[str, Any], seed: int, names: Sequence[str],
               actions: Sequence[Sequence[Any]], lang: str) -> str:
    """The mid-game ``/record`` document: the game, the players, the moves so far and the public log."""
    head = [f"{words.title(game, lang)}: " + t(lang, "the game is still on; this is its public log so far."),
            t(lang, "Players: {names}", names=", ".join(words.plain_name(n) for n in names)),
            t(lang, "Moves so far: {n}", n=len(actions)), ""]
    return "\n".join(head + public_lines(game, options, seed, names, actions, lang)) + "\n"
