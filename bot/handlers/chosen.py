"""The buttons that name one of a chat's tables: a choice offered by a command (bot/handlers/here.py) and
"📊 Score" under a tournament table's message. A press acts only on a table of the chat and topic where it
was made; rights are the command's own, checked in that chat by the services (anyone's score sheet and
record, the pause vote's seated players, the creator's extension, /cancel's creator or admins and never a
running tournament's table)."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from bot.handlers.context import is_admin
from bot.handlers.lobby import _answer_press
from bot.services.clocks import ClockService
from bot.services.here import TablesHere
from bot.services.lobby import LobbyService
from bot.services.reports import Reports
from bot.services.types import Actor, Answer, Where
from bot.ui.callbacks import Here
from bot.ui.i18n import t

OPS = ("sc", "rc", "pa", "re", "ex", "ca")


async def chosen(query: CallbackQuery, callback_data: Here, here: TablesHere, reports: Reports,
                 clocks: ClockService | None, lobby: LobbyService, actor: Actor, where: Where | None) -> None:
    """A table chosen from the list, or a tournament table's Score button."""
    lang = actor.lang
    op, table_id = callback_data.op, callback_data.t
    found = None if where is None else await here.here(table_id, where)
    if where is None or found is None or op not in OPS:
        # Forged data naming another chat's (or topic's) table: act only where the button was pressed.
        answer = Answer(t(lang, "This button is not valid."), alert=True)
    elif op == "sc":
        await reports.score(where, table_id)
        answer = Answer()
    elif op == "rc":
        await reports.record(where, table_id)
        answer = Answer()
    elif op == "ca":
        admin = actor.user_id != found.table.creator_id and await is_admin(query, actor.user_id)
        answer = await lobby.cancel(table_id, actor, lang, admin)
    elif clocks is None:
        answer = Answer(t(lang, "No clock is running now."), alert=True)
    elif op == "ex":
        answer = await clocks.extend(table_id, actor, lang)
    else:
        answer = await clocks.vote(table_id, actor, op == "pa", lang)
    await _answer_press(query, answer)


def router() -> Router:
    router = Router(name="chosen")
    router.callback_query.register(chosen, Here.filter())
    return router
