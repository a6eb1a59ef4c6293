"""Which table a group command means. A chat (a forum topic) holds at most one ordinary table, but a running
tournament adds its round's tables beside it (a round robin: every round's at once), so /score, /record,
/pause, /resume, /extend and /cancel may name one: ``/score 2`` (table 2 of the current round), ``/score 3.2``
(round 3, table 2) or ``/score #41`` (a table's id, as the chooser shows it). Named nothing with several
running, the command answers with the choice (bot/handlers/here.py draws it as buttons).

Only tables of the chat and topic the command came from are ever found: a table's id from another chat
names nothing here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.services.core import TableCore
from bot.services.types import Where
from bot.store.contract import StoreTx as Tx
from bot.store.rows import BoardRow, SeatRow, TableRow, TournamentRow
from bot.ui import words
from bot.ui.bounds import parse_id
from bot.ui.i18n import t

LIVE = ("lobby", "playing")
NAMED = re.compile(r"^(?:#([0-9]{1,12})|([0-9]{1,3})\.([0-9]{1,3})|([0-9]{1,3}))$")  # ASCII digits only
CHOICES = 12  # the chooser's buttons at most (a round robin of six in threes runs ten tables at once)


@dataclass(frozen=True)
class Running:
    """A table of this chat and topic, with its place in a tournament (None for an ordinary table)."""

    table: TableRow
    seats: list[SeatRow]
    board: BoardRow | None = None

    def label(self, lang: str) -> str:
        """The chooser's words for it (plain text: a button): where it is in the tournament, who plays, the game."""
        names = ", ".join(s.name for s in self.seats) or "—"
        game = words.title(self.table.game, lang)
        if self.board is None:
            return t(lang, "#{id} {game}: {names}", id=self.table.id, game=game, names=names)
        return t(lang, "#{id} {game}, round {r}, table {n}: {names}", id=self.table.id, game=game,
                 r=self.board.round + 1, n=self.board.board + 1, names=names)


@dataclass
class Picked:
    """What a command names: one table, a choice among several, or nothing (``unknown``: it named a table
    that is not here)."""

    table: Running | None = None
    choices: list[Running] = field(default_factory=list)
    unknown: bool = False


class TablesHere:
    """Finds the tables of a chat and topic (reads only)."""

    def __init__(self, core: TableCore) -> None:
        self.store = core.store

    async def running(self, where: Where) -> list[Running]:
        """The ordinary table in its lobby or in play, then the running tournament's live tables."""
        async with self.store.read() as tx:
            return await self._running(tx, where)

    async def _running(self, tx: Tx, where: Where) -> list[Running]:
        found: list[Running] = []
        ordinary = await tx.open_table(where.chat_id, where.thread_id)
        if ordinary is not None:
            found.append(Running(ordinary, await tx.seats(ordinary.id)))
        tour = await tx.open_tournament(where.chat_id, where.thread_id)
        if tour is not None and tour.status == "running":
            for board, table in await _boards(tx, tour):
                if table.status in LIVE:
                    found.append(Running(table, await tx.seats(table.id), board))
        return found

    async def pick(self, where: Where, arg: str) -> Picked:
        """The table ``arg`` names here (empty: the only one running, else the choice)."""
        arg = arg.strip()
        async with self.store.read() as tx:
            if not arg:
                live = await self._running(tx, where)
                if len(live) == 1:
                    return Picked(live[0])
                return Picked(choices=live[:CHOICES])
            found = NAMED.match(arg)
            if found is None:
                return Picked(unknown=True)
            if found.group(1):
                return await self._by_id(tx, where, parse_id(found.group(1)))
            tour = await tx.open_tournament(where.chat_id, where.thread_id)
            if tour is None or tour.status != "running":
                return Picked(unknown=True)
            boards = await _boards(tx, tour)
            if found.group(4):
                rnd = _current_round(tour, boards)
                number = int(found.group(4))
            else:
                rnd, number = int(found.group(2)) - 1, int(found.group(3))
            for board, table in boards:
                if board.round == rnd and board.board == number - 1:
                    return Picked(Running(table, await tx.seats(table.id), board))
        return Picked(unknown=True)

    async def _by_id(self, tx: Tx, where: Where, table_id: int | None) -> Picked:
        row = await tx.table(table_id) if table_id is not None else None
        if row is None or row.chat_id != where.chat_id or row.thread_id != where.thread_id:
            return Picked(unknown=True)  # another chat's table is no table here
        return Picked(Running(row, await tx.seats(row.id), await tx.board_of_table(row.id)))

    async def here(self, table_id: int, where: Where) -> Running | None:
        """The table if it lives in this chat and topic (a chooser's press acts only where it was made)."""
        async with self.store.read() as tx:
            picked = await self._by_id(tx, where, table_id)
        return picked.table


async def _boards(tx: Tx, tour: TournamentRow) -> list[tuple[BoardRow, TableRow]]:
    pairs = []
    for board in await tx.boards(tour.id):
        if board.kind == "table" and board.table_id is not None:
            table = await tx.table(board.table_id)
            if table is not None:
                pairs.append((board, table))
    return pairs


def _current_round(tour: TournamentRow, boards: list[tuple[BoardRow, TableRow]]) -> int:
    """The round a bare table number means: the earliest one still playing (a round robin opens all its
    rounds at once), else the latest opened."""
    live = [board.round for board, table in boards if table.status in LIVE]
    return min(live) if live else tour.round - 1
