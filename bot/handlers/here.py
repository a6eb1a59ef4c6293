"""Naming one of a chat's tables in a command: ``/score 2``, ``/pause 3.1``, ``/extend #41``; with several
running and none named, the choice as buttons (pressed: bot/handlers/chosen.py)."""

from __future__ import annotations

from bot.services.here import Picked, TablesHere
from bot.services.ports import Replies
from bot.services.types import Where
from bot.ui.i18n import t
from bot.ui.keyboards import choose_table_keyboard
from bot.ui.words import name


async def pick_or_ask(here: TablesHere, replies: Replies, where: Where, arg: str, op: str) -> Picked | None:
    """The table a command names (``picked.table`` None: no table runs here). None when the command is
    answered already: a name that is no table here, or the choice among several running."""
    picked = await here.pick(where, arg)
    lang = where.lang
    if picked.unknown:
        await replies.say(where, t(lang, "There is no table {table} here. Name a table by its number in the round "
                                         "(2), by round and table (3.2) or by its #id.", table=name(arg[:32])))
        return None
    if len(picked.choices) > 1:
        await replies.say(where, t(lang, "Several tables are running here: which one?"),
                          choose_table_keyboard(op, [(r.table.id, r.label(lang)) for r in picked.choices]))
        return None
    return picked
