"""Group commands and lobby buttons: /new, /join, /leave, /begin, /cancel."""

from __future__ import annotations

import logging

from aiogram import F, Router
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.handlers import members
from bot.handlers.context import is_admin
from bot.handlers.here import pick_or_ask
from bot.services.hands.in_group import GroupHands
from bot.services.here import TablesHere
from bot.services.lobby import LobbyService
from bot.services.ports import Replies
from bot.services.seats import SeatService
from bot.services.types import Actor, Answer, Where
from bot.tournaments.service import Tournaments
from bot.ui.callbacks import Lobby
from bot.ui.clip import clip_plain
from bot.ui.i18n import t
from bot.ui.keyboards import join_link_keyboard
from bot.ui.words import name

GROUPS = F.chat.type.in_({"group", "supergroup"})
log = logging.getLogger(__name__)


async def _answer_press(query: CallbackQuery, answer: Answer) -> None:
    """Answer a press. A query already answered or too old (the same press delivered again after a
    restart, or answered late) cannot be answered again: that is no error, the press was handled."""
    try:
        await query.answer(clip_plain(answer.text) or None, show_alert=answer.alert, url=answer.url)
    except TelegramBadRequest as exc:
        if "query is too old" not in exc.message and "query id is invalid" not in exc.message.lower():
            raise
        log.info("callback %s not answered: %s", query.id, exc.message)


async def new(message: Message, command: CommandObject, lobby: LobbyService, replies: Replies, actor: Actor,
              where: Where, group_hands: GroupHands) -> None:
    args = (command.args or "").split()
    if not args:
        await replies.say(where, t(where.lang, "Which game? For example: /new carnival quarters=1. /games lists them."))
        return
    # The lobby says whether hands come unasked: known from the bot's membership updates once one came,
    # else asked of Telegram (once: the answer is stored).
    if await group_hands.known_rights(where.chat_id) is None:
        admin = await members.bot_is_admin(message.bot, where.chat_id)
        if admin is not None:
            await group_hands.bot_rights(where.chat_id, admin)
    await lobby.new_table(where, actor, args[0], args[1:])


async def group_only(message: Message, replies: Replies, actor: Actor) -> None:
    await replies.say(Where(message.chat.id, 0, "", actor.lang),
                      t(actor.lang, "Tables live in group chats: add me to a group and use this command there."))


async def _table_or_say(lobby: LobbyService, replies: Replies, where: Where) -> int | None:
    table_id = await lobby.open_table_id(where)
    if table_id is None:
        await replies.say(where, t(where.lang, "There is no table here. Open one with /new carnival."))
    return table_id


async def join(message: Message, lobby: LobbyService, replies: Replies, actor: Actor, where: Where) -> None:
    table_id = await _table_or_say(lobby, replies, where)
    if table_id is None:
        return
    answer = await lobby.join(table_id, actor, where.lang)
    if answer.url:
        link = join_link_keyboard(lobby.bot_username, await lobby.join_payload(table_id), where.lang)
        await replies.say(where, t(where.lang, "{who}, open the bot once so I can send you your cards.",
                                   who=_name(actor)), link)
    elif answer.alert:
        # Only the one who typed /join needs to know why not ("You are already at this table"): in the DM.
        if actor.started:
            await replies.say(Where(actor.user_id, 0, "", actor.lang), answer.text)


async def leave(message: Message, command: CommandObject, lobby: LobbyService, replies: Replies, seats: SeatService,
                tournaments: Tournaments, actor: Actor, where: Where) -> None:
    """Before the start: stand up. During the game: confirm, and an AI takes the seat (the creator or an
    admin may do it for an absent player: ``/leave 2`` or ``/leave Name``). A player of the running
    tournament here who is not at the ordinary table: confirm withdrawing from the tournament."""
    arg = (command.args or "").strip()
    if not arg and await tournaments.ask_withdraw(where, actor):  # a running tournament's player: withdraw
        return
    admin = bool(arg) and await is_admin(message, actor.user_id)
    if await seats.ask_leave(where, actor, arg, admin):
        return
    table_id = await _table_or_say(lobby, replies, where)
    if table_id is not None:
        answer = await lobby.leave(table_id, actor, where.lang)
        if answer.alert:
            await replies.say(where, f"{_name(actor)}: {answer.text}")


