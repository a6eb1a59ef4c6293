"""What the bot needs to know about a game, declared by the game itself (``games/<id>/__init__.py``).

Plain data on purpose: the declaration imports neither the engine nor the bot, so tools, docs and the
conformance test can read every game's capabilities without starting anything. The words in it
(option descriptions) are English gettext msgids; the bot translates them (``tools/i18n.py`` collects
them from the declarations).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

SheetKind = Literal["grid", "sheet", "none"]
HandKind = Literal["buttons", "toggle", "capture"]


@dataclass(frozen=True)
class Option:
    """A house rule as the lobby offers it: the engine option ``key``, what it does (an English msgid),
    and the values the lobby's button cycles through (empty: set only by typing ``/new GAME key=value``)."""

    key: str
    description: str
    choices: tuple[bool | int | str, ...] = ()


@dataclass(frozen=True)
class Teams:
    """Fixed partnerships: with ``players`` seated (and the bool option ``option`` on, when named), the
    seats in ``seats`` play and are rated together."""

    players: int
    seats: tuple[tuple[int, ...], ...]
    option: str = ""


@dataclass(frozen=True)
class Declaration:
    """A game's capabilities.

    ``trick_game``: a trick-taking game (the table picture of played tricks, the trick words).
    ``score_sheet``: the score picture after each deal: ``grid`` (Carnival's quarter grid), ``sheet``
    (the generic per-deal sheet) or ``none``.
    ``table_picture``: the group's table message is a picture (``present.draw_table`` draws it).
    ``chat_table``: the chat can seat the game (False: the engine plays it, the chat not yet: ``/new``
    refuses it, ``/games`` hides it, ``/rules`` explains it).
    ``forced_moves_play``: a seat with exactly one legal move plays it without a button, and the round
    lines go to the group's log (games where most moves are forced); ``forced_option`` names an option
    whose value ``forced_off`` turns that off (Pyanitsa's ``flip=button``).
    ``teams``: fixed partnerships (rated together by the league). ``deal_side``: the field of each deal
    in ``State.sheet()`` naming the seat (an int) or seats (a list) that played that deal against the
    rest (Calabrasella's ``soloist``, Variety's ``attackers``): partnerships that change every deal.
    ``quick``: house rules for a short game, as typed after ``/new GAME`` (``key=value``): what the
    conformance test and demos play.
    ``hand``: the kind of hand a player acts with in the DM: ``buttons`` (one button per legal move,
    grouped), ``toggle`` (hand cards toggled on and off, then a lay-down the bot proposes and the player
    confirms) or ``capture`` (move buttons plus a card-by-card capture builder). The bot picks the hand's
    UI by this, never by the game's id.
    """

    id: str
    title: str  # the game's one name (an English msgid; Russian in games/<id>/locale/ru.po)
    players: tuple[int, int]
    trick_game: bool = False
    score_sheet: SheetKind = "none"
    table_picture: bool = False
    chat_table: bool = True
    forced_moves_play: bool = False
    forced_option: str = ""
    forced_off: str = ""
    teams: Teams | None = None
    deal_side: str = ""
    options: tuple[Option, ...] = field(default=())
    quick: tuple[tuple[str, str], ...] = ()
    hand: HandKind = "buttons"

    def teams_of(self, options: Mapping[str, Any], n: int) -> list[list[int]]:
        """The seats rated together: the declared partnerships when they apply, else each seat alone."""
        teams = self.teams
        if teams is not None and n == teams.players and (not teams.option or options.get(teams.option)):
            return [list(team) for team in teams.seats]
        return [[s] for s in range(n)]

    def deal_teams(self, sheet: Mapping[str, Any], n: int) -> list[list[list[int]]]:
        """Per finished deal, the side named by ``deal_side`` against the other seats (none without one)."""
        out: list[list[list[int]]] = []
        for deal in sheet.get("deals") or [] if self.deal_side else []:
            side = deal.get(self.deal_side)
            seats = sorted(side) if isinstance(side, list) else [side] if isinstance(side, int) else []
            if seats:
                out.append([seats, [s for s in range(n) if s not in seats]])
        return out

    def quick_command(self) -> str:
        """``/new`` arguments for a short game: ``quarters=1``."""
        return " ".join(f"{key}={value}" for key, value in self.quick)

    def option(self, key: str) -> Option:
        for option in self.options:
            if option.key == key:
                return option
        raise KeyError(f"{self.id} declares no option {key!r}")
