"""Play buttons in the DM: a move, or the second step of a choice."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from bot.handlers.lobby import _answer_press
from bot.services.tables import Actor, Answer, Tables
from bot.ui.callbacks import Cap, Menu, Move, Pick


async def move(query: CallbackQuery, callback_data: Move, tables: Tables, actor: Actor, update_id: int) -> None:
    answer = await tables.press(callback_data.t, callback_data.v, callback_data.i, actor, actor.lang, update_id)
    await _answered(query, callback_data.t, answer, tables, actor)


async def menu(query: CallbackQuery, callback_data: Menu, tables: Tables, actor: Actor) -> None:
    answer = await tables.menu(callback_data.t, callback_data.v, callback_data.g, actor, actor.lang)
    await _answered(query, callback_data.t, answer, tables, actor)


async def pick(query: CallbackQuery, callback_data: Pick, tables: Tables, actor: Actor, update_id: int) -> None:
    answer = await tables.pick(callback_data.t, callback_data.v, callback_data.w, callback_data.m,
                               bool(callback_data.go), actor, actor.lang, update_id)
    await _answered(query, callback_data.t, answer, tables, actor)


async def capture(query: CallbackQuery, callback_data: Cap, tables: Tables, actor: Actor, update_id: int) -> None:
    """The Karusele capture builder: toggle a table card, or take the chosen cards."""
    answer = await tables.capture(callback_data.t, callback_data.v, callback_data.c, callback_data.m,
                                  bool(callback_data.go), actor, actor.lang, update_id)
    await _answered(query, callback_data.t, answer, tables, actor)


async def _answered(query: CallbackQuery, table_id: int, answer: Answer, tables: Tables, actor: Actor) -> None:
    """Answer the press; a press on an out-of-date keyboard also takes that keyboard away."""
    await _answer_press(query, answer)
    if answer.stale and query.message is not None:
        await tables.clear_stale_keyboard(table_id, actor.user_id, query.message.chat.id, query.message.message_id)


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="play")
    router.callback_query.register(move, Move.filter())
    router.callback_query.register(menu, Menu.filter())
    router.callback_query.register(pick, Pick.filter())
    router.callback_query.register(capture, Cap.filter())
    return router