async def begin(message: Message, lobby: LobbyService, replies: Replies, actor: Actor, where: Where) -> None:
    table_id = await _table_or_say(lobby, replies, where)
    if table_id is not None:
        answer = await lobby.start(table_id, actor, where.lang, await is_admin(message, actor.user_id))
        if answer.alert:
            await replies.say(where, answer.text)


async def cancel(message: Message, command: CommandObject, lobby: LobbyService, here: TablesHere, replies: Replies,
                 actor: Actor, where: Where) -> None:
    """The creator or an admin ends the table here (``/cancel 2``: names one of several; a running
    tournament's table is refused by the service, which says why)."""
    picked = await pick_or_ask(here, replies, where, command.args or "", "ca")
    if picked is None:
        return
    if picked.table is None:
        await replies.say(where, t(where.lang, "There is no table here. Open one with /new carnival."))
        return
    answer = await lobby.cancel(picked.table.table.id, actor, where.lang, await is_admin(message, actor.user_id))
    if answer.alert:  # done: the group was told by the cancel itself ("The table was cancelled.")
        await replies.say(where, answer.text)


async def lobby_button(query: CallbackQuery, callback_data: Lobby, lobby: LobbyService, seats: SeatService,
                       actor: Actor,
                       where: Where | None) -> None:
    lang = actor.lang
    op, table_id = callback_data.op, callback_data.t
    creator = None if where is None else await lobby.creator_here(table_id, where)

    async def admin() -> bool:  # Telegram is asked only when it matters: never about the table's creator
        return actor.user_id != creator and await is_admin(query, actor.user_id)

    if where is None or creator is None:
        # Forged data naming another chat's (or topic's) table: act only where the button was pressed.
        answer = Answer(t(lang, "This button is not valid."), alert=True)
    elif op == "join":
        answer = await lobby.join(table_id, actor, lang)
    elif op == "leave":
        answer = await lobby.leave(table_id, actor, lang)
    elif op == "ai":
        answer = await lobby.add_ai(table_id, actor, lang, callback_data.k)
    elif op == "start":
        answer = await lobby.start(table_id, actor, lang, await admin())
    elif op == "cancel":
        answer = await lobby.cancel(table_id, actor, lang, await admin())
    elif op in ("quit", "offer", "stay", "take") and is_seat(callback_data.k) and query.message is not None:
        prompt = query.message.message_id
        if op != "take" and not await seats.is_prompt(table_id, int(callback_data.k), actor.user_id, prompt):
            # Not the presser's own leave prompt (someone else's, a lobby, a seat offer): hands off.
            answer = Answer(t(lang, "This button is not for you."), alert=True)
        elif op == "stay":
            await seats.close_prompt(query.message.chat.id, prompt)
            answer = Answer()
        elif op == "take":
            answer = await seats.take_seat(table_id, int(callback_data.k), actor, lang, query.message.chat.id)
        else:
            answer = await seats.confirm_leave(table_id, int(callback_data.k), actor, lang,
                                               await is_admin(query, actor.user_id), query.message.chat.id,
                                               query.message.message_id, offer=op == "offer")
    elif op in ("opts", "opt", "back"):
        answer = await lobby.lobby_options(table_id, actor, lang, op, callback_data.k, op == "opt" and await admin())
    else:
        answer = Answer(t(lang, "This button is not valid."), alert=True)
    await _answer_press(query, answer)


def is_seat(k: str) -> bool:
    """A seat number as a button carries it: a few ASCII digits (``"²".isdigit()`` is true, ``int("²")`` fails)."""
    return 0 < len(k) <= 3 and k.isascii() and k.isdigit()


def _name(actor: Actor) -> str:
    return name(actor.name)


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="lobby")
    router.message.register(new, Command("new"), GROUPS)
    router.message.register(group_only, Command("new", "join", "leave", "begin", "cancel"), F.chat.type == "private")
    router.message.register(join, Command("join"), GROUPS)
    router.message.register(leave, Command("leave"), GROUPS)
    router.message.register(begin, Command("begin"), GROUPS)
    router.message.register(cancel, Command("cancel"), GROUPS)
    router.callback_query.register(lobby_button, Lobby.filter())
    return router
